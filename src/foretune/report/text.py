"""Terminal report: findings grouped by component, one-line summary, colour only on a TTY."""

from __future__ import annotations

from collections.abc import Callable
from itertools import groupby

from foretune.audit.model import Finding, Report
from foretune.report.data import ordered, value_text
from foretune.rules.base import Status

COLORS = {"critical": "1;31", "high": "31", "medium": "33", "low": "36", "info": "37", "pass": "32", "skip": "90",
          "error": "1;35"}


def render(report: Report, *, color: bool = False, verbose: bool = False) -> str:
    def paint(text: str, key: str) -> str:
        return f"\033[{COLORS.get(key, '0')}m{text}\033[0m" if color else text

    head = [f"foretune audit of {report.source} ({report.source_kind})",
            f"{report.release or 'release unknown'}, {report.role or 'role unknown'}, "
            f"{report.hosts if report.hosts is not None else 'unknown'} hosts"
            + (f", plan profile {report.profile}" if report.profile else "")]
    lines = [*head, *report.context_lines(), *(f"note: {n}" for n in report.notes), ""]
    shown = [f for f in ordered(report) if verbose or f.status in (Status.FAIL, Status.ERROR)]
    for component, group in groupby(sorted(shown, key=lambda f: f.component), key=lambda f: f.component):
        lines.append(paint(f"== {component}", "info"))
        for f in sorted(group, key=lambda f: (-int(f.severity), f.rule_id)):
            lines += _finding(f, paint)
        lines.append("")
    lines.append("summary: " + report.summary())
    return "\n".join(lines) + "\n"


def _finding(f: Finding, p: Callable[[str, str], str]) -> list[str]:
    if f.status in (Status.PASS, Status.SKIP):
        return [f"  {p(f.status.value.upper(), f.status.value)}  {f.rule_id}: {f.message}"]
    label = "ERROR" if f.status == Status.ERROR else f.severity.label.upper()
    tag = " (waived: " + f.waived + ")" if f.waived else ""
    out = [f"  {p(label, 'error' if f.status == Status.ERROR else f.severity.label)}  {f.rule_id}: {f.message}{tag}"]
    if f.current is not None or f.recommended is not None:
        out.append(f"      current: {value_text(f.current)}   recommended: {value_text(f.recommended)}")
    for e in f.evidence[:4]:
        out.append(f"      evidence: {e.location}" + (f": {e.excerpt.splitlines()[0][:100]}" if e.excerpt else ""))
    for fix in f.fixes:
        out += ["      fix:", *(f"        {line}" for line in fix.splitlines())]
    if f.citations:
        out.append("      see: " + "; ".join(title for _, title, _ in f.citations))
    return out
