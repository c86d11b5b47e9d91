"""What every audit format reads from the report: the findings' order, the needed profile, values and excerpts for
people (the JSON document itself is ``report/json_report.py``)."""

from __future__ import annotations

import re
from typing import Any

from foretune.audit.model import Finding, Report
from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.rules.base import Evidence, Status
from foretune.units import format_bytes, format_gib


def needed_profile(report: Report) -> str | None:
    """The size profile the host count needs, when the count is known (not assumed) and the box has size profiles."""
    if report.hosts is None or (report.hosts_basis or "").startswith("assumed") or report.profile not in SIZES \
            or report.role != "server":
        return None
    return hardware.profile_for_hosts(report.hosts)


def ordered(report: Report) -> list[Finding]:
    """Failing first (worst severity first), then the rest, each by component and rule id."""
    return sorted(report.findings, key=lambda f: (not f.counts, f.status != Status.FAIL, -int(f.severity), f.component, f.rule_id))


def value_text(value: Any, unit: str = "") -> str:
    """A finding's current or recommended value for people: byte counts in binary units, lists joined.

    >>> value_text(274726912, "bytes"), value_text(2 * 1024**3, "bytes"), value_text(4 * 1024**3), value_text(None)
    ('262 MiB', '2.0 GiB', '4.0 GiB', '-')
    """
    if value is None:
        return "-"
    if unit == "bytes" and isinstance(value, (int, float)) and not isinstance(value, bool):
        # from 1 GiB on, as every message writes a size (format_gib): one figure, one spelling
        return format_gib(value) if value >= 1024**3 else format_bytes(value)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1024**3 and value % (1024**2) == 0:

        return format_gib(value)
    return str(value)


# what an evidence line with no excerpt says: the file was read and none of its lines sets anything (a
# postgresql.auto.conf of comments only proves that ALTER SYSTEM sets nothing)
NOTHING_SET = "(read: no line of it sets a value)"


def unquoted(e: Evidence) -> str:
    """What an evidence line with no excerpt shows: its note of what the file lacks, else :data:`NOTHING_SET`.

    >>> unquoted(Evidence("postgresql", "postgresql.conf", note="no line sets work_mem")), unquoted(Evidence("x", "y"))
    ('(no line sets work_mem)', '(read: no line of it sets a value)')
    """
    return f"({e.note})" if e.note else NOTHING_SET


def short_excerpt(excerpt: str, limit: int, proves: str = "") -> str:
    """The excerpt on one line (its lines joined with " | ": a unit's block shows its ``LimitNOFILE=`` lines, not only
    ``Id=``) within ``limit`` characters, never without the value it proves: whole " | "-separated parts are dropped ("…" marks where) before a part holding one of the numbers in ``proves`` (the finding's message
    and current value); a single long part is cut around that number.

    >>> line = "Environment=FOREMAN_PUMA_THREADS_MIN=0 | Environment=FOREMAN_PUMA_THREADS_MAX=16 | Environment=FOREMAN_PUMA_WORKERS=40"
    >>> short_excerpt(line, 80, "40 workers; the guide measured 12-18 best")
    'Environment=FOREMAN_PUMA_THREADS_MIN=0 | … | Environment=FOREMAN_PUMA_WORKERS=40'
    >>> short_excerpt("Id=httpd.service\\nLimitNOFILE=1024", 100)
    'Id=httpd.service | LimitNOFILE=1024'
    >>> short_excerpt("a" * 50 + " x=40 " + "b" * 50, 40, "40")
    '…aaaaaaaaaaaaaaaaaaaaaa x=40 bbbbbbbbbb…'
    >>> short_excerpt("[9.5] Out of memory: Killed process 2013 (ruby) " + "x" * 30 + " file-rss:0kB", 60, "0 kills")
    '[9.5] Out of memory: Killed process 2013 (ruby) xxxxxxxxxxx…'
    """
    line = " | ".join(part.strip() for part in excerpt.splitlines() if part.strip())
    if len(line) <= limit:
        return line
    numbers = [re.compile(rf"(?<![\d.]){re.escape(n)}(?![\d.])") for n in dict.fromkeys(re.findall(r"\d+(?:\.\d+)?", proves))]
    parts = line.split(" | ")
    wanted = [i for i, part in enumerate(parts) if any(n.search(part) for n in numbers)]
    if len(parts) > 1:
        kept = set(wanted)
        for i in range(len(parts)):  # the others in order, while they fit
            trial = sorted(kept | {i})
            if len(_joined(parts, trial)) <= limit:
                kept.add(i)
        if not kept:
            kept = {0}
        return _joined(parts, sorted(kept))
    # a single digit (a log line's "file-rss:0kB") proves nothing by itself: it never moves the cut off the line's head,
    # which says what the line is ("Out of memory: Killed process ..."); nor does a number the head already holds
    found = next((m for n in numbers for m in [n.search(line)] if m and len(m.group()) > 1), None)
    if found is None or found.end() <= limit - 1:
        return line[:limit - 1] + "…"
    start = max(0, min(found.start() - (limit - 2) * 2 // 3, len(line) - (limit - 2)))
    return ("…" if start else "") + line[start:start + limit - 2] + ("…" if start + limit - 2 < len(line) else "")


def _joined(parts: list[str], kept: list[int]) -> str:
    out: list[str] = []
    for n, i in enumerate(kept):
        if (n == 0 and i > 0) or (n > 0 and i != kept[n - 1] + 1):
            out.append("…")
        out.append(parts[i])
    if kept and kept[-1] != len(parts) - 1:
        out.append("…")
    return " | ".join(out)


def proves(f: Finding) -> str:
    """The text whose numbers an evidence excerpt must keep: the finding's current value and message."""
    return f"{f.current if f.current is not None else ''} {f.message}"
