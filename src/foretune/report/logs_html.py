"""The logs report as one self-contained HTML file: the markdown text as tables, plus inline SVG charts."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from foretune.report.charts import bars, lines
from foretune.report.logs_text import TITLES
from foretune.report.logs_text import render as text_render

CSS = """body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1d2329;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #e1e4e8}
table{border-collapse:collapse;margin:.6rem 0;display:block;max-width:100%;overflow-x:auto}p,h1,h2{overflow-wrap:anywhere}th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #e1e4e8}
td.n{text-align:right}pre{background:#f6f8fa;padding:.6rem;overflow-x:auto}.chart{margin:1rem 0}"""
MAX_POINTS = 720


def _thin(rows: list[list[Any]], column: int) -> list[float]:
    """One value per point, at most MAX_POINTS (the maximum of each group: peaks stay visible)."""
    values = [float(r[column]) for r in rows]
    if len(values) <= MAX_POINTS:
        return values
    step = -(-len(values) // MAX_POINTS)
    return [max(values[i:i + step]) for i in range(0, len(values), step)]


def charts(report: dict[str, Any]) -> dict[str, list[str]]:
    """SVG charts by the heading of the section they belong to."""
    found: dict[str, list[str]] = {}
    for s in report.get("production", []):
        out = found.setdefault(f"{TITLES['production']}: {s['log']}", [])
        rows = s["per_minute"]
        if rows:
            labels = [rows[0][0], rows[-1][0]]
            out.append(lines([("requests/min", _thin(rows, 1)), ("5xx/min", _thin(rows, 2))], labels=labels,
                             title=f"{s['log']}: requests per minute"))
            cap = s["concurrency"]["capacity"]
            out.append(lines([("peak concurrent requests", _thin(rows, 3))], labels=labels,
                             limit=("Puma capacity", float(cap)) if cap else None, title=f"{s['log']}: concurrency per minute"))
        if s["actions"]:
            out.append(bars([(a["action"], a["p95"] or 0) for a in s["actions"][:12]], title=f"{s['log']}: p95 by action (top by total time)", unit=" ms"))
    for s in report.get("apache_access", []):
        out = found.setdefault(f"{TITLES['apache_access']}: {s['log']}", [])
        rows = s["per_minute"]
        if rows:
            out.append(lines([("requests/min", _thin(rows, 1)), ("503/min", _thin(rows, 7)), ("502/min", _thin(rows, 6))],
                             labels=[rows[0][0], rows[-1][0]], title=f"{s['log']}: status per minute"))
        if s["top_endpoints"]:
            out.append(bars([(e[0], e[1]) for e in s["top_endpoints"][:12]], title=f"{s['log']}: top endpoints"))
    return found


def render(report: dict[str, Any]) -> str:
    pictures = {} if "metrics" in report else charts(report)
    body = _markdown_to_html(text_render(report, markdown=True, top=25), pictures)
    title = "foretune logs — before/after" if "metrics" in report else f"foretune logs — {report['source']}"
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
            f"<style>{CSS}</style></head><body>{body}</body></html>\n")


def _markdown_to_html(md: str, pictures: dict[str, list[str]]) -> str:
    """text.render's markdown as HTML through markdown-it-py (CommonMark and tables, raw HTML off), charts under their heading."""
    from markdown_it import MarkdownIt  # only the HTML report needs it (start-up)
    from markdown_it.token import Token  # start-up: markdown-it loads only for the HTML report

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(md)
    out: list[Token] = []
    for i, token in enumerate(tokens):
        out.append(token)
        if token.type == "td_open" and _NUMBER.fullmatch(tokens[i + 1].content):
            token.attrSet("class", "n")
        elif token.type == "heading_close" and token.tag == "h2":
            title = "".join(child.content for child in tokens[i - 1].children or () if child.type in ("text", "code_inline"))
            for svg in pictures.get(title, []):
                chart = Token("html_block", "", 0)
                chart.content = f'<div class="chart">{svg}</div>\n'
                out.append(chart)
    return str(parser.renderer.render(out, parser.options, {}))


_NUMBER = re.compile(r"[-+]?[\d,]+(?:\.\d+)?%?|–")
