"""The logs report made ready for output: each suggestion's fix written as the snippet ``plan`` and ``audit`` print."""

from __future__ import annotations

from typing import Any

from foretune.plan.model import Fix
from foretune.render.snippets import render_fix


def rendered(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` (from :func:`foretune.logs.summary.build`) with every suggestion's fix data as its snippet text."""
    for suggestion in report.get("suggestions", []):
        if isinstance(suggestion["fix"], dict):
            suggestion["fix"] = render_fix(Fix(**suggestion["fix"]))
    return report
