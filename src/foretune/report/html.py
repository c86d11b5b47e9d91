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


# failing findings that say the box is short of memory: the memory chart then says so in its first line
SHORT_OF_MEMORY = ("memory-budget-over-ram", "swap-in-use", "oom-kills", "puma-workers-over-ram-budget")
MEMORY_PARTS = 8  # the largest services each in their own colour, the rest as one part: a legend read at a glance


def _memory_chart(report: Report) -> dict[str, Any] | None:
    """The plan the box needs (the profile the audit asks for: the memory finding's recommended figure), the services in
    force, and what the box measures (in use, MemAvailable, swap in use), on one
    scale against the RAM. On a box short of memory the first line says so, in the warning colour."""
    ram = report.ram_bytes
    if not ram or not (report.plan_memory or report.available_bytes is not None):
        return None
    names = list(dict.fromkeys(name for name, _ in (*report.plan_memory, *report.memory_budget)))
    if len(names) > MEMORY_PARTS:  # the smallest fold into one part
        largest = {name: max(size for n, size in (*report.plan_memory, *report.memory_budget) if n == name) for name in names}
        kept = set(sorted(names, key=lambda n: -largest[n])[:MEMORY_PARTS - 1])
        names = [name for name in names if name in kept]
    colour = {name: f"part-{i}" for i, name in enumerate(names)}
    more = plural(len({n for n, _ in (*report.plan_memory, *report.memory_budget)}) - len(names), "more service")

    def parts(items: tuple[tuple[str, int], ...]) -> list[tuple[str, float, str]]:
        out = [(clean(name), float(size), colour[name]) for name, size in items if name in colour]
        rest = sum(size for name, size in items if name not in colour)
        return out + ([(more, float(rest), f"part-{MEMORY_PARTS - 1}")] if rest else [])

    rows: list[charts.Row] = []
    if report.plan_memory:
        whose = f" ({report.plan_profile} profile)" if report.plan_profile else ""
        rows.append(charts.Row(f"the plan this box needs{whose}", parts(report.plan_memory), "plan"))
    if report.memory_budget and report.memory_budget != report.plan_memory:
        rows.append(charts.Row("the services in force", parts(report.memory_budget), "in force"))
    failing = {x.rule_id for f in report.failing() for x in (f, *f.symptoms)}
    short = [rule for rule in SHORT_OF_MEMORY if rule in failing]
    available, swap = report.available_bytes, report.swap_used_bytes or 0
    if available is not None:
        rows.append(charts.Row("measured", [("in use (RAM less MemAvailable)", float(max(ram - available, 0)), "mem-used"),
                                            ("available (MemAvailable)", float(min(available, ram)), "mem-free"),
                                            *([("swap in use", float(swap), "mem-swap")] if swap else [])], "measured"))
        state = [f"{_size(available)} of {_size(ram)} available", *([f"{_size(swap)} swap in use"] if swap else [])]
        headline = ([f"short of memory: {state[0]}", *state[1:], f"see {', '.join(short)}"] if short
                    else [f"measured: {', '.join(state)}"])
    else:
        headline = [*([f"short of memory (see {', '.join(short)})"] if short else []), f"{_size(ram)} RAM; MemAvailable not in the source"]
    title = "Memory: the plan this box needs, the services in force and what the box measures, against RAM"
    return {"caption": title, "svg": charts.bars_against(rows, capacity=float(ram), title=title, headline=headline, fmt=_size,
                                                          alarm=bool(short))}


def _charts(report: Report, markup: Callable[[str], Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    memory = _memory_chart(report)
    if memory is not None:
        out.append({**memory, "svg": markup(memory["svg"])})
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
