"""``--server-logs SOURCE``: what the server's own logs say over the run's window, beside the client's view.

The window is the run's start and end on this machine's clock, in its local time zone (the server's logs carry
local time without a zone), widened by ``MARGIN_S`` on each side.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from foretune.env import Environment

MARGIN_S = 60


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(epoch))


def summary(source: str, started: float, ended: float, env: Environment) -> dict[str, Any]:
    """The logs report's incidents, 503 bursts and busiest ``Controller#action`` rows for ``source`` over the run."""
    from foretune.commands.logs import _range, analyze

    since, until = _when(started - MARGIN_S), _when(ended + MARGIN_S + 60)  # minutes: round the end up
    args = argparse.Namespace(jobs=1, puma_capacity=None)
    report = analyze([source], _range(since, until, ("--server-logs", "--server-logs")), args, env)
    actions = [{k: a.get(k) for k in ("action", "count", "p50", "p95", "p99", "status")}
               for log in report.get("production") or [] for a in (log.get("actions") or [])[:10]]
    return {"source": report.get("source", source), "since": since, "until": until,
            "incidents": report.get("incidents", []), "bursts": report.get("bursts", []), "actions": actions}


def text(logs: dict[str, Any]) -> list[str]:
    lines = [f"server logs ({logs['source']}, {logs['since']} .. {logs['until']}):"]
    for incident in logs["incidents"]:
        lines.append(f"  {incident['kind']} x{incident['count']} ({incident.get('first')} .. {incident.get('last')}): "
                     f"{incident['line']}")
    for burst in logs["bursts"]:
        lines.append(f"  503 burst: {burst}")
    if len(lines) == 1:
        lines.append("  no incidents and no 503 bursts")
    return lines
