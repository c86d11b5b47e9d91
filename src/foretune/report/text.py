"""Terminal report: findings grouped by component, wrapped to the terminal, one-line summary.

Every text that came from the audited files goes through :func:`foretune.term.clean` first.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING

from foretune.audit.model import Finding, Report
from foretune.report.data import excerpt_line, ordered, value_text
from foretune.rules.base import Status
from foretune.term import clean, clean_line, plural, render_to_text

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text

def render(report: Report, *, color: bool = False, verbose: bool = False, width: int | None = None) -> str:
    """The report as terminal text; ``width`` wraps every line (``None``: no wrapping)."""
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    head: list[RenderableType] = [
        Text(f"foretune audit of {clean_line(report.source)} ({report.source_kind})", style="heading"),
        Text(f"{clean_line(report.release or 'release unknown')}, {clean_line(report.role or 'role unknown')}, "
             + (plural(report.hosts, "host") if report.hosts is not None else "unknown hosts")
             + (f", plan profile {clean_line(report.profile)}" if report.profile else "")),
        *(Text(clean_line(line)) for line in report.context_lines()),
        *(Text(f"note: {clean(n)}", style="muted") for n in report.notes), Text(""),
    ]
    shown = [f for f in ordered(report) if verbose or f.status in (Status.FAIL, Status.ERROR)]
    parts = list(head)
    for component, group in groupby(sorted(shown, key=lambda f: f.component), key=lambda f: f.component):
        parts.append(Text(f"== {clean_line(component)}", style="heading"))
        parts.append(_component(sorted(group, key=lambda f: (-int(f.severity), f.rule_id))))
        parts.append(Text(""))
    parts.append(Text("summary: " + report.summary()))
    return render_to_text(Group(*parts), color=color, width=width)


def _key(f: Finding) -> tuple[str, str]:
    """(label, theme style) of a finding's status or severity."""
    if f.status in (Status.PASS, Status.SKIP):
        return f.status.value.upper(), f"sev.{f.status.value}"
    if f.status == Status.ERROR:
        return "ERROR", "sev.error"
    return f.severity.label.upper(), f"sev.{f.severity.label}"


def _component(findings: list[Finding]) -> RenderableType:
    from rich.padding import Padding  # start-up: rich, only when this is drawn
    from rich.table import Table  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for f in findings:
        label, style = _key(f)
        grid.add_row(Text(label, style=style), _body(f))
    return Padding(grid, (0, 0, 0, 2))


def _body(f: Finding) -> RenderableType:
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.padding import Padding  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    tag = f" (waived: {clean_line(f.waived)})" if f.waived else ""
    lines: list[RenderableType] = [Text.assemble((f.rule_id, "heading"), f": {clean(f.message)}{tag}")]
    if f.status in (Status.PASS, Status.SKIP):
        return lines[0]
    if f.current is not None or f.recommended is not None:
        lines.append(Text(f"current: {clean_line(value_text(f.current, f.unit))}   recommended: "
                          f"{clean_line(value_text(f.recommended, f.unit))}"))
    for e in f.evidence[:4]:
        excerpt = f": {clean_line(excerpt_line(e.excerpt, 100))}" if e.excerpt else ""
        lines.append(Text(f"evidence: {clean_line(e.location)}{excerpt}", style="muted"))
    for symptom in f.symptoms:  # the same root cause, seen by another rule
        lines.append(Text.assemble("symptom: ", (symptom.rule_id, "heading"), f" ({symptom.severity.label}): {clean(symptom.message)}"))
        own = {(e.location, e.excerpt) for e in f.evidence}
        for e in [e for e in symptom.evidence if (e.location, e.excerpt) not in own][:2]:
            excerpt = f": {clean_line(excerpt_line(e.excerpt, 100))}" if e.excerpt else ""
            lines.append(Padding(Text(f"evidence: {clean_line(e.location)}{excerpt}", style="muted"), (0, 0, 0, 2)))
    for fix in f.fixes:
        lines += [Text("fix:"), Padding(_code(fix), (0, 0, 0, 2))]
    if f.citations:
        lines.append(Text("see: " + "; ".join(clean_line(title) for _, title, _ in f.citations), style="muted"))
    return Group(*lines)


def _code(text: str) -> Text:
    from rich.text import Text  # start-up: rich, only when this is drawn

    return Text(clean(text), style="changed")
