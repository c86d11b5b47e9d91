"""``--server-logs SOURCE``: the server's own logs over the run's window, as lines beside the client's view.

``foretune load`` (commands/load.py) reads the logs with the ``logs`` command's analysis; this module words them.
"""

from __future__ import annotations

from typing import Any


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
