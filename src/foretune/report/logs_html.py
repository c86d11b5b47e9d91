"""The logs report as one self-contained HTML file: the markdown text as tables, plus inline SVG charts, on the
same page style as the other reports (report/page.py)."""

from __future__ import annotations

from html import escape
from typing import Any

from foretune import __version__
from foretune.report.charts import bars, lines
from foretune.report.logs_text import render as text_render
from foretune.report.logs_text import section_title
from foretune.report.markdown_html import to_html
from foretune.report.page import page

MAX_POINTS = 720


def _thin(rows: list[list[Any]], column: int) -> list[float]:
    """One value per point, at most MAX_POINTS (the maximum of each group: peaks stay visible)."""
    values = [float(r[column]) for r in rows]
    if len(values) <= MAX_POINTS:
        return values
    step = -(-len(values) // MAX_POINTS)
    return [max(values[i:i + step]) for i in range(0, len(values), step)]


def _thin_labels(rows: list[list[Any]]) -> list[str]:
    """The minute of each point :func:`_thin` gives (the first of each group)."""
    step = max(1, -(-len(rows) // MAX_POINTS))
    return [str(rows[i][0]) for i in range(0, len(rows), step)]


def time_axis(rows: list[list[Any]]) -> str:
    """What a point of a per-minute chart is: a minute the log has lines for, or, thinned by :func:`_thin`, the
    busiest of a group of them.

    >>> time_axis([["10:00", 1]] * 3), time_axis([["10:00", 1]] * 1441)
    ('time (one point a minute, as the log writes it)', 'time (one point per 3 logged minutes, the highest of them)')
    """
    step = max(1, -(-len(rows) // MAX_POINTS))
    return ("time (one point a minute, as the log writes it)" if step == 1
            else f"time (one point per {step} logged minutes, the highest of them)")


def charts(report: dict[str, Any]) -> dict[str, list[str]]:
    """SVG charts by the heading of the section they belong to."""
    found: dict[str, list[str]] = {}
    for s in report.get("production", []):
        out = found.setdefault(section_title("production", s["log"]), [])
        rows = s["per_minute"]
        if rows:
            labels = _thin_labels(rows)
            out.append(lines([("requests/min", _thin(rows, 1)), ("5xx/min", _thin(rows, 2))], labels=labels,
                             title=f"{s['log']}: requests per minute", axis=time_axis(rows)))
            cap = s["concurrency"]["capacity"]
            out.append(lines([("peak concurrent requests", _thin(rows, 3))], labels=labels,
                             limit=("Puma capacity", float(cap)) if cap else None, title=f"{s['log']}: concurrency per minute", axis=time_axis(rows)))
        if s["actions"]:
            out.append(bars([(a["action"], a["p95"] or 0) for a in s["actions"][:12]], title=f"{s['log']}: p95 by action (top by total time)", unit=" ms"))
    for s in report.get("apache_access", []):
        out = found.setdefault(section_title("apache_access", s["log"]), [])
        rows = s["per_minute"]
        if rows:
            out.append(lines([("requests/min", _thin(rows, 1)), ("503/min", _thin(rows, 7)), ("502/min", _thin(rows, 6))],
                             labels=_thin_labels(rows), title=f"{s['log']}: status per minute", axis=time_axis(rows)))
        if s["top_endpoints"]:
            out.append(bars([(e[0], e[1]) for e in s["top_endpoints"][:12]], title=f"{s['log']}: top endpoints"))
    return found


def render(report: dict[str, Any], *, generated: str = "", paper: str | None = None) -> str:
    """One page with the audit report's styles (light, dark, print), the tables scrolling on a narrow screen."""
    pictures = {} if "metrics" in report else charts(report)
    if "metrics" in report:
        from foretune.report.logs_compare import render as compare_render  # start-up: for --compare only

        markdown = compare_render(report, markdown=True, top=25, version=False)
    else:
        markdown = text_render(report, markdown=True, top=25, version=False)
    body = to_html(markdown, pictures)
    title = "foretune logs — before/after" if "metrics" in report else f"foretune logs — {report['source']}"
    stamp = f"<p class=\"meta-line\">Generated {escape(generated + ' ' if generated else '')}by foretune {escape(__version__)}</p>\n"
    head, _, rest = body.partition("</h1>\n")
    return page(title, f"{head}</h1>\n{stamp}{rest}" if rest else stamp + body, paper=paper)
