"""The report as plain data (schema ``foretune-audit/1``): the single source every format renders."""

from __future__ import annotations

from typing import Any

from foretune import __version__
from foretune.audit.model import Finding, Report
from foretune.rules.base import Severity, Status
from foretune.units import format_bytes, format_gib

SCHEMA = "foretune-audit/1"


def finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule_id, "title": f.title, "component": f.component, "severity": f.severity.label,
        "status": f.status.value, "message": f.message, "current": f.current, "recommended": f.recommended,
        "evidence": [{"fact": e.fact, "location": e.location, "excerpt": e.excerpt} for e in f.evidence],
        "fixes": list(f.fixes), "citations": [{"id": i, "title": t, "where": w} for i, t, w in f.citations],
        "waived": f.waived, "basis": f.basis or None,
        "recommends": [{"tunable": name, "value": value} for name, value in f.recommends],
        "symptoms": [finding_dict(s) for s in f.symptoms],
    }


def report_dict(report: Report) -> dict[str, Any]:
    failing = report.failing()
    return {
        "schema": SCHEMA,
        "foretune_version": __version__,
        "source": {"label": report.source, "kind": report.source_kind},
        "release": report.release, "role": report.role, "hosts": report.hosts, "profile": report.profile,
        "hosts_basis": report.hosts_basis, "profile_basis": report.profile_basis,
        "summary": {
            "text": report.summary(),
            "failing": len(failing),
            "by_severity": {s.label: sum(1 for f in failing if f.severity == s) for s in Severity},
            "passed": report.count(Status.PASS), "skipped": report.count(Status.SKIP),
            "errors": report.count(Status.ERROR), "waived": sum(1 for f in report.findings if f.waived),
        },
        "notes": list(report.notes),
        "findings": [finding_dict(f) for f in report.findings],
    }


def ordered(report: Report) -> list[Finding]:
    """Failing first (worst severity first), then the rest, each by component and rule id."""
    return sorted(report.findings, key=lambda f: (not f.counts, f.status != Status.FAIL, -int(f.severity), f.component, f.rule_id))


def excerpt_line(excerpt: str, width: int) -> str:
    """An evidence excerpt on one line: its lines joined with `` | `` (a unit's block shows its ``LimitNOFILE=`` lines,
    not only ``Id=``), cut at ``width``.

    >>> excerpt_line("Id=httpd.service\\nLimitNOFILE=1024", 100)
    'Id=httpd.service | LimitNOFILE=1024'
    """
    return " | ".join(line.strip() for line in excerpt.splitlines() if line.strip())[:width]


def value_text(value: Any, unit: str = "") -> str:
    """A finding's current or recommended value for people: byte counts in binary units, lists joined.

    >>> value_text(274726912, "bytes"), value_text(4 * 1024**3), value_text([1, 2]), value_text(None)
    ('262 MiB', '4.0 GiB', '1, 2', '-')
    """
    if value is None:
        return "-"
    if unit == "bytes" and isinstance(value, (int, float)) and not isinstance(value, bool):

        return format_bytes(value)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1024**3 and value % (1024**2) == 0:

        return format_gib(value)
    return str(value)
