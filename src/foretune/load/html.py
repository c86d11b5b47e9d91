"""A load result as one self-contained HTML page: the Markdown report's tables, and SVG charts of p95 latency
and success against concurrency (one point per level)."""

from __future__ import annotations

from html import escape
from typing import Any

CSS = ("body{font:14px/1.4 sans-serif;max-width:60em;margin:1em auto;padding:0 1em}"
       "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px}"
       "td.n{text-align:right}.chart{margin:1em 0}")
CHARTED = 4  # steps drawn: the most requested


def charts(doc: dict[str, Any]) -> list[str]:
    """p95 per step and the share of successful requests, against the users of each level."""
    from foretune.report.charts import lines  # start-up: only when charts runs

    levels = doc["levels"]
    if not levels:
        return []
    labels = [f"{levels[0]['users']} users", f"{levels[-1]['users']} users"]
    busiest = [s["name"] for s in sorted(doc["steps"], key=lambda s: -s["count"])[:CHARTED]]
    latency, success = [], []
    for name in busiest:
        rows = [next((s for s in level["steps"] if s["name"] == name), None) for level in levels]
        latency.append((name, [float(r["p95_ms"] or 0) if r else 0.0 for r in rows]))
        success.append((name, [100.0 * (r["count"] - r["failures_total"]) / r["count"] if r and r["count"] else 0.0
                               for r in rows]))
    return [lines(latency, labels=labels, title="p95 latency (ms) against concurrency"),
            lines(success, labels=labels, limit=("all succeed", 100.0), title="successful requests (%) against concurrency")]


def render(doc: dict[str, Any]) -> str:
    from foretune.load.report import markdown  # start-up: only when render runs

    body: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            body.append("<table><tr>" + "".join(f"<th>{escape(c)}</th>" for c in rows[0]) + "</tr>")
            for row in rows[2:]:
                body.append("<tr>" + "".join(
                    ('<td class="n">' if c.replace(".", "").replace(",", "").isdigit() else "<td>") + f"{escape(c)}</td>"
                    for c in row) + "</tr>")
            body.append("</table>")
            rows.clear()

    lines = markdown(doc).splitlines()
    for line in lines:
        if line.startswith("|"):
            rows.append([c.strip().replace("\\|", "|") for c in line.strip().strip("|").split(" | ")])
            continue
        flush()
        if line.startswith("# "):
            body.append(f"<h1>{escape(line[2:])}</h1>")
            body += [f'<div class="chart">{svg}</div>' for svg in charts(doc)]
        elif line.startswith("## "):
            body.append(f"<h2>{escape(line[3:])}</h2>")
        elif line.startswith("- "):
            body.append(f"<p>{escape(line[2:])}</p>")
        elif line.strip():
            body.append(f"<p>{escape(line)}</p>")
    flush()
    title = f"foretune load {doc['scenario']} — run {doc['run']}"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
            f"<style>{CSS}</style></head><body>{''.join(body)}</body></html>\n")
