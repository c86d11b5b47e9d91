"""production.log read in blocks of whole lines: one loop over each block's lines for the common shapes.

A block is cut into lines by ``bytes.split`` (in C) rather than read line by line; a line whose stamp
(and so its time) equals the line before's is not parsed again (nor checked against the window); the
level of requests open at once and the peak of the current minute are kept in local variables;
``onnection`` is looked for in a line only when its block holds it. Every line the loop does not
expect (no ISO stamp, no ``[level|logger|id]`` tag, a ``Completed`` line without its duration, a
block's last line without a line end, ...) goes to :meth:`ProductionLog.consume_lines` with its line
end, so the result is the same as reading line by line (``tests/logs/test_production_fast.py``
compares both on awkward input). Lines that come one by one (a compressed file, a tar member) are
joined into blocks by :func:`joined`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Protocol

from foretune.logs import flows
from foretune.logs import production_limits as limits
from foretune.logs.production_limits import (
    MAX_OPEN,
    REG_EARLY_SECONDS,
    REG_STARTED,
    STATUSES,
)
from foretune.logs.timeutil import Window


class Log(Protocol):
    """What the block reader reads and changes of :class:`foretune.logs.production.ProductionLog`."""

    lines: int
    outside: int
    incidents_only: bool
    window: Window
    level: int
    low: int
    last: int | None
    head_t: int | None
    headed: bool
    open: dict[bytes, tuple[str, int]]
    orphans: list[tuple[bytes, float, str, float, int]]
    peaks: dict[int, int]
    minute_lines: dict[int, bytes]
    longest: float
    flow_window: int
    consumers: dict[bytes, int]
    reg_started: dict[bytes, flows.Started]
    reg_early: set[bytes]
    reg_unmatched: list[tuple[bytes, float, str]]
    _early_until: int
    _prune_at: int
    _bases: dict[bytes, int]
    _names: dict[bytes, str]
    _pending: dict[str, tuple[list[float], list[float], list[str]]]
    _pending_minutes: list[int]
    _pending_errors: list[int]

    def _stamp(self, stamp: bytes) -> int | None: ...
    def _time(self, t: int) -> None: ...
    def _bad(self, line: bytes) -> None: ...
    def _flush(self) -> None: ...
    def _prune(self, now: int) -> None: ...
    def _record(self, action: str, duration: float, status: str, db: float, t: int) -> None: ...
    def _reg_start(self, rid: bytes, t: int, msg: bytes, number: int) -> None: ...
    def _reg_event(self, started: flows.Started, duration: float, status: str) -> None: ...
    def _settle(self, rid: bytes, opened: tuple[str, int] | None, started: flows.Started | None, duration: float,
                status: str, db: float, t: int) -> bool: ...
    def _connection(self, msg: bytes, line: bytes, t: int | None) -> None: ...
    def consume_lines(self, lines: Iterable[bytes], prev_t: int) -> int: ...


JOINED_LINES = 1024  # lines a block of :func:`joined` holds
STALE = -(1 << 62)  # ``t`` of consume_blocks when the log's head line time is newer (set by consume_lines)


def joined(lines: Iterable[bytes]) -> Iterator[bytes]:
    """``lines`` (each but the last with its line end, and no other) in blocks of whole lines, in order.

    A run of lines that breaks the rule (a line without its end before the last) is given a line a block: the block
    reader reads a block's last line without its end as a line of its own. A read error is raised after the lines
    read before it are given.
    """
    source = iter(lines)
    while True:
        chunk: list[bytes] = []
        try:
            chunk.extend(islice(source, JOINED_LINES))  # keeps what was read before an error
        except Exception:  # a read error (an interrupt is raised at once)
            yield from _blocks(chunk)
            raise
        if not chunk:
            return
        yield from _blocks(chunk)


def _blocks(chunk: list[bytes]) -> Iterator[bytes]:
    block = b"".join(chunk)
    if block.count(b"\n") == len(chunk) - (block[-1:] != b"\n"):
        yield block
    else:
        yield from chunk


class _Odd(Exception):
    """A line for the line-by-line reader."""


ODD = _Odd()


def consume_blocks(log: Log, blocks: Iterable[bytes]) -> None:
    """Analyze ``blocks`` of whole lines (only the last may lack its line end) in order, as ``log.consume`` would."""
    window = log.window
    check_window = not window.open
    max_pending = limits.MAX_PENDING  # module attributes: tests make them small
    max_names = limits.MAX_NAMES
    stamps_cache = log._bases  # b"YYYY-MM-DDTHH:MM:" -> time of its minute
    open_requests = log.open
    consumers = log.consumers
    flow_window = log.flow_window
    early = log.reg_early
    early_until = log._early_until
    peaks = log.peaks
    pending = log._pending
    longest = log.longest
    names = log._names
    statuses = STATUSES
    reg = log.reg_started
    minute_lines = log.minute_lines
    pending_minutes = log._pending_minutes
    pending_errors = log._pending_errors
    n = log.lines  # number of the line before
    prev_t = -1
    prev_s = b"-"  # the first 21 bytes of the last line whose stamp was read
    minute = minute_t = -1  # minute_t: the time whose minute ``minute`` is
    t = STALE  # the time of the last timestamped line read here, STALE while log.head_t holds it
    peak = -MAX_OPEN  # the highest level seen in ``minute`` since it began here (added to peaks when it ends)
    level, low = log.level, log.low
    hi = -1 if log.last is None else log.last  # log.last, for the common case of a later line
    quick = log.incidents_only  # a request's end counts for concurrency only (see ProductionLog._completed)
    try:
        for block in blocks:
            lines = block.split(b"\n")
            tail = lines.pop()  # b"" when the block ends with a line end
            conn = block.find(b"onnection") >= 0
            first = n + 1
            for n, line in enumerate(lines, first):
                try:
                    s = line[:21]
                    i = line.find(b"] ", 21)  # before the stamp: ``t`` is the time of the last line read as timestamped
                    if i < 0:
                        raise ODD
                    if s != prev_s:
                        if s[19:] != b" [":
                            raise ODD
                        base = stamps_cache.get(s[:17])
                        seconds = s[17:19]
                        if base is None or not seconds.isdigit():
                            stamp = log._stamp(s[:19])  # validates and caches the minute
                            if stamp is None:
                                raise ODD
                            t = stamp
                        else:
                            t = base + int(seconds)
                        prev_s = s
                    m = i + 2
                    head = line[m:m + 4]
                    if head == b"Comp" or head == b"Proc" or head[:1] == b"[":
                        bar = line.rfind(b"|", 21, i)
                        if bar < 0:
                            raise ODD
                    if t != minute_t:
                        if t != prev_t:
                            if check_window and t not in window:
                                log.outside += 1
                                continue
                            # log._time(t), inline
                            if t > hi:
                                if hi < 0:
                                    log._time(t)
                                else:
                                    log.last = t
                                hi = t
                            else:
                                log._time(t)
                            prev_t = t
                            if early_until < 0:
                                early_until = log._early_until = t + REG_EARLY_SECONDS
                        minute_t = t
                        if t - t % 60 != minute:
                            if peak > peaks.get(minute, -MAX_OPEN):
                                peaks[minute] = peak
                            minute = t - t % 60
                            peak = -MAX_OPEN
                    if head == b"Comp":
                        if line[m:m + 10] != b"Completed ":
                            continue
                        status = statuses.get(line[m + 10:m + 13])
                        k = line.find(b" in ", m + 13)
                        end = line.find(b"ms", k + 4) if k > 0 else -1
                        if status is None or end < 0:
                            raise ODD
                        rid = line[bar + 1:i]
                        try:
                            duration = float(line[k + 4:end])
                        except ValueError:
                            log._bad(line)
                            continue
                        if level > peak:
                            peak = level
                        level -= 1
                        if level < low:
                            low = level
                        if quick:
                            opened = open_requests.pop(rid, None)
                            early.discard(rid)
                            if not 0.0 <= duration <= longest:
                                log._bad(line)
                            elif opened is not None and minute not in minute_lines:
                                minute_lines[minute] = line
                            continue
                        db = 0.0
                        a = line.find(b"ActiveRecord: ", end)
                        if a > 0:
                            b = line.find(b"ms", a + 14)
                            try:
                                db = float(line[a + 14:b] if b >= 0 else line[a + 14:])
                            except ValueError:
                                db = 0.0
                            if not 0.0 <= db <= longest:
                                db = 0.0
                        opened = open_requests.pop(rid, None)
                        started = reg.pop(rid, None) if reg else None
                        if not 0.0 <= duration <= longest:
                            early.discard(rid)
                            log._bad(line)
                            continue
                        if started is not None:
                            log._reg_event(started, duration, status)
                        if (opened is None or (early and rid in early)) and log._settle(rid, opened, started, duration, status, db, t):
                            continue
                        assert opened is not None
                        row = pending.get(opened[0])
                        if row is None:
                            row = pending[opened[0]] = ([], [], [])
                        row[0].append(duration)
                        row[1].append(db)
                        row[2].append(status)
                        pending_minutes.append(minute)
                        if status[0] == "5":
                            pending_errors.append(minute)
                        if minute not in minute_lines:
                            minute_lines[minute] = line
                        if len(pending_minutes) >= max_pending:
                            log._flush()
                    elif head == b"Proc":
                        if line[m:m + 14] != b"Processing by ":
                            continue
                        rid = line[bar + 1:i]
                        end = line.find(b" ", m + 14)
                        raw = line[m + 14:end] if end > 0 else line[m + 14:]
                        action = names.get(raw)
                        if action is None:
                            action = raw.strip().decode("utf-8", "replace")
                            if len(names) < max_names:
                                names[raw] = action
                        open_requests[rid] = (action, t)
                        if t <= early_until and rid:
                            early.add(rid)
                        level += 1
                        if level > peak:
                            peak = level
                        if len(open_requests) > MAX_OPEN:
                            open_requests.pop(next(iter(open_requests)))
                            level -= 1
                            if level < low:
                                low = level
                        if t > log._prune_at:
                            log.level, log.low = level, low
                            log._prune(t)
                            level, low = log.level, log.low
                            log._prune_at = t + 60
                    elif head == b"Star":
                        if not line.startswith(REG_STARTED, m):
                            continue
                        bar = line.rfind(b"|", 21, i)
                        rid = line[bar + 1:i] if bar >= 0 else b""
                        if rid:
                            if line[m + 12] == 34 and line[m + 28:m + 29] == b"/":
                                seen = consumers.get(line[m + 29:m + 65])
                                if seen is not None and t - seen > flow_window:
                                    continue
                            log._reg_start(rid, t, line[m:], n)
                    elif conn and line.find(b"onnection", m) >= 0:
                        log._connection(line[m:], line, t)
                except _Odd:
                    # the line-by-line reader, with the state it reads from the log object
                    log.lines, log.level, log.low = n - 1, level, low
                    if t != STALE:
                        _head(log, t)
                        t = STALE
                    prev_t = log.consume_lines((line + b"\n",), prev_t)
                    level, low, early_until = log.level, log.low, log._early_until
                    hi = -1 if log.last is None else log.last
                    prev_s = b"-"
                    minute_t = -1
            if tail:
                log.lines, log.level, log.low = n, level, low
                if t != STALE:
                    _head(log, t)
                    t = STALE
                prev_t = log.consume_lines((tail,), prev_t)
                level, low, early_until = log.level, log.low, log._early_until
                hi = -1 if log.last is None else log.last
                n += 1
                prev_s = b"-"
                minute_t = -1
    finally:
        if peak > peaks.get(minute, -MAX_OPEN):
            peaks[minute] = peak
        log.lines, log.level, log.low = n, level, low
        if t != STALE:
            _head(log, t)
        log._flush()


def _head(log: Log, t: int) -> None:
    """The log's last timestamped line is at ``t`` (what a continuation line after it is timed by)."""
    log.head_t = t if log.window.open or t in log.window else None
    log.headed = True
