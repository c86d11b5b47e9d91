"""Markdown report for pasting into a ticket."""

from __future__ import annotations

from foretune.audit.model import Report
from foretune.report.data import ordered, value_text
from foretune.rules.base import Status


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(report: Report) -> str:
    lines = [f"# foretune audit: {report.source}", "",
             f"- Release: {report.release or 'unknown'}", f"- Role: {report.role or 'unknown'}",
             f"- Managed hosts: {report.hosts if report.hosts is not None else 'unknown'}",
             f"- Plan profile: {report.profile or '-'}", *(f"- {line[0].upper()}{line[1:]}" for line in report.context_lines()), f"- Summary: {report.summary()}", ""]
    lines += [f"> {n}" for n in report.notes]
    failing = [f for f in ordered(report) if f.status in (Status.FAIL, Status.ERROR)]
    if failing:
        lines += ["", "| severity | rule | finding | current | recommended |", "|---|---|---|---|---|"]
        for f in failing:
            sev = "error" if f.status == Status.ERROR else f.severity.label
            lines.append(f"| {sev}{' (waived)' if f.waived else ''} | `{f.rule_id}` | {_cell(f.message)} | "
                         f"{_cell(value_text(f.current))} | {_cell(value_text(f.recommended))} |")
        for f in failing:
            lines += ["", f"## {f.rule_id} — {f.title}", "", f.message, ""]
            lines += [f"- evidence: `{e.location}`" + (f" — `{e.excerpt.splitlines()[0][:120]}`" if e.excerpt else "")
                      for e in f.evidence[:6]]
            for fix in f.fixes:
                lines += ["", "```", fix, "```"]
            if f.citations:
                lines += ["", "References: " + "; ".join(f"{t} ({w})" for _, t, w in f.citations)]
    else:
        lines += ["", "No findings."]
    return "\n".join(lines) + "\n"
