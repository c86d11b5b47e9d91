"""The server's recent logs as redacted texts, carried by a snapshot (``collect`` and the collector ship the same).

The files are the ones the ``log_incidents`` fact of a live host reads: every log of
:data:`foretune.logs.kinds.PATTERNS` below the root written within the last
``logs_live_facts_days``; the window starts that many days before the collection (server wall
clock), and each file's last-written (year, month) dates its syslog lines, which have no year. Their text (decompressed, redacted like every raw text) is capped at
``logs_snapshot_max_bytes``, newest files first, so a snapshot stays small enough to read back.
"""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta
from typing import Any

from foretune import knowledge
from foretune.host.redact import redact_text
from foretune.host.text import decode
from foretune.logs.reader import READ_ERRORS, open_log
from foretune.logs.scan import discover
from foretune.logs.timeutil import epoch

SINCE_FORMAT = "%Y-%m-%dT%H:%M:%S"


def since_of(now: float, days: int) -> str:
    """Start of the window: ``days`` before ``now`` on the server's wall clock (as the live host's window)."""
    wall = datetime(*time.localtime(now)[:6]) - timedelta(days=days)
    return wall.strftime(SINCE_FORMAT)


def since_epoch(since: str) -> int:
    """``since`` (``YYYY-mm-ddTHH:MM:SS``) as wall-clock seconds (:func:`foretune.logs.timeutil.epoch`).

    >>> since_epoch("1970-01-02T00:00:00")
    86400
    """
    return epoch(*datetime.strptime(since, SINCE_FORMAT).timetuple()[:6])


def ship(root: str, *, now: float | None = None) -> tuple[dict[str, Any], list[str]]:
    """The ``logs`` section of a snapshot (``since``, ``days``, ``files``: path -> redacted text) and read problems."""

    now = time.time() if now is None else now
    days, budget = int(knowledge.threshold("logs_live_facts_days")), int(knowledge.threshold("logs_snapshot_max_bytes"))
    candidates = []
    for f in discover(root):
        try:
            mtime = os.path.getmtime(f.disk)
        except OSError:
            continue
        if mtime >= now - days * 86400:
            candidates.append((mtime, f.location, f.disk))
    files: dict[str, str] = {}
    ended: dict[str, list[int]] = {}
    problems: list[str] = []
    used = 0
    for mtime, location, disk in sorted(candidates, key=lambda c: (-c[0], c[1])):
        path = "/" + location
        try:
            with open_log(disk) as stream:
                data = stream.read(budget - used + 1)
        except READ_ERRORS as exc:
            problems.append(f"{path}: {getattr(exc, 'strerror', None) or exc}: skipped")
            continue
        if used + len(data) > budget:
            problems.append(f"{path}: skipped: the snapshot carries at most {budget // 1048576} MiB of logs, newest first")
            continue
        text, problem = decode(data, path)
        if problem:
            problems.append(problem)
        if text is not None:
            used += len(data)
            files[path] = redact_text(text)
            ended[path] = list(time.localtime(mtime)[:2])
    logs = {"since": since_of(now, days), "days": days, "files": dict(sorted(files.items())),
            "ended": dict(sorted(ended.items()))}
    return logs, [redact_text(p) for p in problems]
