"""A load result as one self-contained HTML page: the Markdown report's tables, and SVG charts of p95 latency
and success against concurrency (one point per level, said under the charts)."""

from __future__ import annotations

from html import escape
from typing import Any

from foretune.report.markdown_html import to_html

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
    labels = [f"{n} user" if n == 1 else f"{n} users" for n in (levels[0]["users"], levels[-1]["users"])]
    busiest = [s["name"] for s in sorted(doc["steps"], key=lambda s: -s["count"])[:CHARTED]]
    latency, success = [], []
    for name in busiest:
        rows = [next((s for s in level["steps"] if s["name"] == name), None) for level in levels]
        latency.append((name, [float(r["p95_ms"] or 0) if r else 0.0 for r in rows]))
        success.append((name, [100.0 * (r["count"] - r["failures_total"]) / r["count"] if r and r["count"] else 0.0
                               for r in rows]))
    axis = axis_caption(doc)
    return [lines(latency, labels=labels, title="p95 latency (ms) against concurrency", axis=axis),
            lines(success, labels=labels, limit=("all succeed", 100.0), title="successful requests (%) against concurrency",
                  axis=axis)]


def axis_caption(doc: dict[str, Any]) -> str:
    """What a point of the charts is: a level of a closed ramp, or the one level of open arrivals.

    >>> axis_caption({"shape": {"levels": [5, 10, 15]}, "levels": [{"users": 5}, {"users": 10}, {"users": 15}]})
    'users (one point a load level: 5, 10, 15)'
    >>> axis_caption({"shape": {"arrival_rate": 2.0, "users": 40}, "levels": [{"users": 40}]})
    'one point: the whole run, open arrivals at 2.0/s (at most 40 users in flight)'
    """
    shape = doc["shape"]
    if shape.get("arrival_rate"):
        return f"one point: the whole run, open arrivals at {shape['arrival_rate']}/s (at most {shape['users']} users in flight)"
    users = [str(level["users"]) for level in doc["levels"]]
    shown = ", ".join(users) if len(users) <= 6 else f"{', '.join(users[:2])} … {users[-1]}"
    return f"users (one point a load level: {shown})"


def render(doc: dict[str, Any]) -> str:
    from foretune.load.report import head, markdown  # start-up: only when render runs

    body = to_html(markdown(doc), {head(doc)[0]: charts(doc)})
    title = f"foretune load {doc['scenario']} — run {doc['run']}"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
            f"<style>{CSS}</style></head><body>{body}</body></html>\n")
