"""Incidents only: feed an analyzer just the lines that can hold an incident, found in whole chunks.

The ``log_incidents`` fact needs no latency tables, endpoints or clients, so a sosreport's logs are
searched chunk by chunk for the analyzer's own needles (fast ``bytes.find``; one compiled pattern
for 502/503 access lines) and only the lines holding one go through the analyzer, which parses
them as in a full read. What else an incident depends on is kept:

- the lines up to the first one the analyzer understands (so an unreadable log still counts as
  unreadable, and an access log's first time-zone offset is the same);
- every ``Processing by``/``Completed`` line of production.log (Puma saturation needs them all);
- before a continuation line (a stack trace or multi-line message, timed by the line before it),
  the nearest earlier timestamped line;
- the number of lines, counted over the whole input.

Kinds without incidents (task exports) are read in full.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import IO

from foretune.logs.base import Analyzer
from foretune.logs.reader import READ_ERRORS
from foretune.logs.timeutil import MONTHS_B

CHUNK_BYTES = 1024 * 1024


def _production_head(line: bytes) -> bool:
    return (line[4:5] == b"-" and line[10:11] in (b"T", b" ")) or line[:1] == b"{" \
        or (line[:3] in MONTHS_B and line[3:4] == b" ")


def _production_continued(line: bytes) -> bool:
    return line[:1] in (b" ", b"\t", b"|")


def _candlepin_head(line: bytes) -> bool:
    return line[4:5] == b"-" and line[10:11] == b" " and line[19:20] in (b",", b".")


class Filter:
    """The needles of one log kind and, for kinds with continuation lines, how to tell them apart."""

    def __init__(self, needles: tuple[bytes, ...] = (), pattern: bytes | None = None,
                 head: Callable[[bytes], bool] | None = None, continued: Callable[[bytes], bool] | None = None) -> None:
        self.needles = needles
        self.pattern = re.compile(pattern) if pattern is not None else None
        self.head = head
        self.continued = continued

    def hits(self, data: bytes, pos: int) -> list[int]:
        """Offsets of every needle in ``data[pos:]``, ascending."""
        found: list[int] = []
        for needle in self.needles:
            i = data.find(needle, pos)
            while i >= 0:
                found.append(i)
                i = data.find(needle, i + 1)
        if self.pattern is not None:
            found += [m.start() for m in self.pattern.finditer(data, pos)]
        found.sort()
        return found


def _filters() -> dict[str, Filter]:
    from foretune.logs.apache import ERROR_EVENTS
    from foretune.logs.postgres import EXHAUSTED
    from foretune.logs.production import PG_EXHAUSTED, POOL_TIMEOUT
    from foretune.logs.system import SOCKETS

    incident_events = ("max_request_workers", "passenger_queue_full", "too_many_open_files")
    return {
        "production": Filter((b"Processing by ", b"Completed ", *POOL_TIMEOUT, *PG_EXHAUSTED),
                             head=_production_head, continued=_production_continued),
        # the status after the request's closing quote (the analyzer splits on quotes and whitespace)
        "apache_access": Filter(pattern=rb'"[ \t\r\f\v]*50[23](?!\S)'),
        "apache_error": Filter(tuple(needle for needle, event in ERROR_EVENTS if event in incident_events)),
        "postgresql": Filter(EXHAUSTED),
        "candlepin": Filter((b"OutOfMemoryError",), head=_candlepin_head, continued=lambda line: not _candlepin_head(line)),
        "system": Filter((b"Killed process", *SOCKETS)),
    }


_FILTERS: dict[str, Filter] = {}


def filter_for(kind: str) -> Filter | None:
    """The filter of a log kind, or None for a kind read in full."""
    if not _FILTERS:
        _FILTERS.update(_filters())
    return _FILTERS.get(kind)


def _line_at(data: bytes, pos: int) -> tuple[int, int]:
    """(start, end) of the line holding ``data[pos]``, its newline included."""
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return start, (end + 1 if end >= 0 else len(data))


def _head_before(data: bytes, start: int, fed: int, head: Callable[[bytes], bool]) -> tuple[bytes | None, bool]:
    """The nearest timestamped line before offset ``start`` not fed yet, and whether the search hit ``fed``."""
    while start > 0:
        if start <= fed:
            return None, True
        prev = data.rfind(b"\n", 0, start - 1) + 1
        line = data[prev:start]
        if head(line):
            return line, True
        start = prev
    return None, fed > 0


class _State:
    """What one input's filtered read carries from chunk to chunk."""

    def __init__(self) -> None:
        self.lines = 0
        self.primed = False
        self.last_head: bytes | None = None  # the latest timestamped line of earlier chunks not fed yet


def _prime(analyzer: Analyzer, data: bytes) -> tuple[int, bool]:
    """Feed lines until the analyzer understands one; (offset after it, whether one was understood)."""
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = end + 1 if end >= 0 else len(data)
        analyzer.consume((data[pos:end],))
        pos = end
        if analyzer.lines > analyzer.bad:
            return pos, True
    return pos, False


def _chunk(analyzer: Analyzer, flt: Filter, data: bytes, state: _State) -> None:
    pos = 0
    if not state.primed:
        pos, state.primed = _prime(analyzer, data)
        state.last_head = None
    picked: list[bytes] = []
    fed = pos
    for hit in flt.hits(data, pos):
        if hit < fed:
            continue
        start, end = _line_at(data, hit)
        line = data[start:end]
        if flt.continued is not None and flt.head is not None and flt.continued(line):
            before, stop = _head_before(data, start, fed, flt.head)
            if before is None and not stop and state.last_head is not None:
                before = state.last_head
            if before is not None:
                picked.append(before)
            state.last_head = None
        picked.append(line)
        fed = end
    if picked:
        analyzer.consume(picked)
    if flt.head is not None:
        tail, stop = _head_before(data, len(data), fed, flt.head)
        if tail is not None or stop:
            state.last_head = tail


def consume_incidents(analyzer: Analyzer, stream: IO[bytes], chunk_bytes: int = CHUNK_BYTES) -> None:
    """Feed ``analyzer`` the lines of ``stream`` an incident needs; its line count is that of the whole input."""
    flt = filter_for(analyzer.kind)
    assert flt is not None
    state = _State()
    carry = b""
    try:
        while True:
            block = stream.read(chunk_bytes)
            if block:
                data = carry + block
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    carry = data
                    continue
                data, carry = data[:cut], data[cut:]
            elif carry:
                data, carry = carry, b""
            else:
                break
            state.lines += data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
            _chunk(analyzer, flt, data, state)
    except READ_ERRORS as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        analyzer.problems.append(f"{analyzer.path}: truncated or corrupt after {state.lines:,} lines ({reason}); "
                                 "the lines before count")
    finally:
        analyzer.lines = state.lines
