"""JSON report, validated against the bundled schema ``report/schema/audit-v1.json`` in tests."""

from __future__ import annotations

import json

from foretune.audit.model import Report
from foretune.report.data import report_dict


def render(report: Report, generated: str | None = None) -> str:
    return json.dumps(report_dict(report, generated), indent=2, default=str) + "\n"
