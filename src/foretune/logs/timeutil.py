"""Timestamps as integer seconds of the server's wall clock (naive; logs are local time).

Log lines carry local time without a zone (production.log, candlepin.log, syslog) or with an
offset (Apache). Everything is kept in the wall clock the server logged; an Apache offset that
differs from the first one seen is converted to it (and counted as a time-zone change).
"""

from __future__ import annotations

import calendar
import re
import time
from datetime import datetime, timezone

MONTHS = {m: i for i, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)}
MONTHS_B = {k.encode(): v for k, v in MONTHS.items()}


def epoch(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
    """Seconds since 1970 of a naive wall-clock time.

    >>> epoch(1970, 1, 2)
    86400
    """
    return calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))


def year_of(month: int, ended: tuple[int, int]) -> int:
    """The year of a syslog line's month in a log last written in ``ended`` = (year, month).

    >>> year_of(12, (2025, 1)), year_of(1, (2025, 1))
    (2024, 2025)
    """
    return ended[0] - 1 if month > ended[1] else ended[0]


# logrotate's dateext names a rotated file by the day it was rotated: messages-20240211, production.log-20240211.gz
_DATEEXT = re.compile(r"-(\d{4})(\d\d)(\d\d)(?:\d{2,6})?(?:\.(?:gz|xz|bz2))?$")


def log_ended(name: str, collected: tuple[int, int] | None, mtime: float | None) -> tuple[int, int] | None:
    """(year, month) a log was last written, which dates its lines that carry no year.

    A date-named rotation ends on the day in its name; any other file of a collected source (the live file,
    ``messages.1``) ends no later than the collection (``collected``: the sosreport's date). Only a source
    without a date (a live host) falls back to the file's modification time: a sosreport checked out or
    unpacked today has today's mtimes, which say nothing of when its lines were logged.

    >>> log_ended("var/log/messages-20231231", (2024, 2), 1.8e9), log_ended("var/log/messages.1", (2024, 2), 1.8e9)
    ((2023, 12), (2024, 2))
    >>> log_ended("var/log/messages-20251231", (2024, 2), None)  # a name after the collection is no date
    (2024, 2)
    """
    named = _DATEEXT.search(name)
    if named and int(named.group(1)) >= 1990 and 1 <= int(named.group(2)) <= 12:
        when = (int(named.group(1)), int(named.group(2)))
        if collected is None or when <= collected:
            return when
    if collected is not None:
        return collected
    if mtime is None:
        return None
    local = time.localtime(mtime)
    return (local.tm_year, local.tm_mon)


def iso(seconds: int | float | None) -> str | None:
    """``epoch`` back to ``YYYY-MM-DDTHH:MM:SS``.

    >>> iso(86400)
    '1970-01-02T00:00:00'
    """
    if seconds is None:
        return None
    return datetime.fromtimestamp(int(seconds), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def parse_when(text: str) -> int:
    """A --since/--until value: ``YYYY-MM-DD``, ``YYYY-MM-DD HH:MM[:SS]`` or with ``T``; raises ValueError.

    >>> parse_when("1970-01-02 00:01")
    86460
    """
    text = text.strip().replace("T", " ")
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            when = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return epoch(when.year, when.month, when.day, when.hour, when.minute, when.second)
    raise ValueError(f"not a date: {text!r} (use YYYY-MM-DD or 'YYYY-MM-DD HH:MM')")


class Window:
    """``[since, until)`` in wall-clock seconds; either end open."""

    __slots__ = ("since", "until")

    def __init__(self, since: int | None = None, until: int | None = None) -> None:
        self.since = since
        self.until = until

    @property
    def open(self) -> bool:
        return self.since is None and self.until is None

    def __contains__(self, t: int) -> bool:
        return (self.since is None or t >= self.since) and (self.until is None or t < self.until)

    def label(self) -> str:
        return f"{iso(self.since) or 'start'} .. {iso(self.until) or 'end'}"
