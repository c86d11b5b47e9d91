"""One self-contained HTML file (jinja2 template, inline CSS, SVG and script): no network, prints with everything open.

Templates live in ``foretune/report/templates`` and are read with :mod:`importlib.resources`, so the
report renders from the zipapp too. Every value is HTML-escaped and has its control characters made visible.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from typing import Any

from foretune import __version__
from foretune.audit.model import Finding, Report
from foretune.knowledge import citations
from foretune.report import charts
from foretune.report.actions import by_severity, fix_blocks, identity, verdict, waiver_text, what_next
from foretune.report.data import ordered, proves, short_excerpt, unquoted, value_text
from foretune.rules.base import Severity, Status
from foretune.term import clean, plural


def _template(name: str) -> str:
    return resources.files("foretune.report").joinpath("templates").joinpath(name).read_text(encoding="utf-8")


def _size(size: float) -> str:
    """A byte count as the text report and the messages write it (one decimal of GiB from 1 GiB on)."""
    return value_text(size, "bytes")


def _badge(markup: Callable[[str], Any]) -> Callable[[Finding], Any]:
    from markupsafe import escape  # start-up: jinja2 loads only for the HTML report

    def badge(f: Finding) -> Any:
        key = ("error" if f.status == Status.ERROR else f.status.value if f.status in (Status.PASS, Status.SKIP)
               else f.severity.label)
        return markup(f'<span class="sev {"waived" if f.waived else key}">{escape("waived" if f.waived else key)}</span>')
    return badge


def _charts(report: Report, markup: Callable[[str], Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    measured = ""
    if report.ram_bytes and report.available_bytes is not None:
        measured = f"measured {_size(max(report.ram_bytes - report.available_bytes, 0))} in use" + (
            f", {_size(report.swap_used_bytes)} swap" if report.swap_used_bytes else "")
    if report.memory_budget and report.ram_bytes:  # one memory figure: the budget the memory finding counts
        title = "Memory of the services in force against RAM" + (f"; {measured}" if measured else "")
        out.append({"caption": title,
                    "svg": markup(charts.stacked_bar(
            [(clean(name), float(size)) for name, size in report.memory_budget], capacity=float(report.ram_bytes),
            title=title, fmt=_size, capacity_label="RAM"))})
    elif measured and report.ram_bytes and report.available_bytes is not None:
        title = "Memory the box measures: in use (RAM less MemAvailable) and swap in use, against RAM"
        parts = [("in use (RAM less MemAvailable)", float(max(report.ram_bytes - report.available_bytes, 0)))]
        if report.swap_used_bytes:
            parts.append(("swap in use", float(report.swap_used_bytes)))
        out.append({"caption": title, "svg": markup(charts.stacked_bar(parts, capacity=float(report.ram_bytes),
                                                                        title=title, fmt=_size, capacity_label="RAM"))})
    if report.connection_budget and report.max_connections:
        title = "PostgreSQL connections the running services may open against max_connections"
        out.append({"caption": title, "svg": markup(charts.stacked_bar(
            [(clean(name), float(n)) for name, n in report.connection_budget], capacity=float(report.max_connections),
            title=title, fmt=lambda v: f"{v:.0f}",
            capacity_label="max_connections in force"))})
    failing = report.failing()
    if failing:
        severities = [s.label for s in sorted(Severity, reverse=True)]
        counts: dict[str, dict[str, int]] = {}
        for f in failing:
            counts.setdefault(clean(f.component), {}).setdefault(f.severity.label, 0)
            counts[clean(f.component)][f.severity.label] += 1
        out.append({"caption": "Findings by component and severity", "svg": markup(charts.counts_by_group(
            dict(sorted(counts.items())), keys=severities, title="Findings by component and severity"))})
    return out


def render(report: Report, *, generated: str | None = None, version: str = __version__, paper: str | None = None) -> str:
    """The report as one HTML page; ``generated`` is the time shown in the header (default: now, UTC); ``paper``
    ("A4", "letter") the print page size (default: the browser's)."""
    import datetime  # start-up: datetime loads only when a report is dated

    import jinja2  # start-up: jinja2 loads only for the HTML report
    from markupsafe import Markup  # start-up: jinja2 loads only for the HTML report


    if generated is None:
        generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=False,
                             finalize=lambda value: clean(value) if isinstance(value, str) and not isinstance(value, Markup) else value)
    failing = report.failing()
    cards = [{"key": s.label, "label": s.label, "count": sum(1 for f in failing if f.severity == s)}
             for s in sorted(Severity, reverse=True)]
    cards += [{"key": "pass", "label": "passed", "count": report.count(Status.PASS)},
              {"key": "skip", "label": "skipped", "count": report.count(Status.SKIP)}]
    groups = by_severity(report)
    known = citations()
    urls = {cid: known[cid].url if cid in known else None for f in report.findings for cid, _, _ in f.citations}
    return env.from_string(_template("audit.html.j2")).render(
        r=report, version=version, generated=generated, cards=cards, paper=paper,
        hosts=plural(report.hosts, "managed host") if report.hosts is not None else "managed hosts unknown",
        ram=_size(report.ram_bytes) if report.ram_bytes else None,
        charts=_charts(report, Markup), failing=[f for _, found in groups for f in found],
        rest=[f for f in ordered(report) if f.status not in (Status.FAIL, Status.ERROR)], who=identity(report),
        verdict=verdict(report), groups=groups, next_steps=what_next(report), fixes=lambda f: fix_blocks(report, f), badge=_badge(Markup), value_text=value_text, urls=urls, waiver=waiver_text, nothing_set=unquoted,
        level=lambda f: ("waived" if f.waived else "error" if f.status == Status.ERROR
                         else f.status.value if f.status in (Status.PASS, Status.SKIP) else f.severity.label),
        excerpt=lambda f, e: short_excerpt(e.excerpt, 300, proves(f)),
        css=Markup(_template("report.css")), js=Markup(_template("report.js").replace("</", "<\\/")),
    ) + "\n"
