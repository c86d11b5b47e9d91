"""Markdown report for pasting into a ticket.

Text from the audited files can hold anything: raw HTML, Markdown links and images, backticks and
control characters. Plain text is escaped so a Markdown renderer shows it literally, code spans and
fences are chosen longer than any backtick run inside them, and control characters are made visible.

>>> print(text("<img src=x onerror=alert(1)> [a](javascript:x) *b* & `c`"))
\\<img src=x onerror=alert(1)\\> \\[a\\](javascript:x) \\*b\\* \\& \\`c\\`
>>> print(text("- not a list"), text("1. nor this"))
\\- not a list 1\\. nor this
>>> code("a`b")
'``a`b``'
"""

from __future__ import annotations

import re

from foretune.audit.model import Report
from foretune.report.data import excerpt_line, ordered, value_text
from foretune.rules.base import Status
from foretune.term import clean, clean_line

_PUNCTUATION = re.compile(r"([\\`*_\[\]<>#|~&])")
_LIST_START = re.compile(r"^(\s*\d*)([-+.)])(\s)")


def text(value: str) -> str:
    """Plain text on one line, every Markdown or HTML meaning escaped."""
    return _LIST_START.sub(r"\1\\\2\3", _PUNCTUATION.sub(r"\\\1", clean_line(value)))


def code(value: str) -> str:
    """An inline code span that no backtick inside ``value`` can close."""
    value = clean_line(value)
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def block(value: str) -> list[str]:
    """A fenced code block that no backtick fence inside ``value`` can close."""
    value = clean(value)
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, value, fence]


def render(report: Report) -> str:
    lines = [f"# foretune audit: {text(report.source)}", "",
             f"- Host: {text(report.hostname or 'unknown')}", f"- Data taken: {text(report.collected_at or 'unknown')}",
             f"- Release: {text(report.release or 'unknown')}", f"- Role: {text(report.role or 'unknown')}",
             f"- Managed hosts: {report.hosts if report.hosts is not None else 'unknown'}",
             f"- Plan profile: {text(report.profile or '-')}",
             *(f"- {text(line[0].upper() + line[1:])}" for line in report.context_lines()),
             f"- Summary: {text(report.summary())}", ""]
    lines += [f"> {text(n)}" for n in report.notes]
    failing = [f for f in ordered(report) if f.status in (Status.FAIL, Status.ERROR)]
    if failing:
        lines += ["", "| severity | rule | finding | current | recommended |", "|---|---|---|---|---|"]
        for f in failing:
            sev = "error" if f.status == Status.ERROR else f.severity.label
            lines.append(f"| {sev}{' (waived)' if f.waived else ''} | `{f.rule_id}` | {text(f.message)} | "
                         f"{text(value_text(f.current, f.unit))} | {text(value_text(f.recommended, f.unit))} |")
        for f in failing:
            lines += ["", f"## {f.rule_id} — {text(f.title)}", "", text(f.message), ""]
            lines += [f"- evidence: {code(e.location)}" + (f" — {code(excerpt_line(e.excerpt, 120))}" if e.excerpt else "")
                      for e in f.evidence[:6]]
            for symptom in f.symptoms:  # the same root cause, seen by another rule
                lines += [f"- symptom: `{symptom.rule_id}` ({symptom.severity.label}): {text(symptom.message)}"]
                lines += [f"  - evidence: {code(e.location)}" + (f" — {code(excerpt_line(e.excerpt, 120))}" if e.excerpt else "")
                          for e in symptom.evidence[:3] if e not in f.evidence]
            for fix in f.fixes:
                lines += ["", *block(fix)]
            if f.citations:
                lines += ["", "References: " + "; ".join(f"{text(t)} ({text(w)})" for _, t, w in f.citations)]
    else:
        lines += ["", "No findings."]
    return "\n".join(lines) + "\n"
