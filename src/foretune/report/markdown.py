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

from foretune import __version__
from foretune.audit.model import Report
from foretune.report.actions import by_severity, fix_blocks, identity, verdict, waiver_text, what_next
from foretune.report.data import proves, short_excerpt, unquoted, value_text
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


def with_code(value: str) -> str:
    """Plain text whose backtick-quoted parts stay code spans.

    >>> with_code("run `sysctl --system` *now*")
    'run `sysctl --system` \\\\*now\\\\*'
    """
    parts = re.split(r"`([^`]+)`", value)
    return "".join(code(part) if i % 2 else text(part) for i, part in enumerate(parts))


def render(report: Report, *, generated: str | None = None) -> str:
    """Who and what (``generated``: when the report was made), the verdict by severity, the findings worst first with
    one snippet per file, what next."""
    who = identity(report)
    lines = [f"# foretune audit: {text(report.hostname or report.source)}", "",
             f"- Host: {text(who.host)}", f"- Collected: {text(who.collected)} ({text(report.source_kind)} {text(report.source)})",
             f"- Product: {text(who.product)}", f"- Managed hosts: {text(who.sizing)}", f"- Profile: {text(who.profile)}",
             f"- foretune: {text(__version__)}" + (f", report generated {text(generated)}" if generated else ""), ""]
    lines += [f"> {text(n)}" for n in report.notes]
    groups = by_severity(report)
    lines += ["", f"## Verdict: {text(verdict(report))}", ""]
    lines += [f"- **{label}**: " + ", ".join(code(f.rule_id) for f in found) for label, found in groups]
    if groups:
        lines += ["", "| severity | rule | component | finding | current | recommended |", "|---|---|---|---|---|---|"]
        for label, found in groups:
            for f in found:
                lines.append(f"| {label} | `{f.rule_id}` | {text(f.component)} | {text(f.message)} | "
                             f"{text(value_text(f.current, f.unit))} | {text(value_text(f.recommended, f.unit))} |")
        for label, found in groups:
            for f in found:
                lines += ["", f"### {f.rule_id} — {text(f.title)} ({label})", "", text(f.message), ""]
                if f.waived:
                    lines += [f"_{text(waiver_text(f))}_", ""]
                lines += [f"- evidence: {code(e.location)}" + (f" — {code(short_excerpt(e.excerpt, 120, proves(f)))}" if e.excerpt else f" — {unquoted(e)}")
                          for e in f.evidence[:6]]
                for symptom in f.symptoms:  # the same root cause, seen by another rule
                    lines += [f"- symptom: `{symptom.rule_id}` ({symptom.severity.label}): {text(symptom.message)}"]
                    lines += [f"  - evidence: {code(e.location)}" + (f" — {code(short_excerpt(e.excerpt, 120, proves(symptom)))}" if e.excerpt else f" — {unquoted(e)}")
                              for e in symptom.evidence[:3] if e not in f.evidence]
                for fix in fix_blocks(report, f):  # a snippet to paste in a fence, advice as text
                    lines += ["", *block(fix.text)] if fix.code else ["", f"Fix: {with_code(fix.text)}"]
                if f.citations:
                    lines += ["", "References: " + "; ".join(f"{text(t)} ({text(w)})" for _, t, w in f.citations)]
    lines += ["", "## What next", ""]
    lines += [f"{n}. {with_code(step)}" for n, step in enumerate(what_next(report), 1)]
    lines += ["", f"Summary: {text(report.summary())}"]
    return "\n".join(lines) + "\n"
