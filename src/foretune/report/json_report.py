"""The audit report as JSON (schema ``foretune-audit/1``, shipped as ``report/schema/audit-v1.json`` and described
in docs/audit-json.md): every fix in one shape, the blocks the other formats show (``report.actions.fix_json``)."""

from __future__ import annotations

import json
from typing import Any

from foretune import __version__
from foretune.audit.model import Finding, Report
from foretune.report.actions import fix_blocks, fix_json, verdict, what_next
from foretune.report.data import needed_profile
from foretune.rules.base import Severity, Status

SCHEMA = "foretune-audit/1"


def finding_dict(report: Report, f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule_id, "title": f.title, "component": f.component, "severity": f.severity.label,
        "status": f.status.value, "message": f.message, "current": f.current, "recommended": f.recommended,
        "evidence": [{"fact": e.fact, "location": e.location, "excerpt": e.excerpt, **({"note": e.note} if e.note else {})}
                     for e in f.evidence],
        "fixes": [fix_json(report, block) for block in fix_blocks(report, f)], "citations": [{"id": i, "title": t, "where": w} for i, t, w in f.citations],
        "waived": f.waived, "waived_until": f.waived_until if f.waived else None, "basis": f.basis or None,
        "recommends": [{"tunable": name, "value": value} for name, value in f.recommends],
        "symptoms": [finding_dict(report, s) for s in f.symptoms],
    }


def report_dict(report: Report, generated: str | None = None) -> dict[str, Any]:
    """The report's data; ``generated`` is the generation time ("2023-11-14 22:13 UTC")."""
    failing = report.failing()
    return {
        "schema": SCHEMA,
        "foretune_version": __version__,
        "source": {"label": report.source, "kind": report.source_kind},
        "host": report.hostname, "collected_at": report.collected_at, "generated_at": generated,
        "release": report.release, "role": report.role, "hosts": report.hosts, "profile": report.profile,
        "hosts_basis": report.hosts_basis, "profile_basis": report.profile_basis, "profile_needed": needed_profile(report),
        "summary": {
            "text": report.summary(),
            "failing": len(failing),
            "by_severity": {s.label: sum(1 for f in failing if f.severity == s) for s in Severity},
            "passed": report.count(Status.PASS), "skipped": report.count(Status.SKIP),
            "errors": report.count(Status.ERROR), "waived": sum(1 for f in report.findings if f.waived),
        },
        "verdict": verdict(report),
        "notes": list(report.notes),
        "findings": [finding_dict(report, f) for f in report.findings],
        "next_steps": what_next(report),
    }


def render(report: Report, generated: str | None = None) -> str:
    return json.dumps(report_dict(report, generated), indent=2, default=str) + "\n"
