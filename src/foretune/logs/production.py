"""Foreman ``production.log``: per ``Controller#action`` latency, status classes, rate, concurrency.

Prefixes understood (the message after them is the same Rails text):

- ``2024-06-09T20:49:03 [I|app|8832e8d0] `` (Foreman >= 1.16: level, logger, 8-char request id)
- ``2017-03-27T13:34:52 [app] [I] `` (Foreman 1.12-1.15) and ``2015-11-13 07:09:22 [I] `` (1.x, no id)
- journald, short export: ``Jun 23 18:31:46 host foreman[68464]: `` (no request id: joined by PID)
- journald, ``journalctl -o json``: ``MESSAGE`` joined by the ``REQUEST`` field

``Completed`` tails of every Rails release are accepted (with or without ``Allocations``, Rails 7.2's
``(N queries, M cached) | GC:``); continuation lines (`` <id> | `` or `` | ``) count as understood.
Only requests between ``Processing by`` and ``Completed`` are held in memory.

Registration requests (``Started`` lines of ``/register`` and ``/rhsm/consumers...``, with a request
id) are also kept as compact events and joined into per-host flows by :mod:`foretune.logs.flows`.

Substrings are tested with ``find``, not ``in``: CPython's ``bytes.__contains__`` first tries its
argument as an integer and raises (and clears) a TypeError for a bytes argument, on every line.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterable
from functools import reduce
from operator import add
from typing import IO, Any

from foretune.knowledge import threshold
from foretune.logs import flows
from foretune.logs import production_limits as limits
from foretune.logs.base import Analyzer
from foretune.logs.flows import step_of
from foretune.logs.production_blocks import consume_blocks, joined
from foretune.logs.production_limits import (
    MAX_OPEN,
    MAX_ORPHANS,
    REG_EARLY_SECONDS,
    REG_STARTED,
    UNKNOWN_ACTION,
)
from foretune.logs.sketch import Sketch
from foretune.logs.timeutil import MONTHS_B, epoch, iso, year_of

REGISTRATION = (
    "Api::V2::RegistrationController#global",
    "Api::V2::RegistrationController#host",
    "Katello::Api::Rhsm::CandlepinProxiesController#consumer_create",
    "Katello::Api::Rhsm::CandlepinProxiesController#consumer_activate",  # POST /rhsm/consumers with activation keys
    "Katello::Api::Rhsm::CandlepinProxiesController#consumer_show",
    "Katello::Api::Rhsm::CandlepinProxiesController#facts",
    "Katello::Api::Rhsm::CandlepinProxiesController#upload_package_profile",
    "Katello::Api::Rhsm::CandlepinProxiesController#upload_profiles",
    "Katello::Api::Rhsm::CandlepinDynflowProxyController#upload_package_profile",  # Katello >= 3.10
    "Katello::Api::Rhsm::CandlepinDynflowProxyController#upload_profiles",
    "Katello::Api::Rhsm::CandlepinProxiesController#server_status",
    "Katello::Api::Rhsm::CandlepinProxiesController#get",
)
MAX_REG_EVENTS = 200_000  # registration events kept for flows; beyond this they are counted as dropped
MAX_CONSUMERS = 200_000  # consumer UUIDs remembered (first request of each) to leave out later check-ins
POOL_TIMEOUT = (b"ConnectionTimeoutError", b"could not obtain a connection from the pool")
PG_EXHAUSTED = (b"remaining connection slots are reserved", b"too many clients already")
MAX_LEADING = 100  # continuation lines with an incident before an input's first timestamped line, kept for its head


ISO_MINUTE = re.compile(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:")


class ActionStats:
    __slots__ = ("db_ms", "latency", "status")

    def __init__(self) -> None:
        self.latency = Sketch()
        self.status: dict[str, int] = {}
        self.db_ms = 0.0

    def merge(self, other: ActionStats) -> None:
        self.latency.merge(other.latency)
        self.db_ms += other.db_ms
        for k, v in other.status.items():
            self.status[k] = self.status.get(k, 0) + v


def _ms(text: bytes) -> float:
    """``b'11ms'`` / ``b'11.5ms'`` -> 11.0 / 11.5; raises ValueError."""
    return float(text[:-2] if text.endswith(b"ms") else text)


class ProductionLog(Analyzer):
    kind = "production"
    fast = True  # the block reader for lines of the common shape (tests turn it off to compare)

    def __init__(self, path: str, window: Any = None, ended: tuple[int, int] | None = None) -> None:
        super().__init__(path, window)
        self.ended = ended or (1970, 12)  # (year, month) of the last write, for journald's short lines
        self.actions: dict[str, ActionStats] = {}
        self.per_minute: dict[int, int] = {}
        self.errors_per_minute: dict[int, int] = {}  # 5xx completions
        # concurrency in log order (Processing +1, Completed -1), relative to the level at the start of this input
        self.level = 0
        self.low = 0
        self.peaks: dict[int, int] = {}

        self.stale = int(threshold("logs_request_stale_seconds"))
        self.longest = float(threshold("logs_request_duration_max_ms"))
        self._prune_at = 0
        self.open: dict[bytes, tuple[str, int]] = {}
        self.orphans: list[tuple[bytes, float, str, float, int]] = []
        self.dropped = 0
        self.journald = False
        self.minute_lines: dict[int, bytes] = {}  # first Completed line of each minute (evidence for saturation)
        self.minute_paths: dict[int, str] = {}  # minutes of minute_lines from a later input merged in: its path
        # a continuation line (a multi-line message) takes the time of its head line, the timestamped line before it:
        # head_t is the latest timestamped line's time, None when that line lies outside the window (the continuation
        # is then outside too); headed: this input had a timestamped line. Continuation lines holding an incident
        # before the first one wait in ``leading`` for the input before (merge) or the end (finish).
        self.head_t: int | None = None
        self.headed = False
        self.leading: list[bytes] = []
        self._minutes: dict[bytes, int] = {}
        # registration flows: Started lines of registration requests waiting for Completed, rid -> (t, line number, kind, ip, uuid)
        self.flow_window = int(threshold("logs_registration_flow_window_seconds"))
        self.reg_started: dict[bytes, flows.Started] = {}
        self.reg_events: list[flows.Event] = []  # (Started, duration ms, status)
        self.reg_dropped = 0
        self.consumers: dict[bytes, int] = {}  # consumer UUID -> time of its first request in this input
        # Completed lines whose Processing line is early in this input but whose Started line is not: the Started
        # line may be at the end of the input before (byte ranges); resolved in merge_more
        self.reg_unmatched: list[tuple[bytes, float, str]] = []
        self._early_until = -1  # Processing lines up to this time may follow a Started line of the input before
        self.reg_early: set[bytes] = set()  # their request ids, until Completed
        # completed requests not yet added up (see _flush): action -> (durations, ActiveRecord ms, statuses)
        self._pending: dict[str, tuple[list[float], list[float], list[str]]] = {}
        self._pending_minutes: list[int] = []
        self._pending_errors: list[int] = []  # minutes of 5xx completions
        self._bases: dict[bytes, int] = {}  # b"YYYY-MM-DDTHH:MM:" -> time of its minute
        self._names: dict[bytes, str] = {}  # Processing line's raw action -> its name

    # --- parsing ----------------------------------------------------------------------------
    def _minute(self, key: bytes) -> int:
        # key: b"YYYY-MM-DDTHH:MM" or b"YYYY-MM-DD HH:MM"
        base = epoch(int(key[0:4]), int(key[5:7]), int(key[8:10]), int(key[11:13]), int(key[14:16]))
        self._minutes[key] = base
        return base

    def _stamp(self, stamp: bytes) -> int | None:
        """The time of a line's first 19 bytes if they are an ISO stamp (``YYYY-MM-DDTHH:MM:SS``); else None.

        The time of the stamp's minute is cached."""
        prefix = stamp[:17]
        bases = self._bases
        base = bases.get(prefix)
        if base is None:
            if ISO_MINUTE.fullmatch(prefix) is None:
                return None
            try:
                base = self._minutes.get(stamp[:16])
                if base is None:
                    base = self._minute(stamp[:16])
            except ValueError:
                return None
            if len(bases) >= limits.MAX_STAMPS:
                bases.clear()
            bases[prefix] = base
        seconds = stamp[17:19]
        if not seconds.isdigit():
            return None
        return base + int(seconds)

    def consume(self, lines: Iterable[bytes]) -> None:
        """Analyze ``lines`` (raw, as a file yields them: every line but the last ends with its line end) in order.

        They are read in blocks by :func:`foretune.logs.production_blocks.consume_blocks`, which handles
        the lines of the common shape (an ISO stamp, a ``[level|logger|id]`` tag) and hands every other
        line to :meth:`consume_lines`. Both give the same result for a line
        (``tests/logs/test_production_fast.py`` compares them on awkward input).
        """
        if self.fast:
            consume_blocks(self, joined(lines))
        else:
            self.consume_lines(lines, -1)

    def consume_joined(self, blocks: Iterable[bytes]) -> None:
        """Analyze ``blocks`` of whole lines, each ending with its line end: blocks for the block reader."""
        if self.fast:
            consume_blocks(self, blocks)
        else:
            self.consume_lines((line for block in blocks for line in io.BytesIO(block)), -1)

    def consume_stream(self, stream: IO[bytes]) -> None:
        """Analyze a whole stream; a plain file is read in large blocks (:mod:`foretune.logs.production_blocks`)."""
        if self.fast and not self.incidents_only and isinstance(stream, (io.BufferedReader, io.BytesIO)):
            from foretune.logs.reader import blocks  # start-up: only when a plain stream is read

            consume_blocks(self, blocks(stream))
        else:
            self.consume(stream)

    def consume_range(self, path: str, start: int, end: int) -> None:
        """Analyze the lines of a plain file whose first byte lies in ``[start, end)``."""
        if self.fast and not self.incidents_only:
            from foretune.logs.reader import range_blocks  # start-up: only when a byte range is read

            consume_blocks(self, range_blocks(path, start, end))
        else:
            super().consume_range(path, start, end)

    def consume_lines(self, lines: Iterable[bytes], prev_t: int) -> int:
        """The line-by-line reader of every shape: :meth:`consume` without its blocks, the time of the line before
        ``lines`` given (-1: none); the time of their last line returned."""
        minutes = self._minutes
        window = self.window
        check_window = not window.open
        open_requests = self.open
        # registration flows: line numbers order events of the same second; check-ins are left out at once
        offset = self.lines
        consumers = self.consumers
        flow_window = self.flow_window
        early = self.reg_early
        early_until = self._early_until
        n = 0
        try:
            for n, line in enumerate(lines, 1):
                first = line[:1]
                if first in (b" ", b"\t", b"|", b"-"):
                    if line.find(b"onnection") >= 0 and first != b"-":  # continuation of a multi-line message: exceptions live here
                        self._continued(line)
                    continue
                if line[4:5] == b"-" and line[10:11] in (b"T", b" "):
                    try:
                        key = line[:16]
                        base = minutes.get(key)
                        if base is None:
                            base = self._minute(key)
                        t = base + int(line[17:19])
                    except ValueError:
                        self._bad(line)
                        continue
                    j = line.find(b" [", 16)
                    i = line.find(b"] ", j)
                    if j < 0 or i < 0:
                        self._bad(line)
                        continue
                    tag = line[j + 2:i]
                    msg = line[i + 2:]
                    bar = tag.rfind(b"|")
                    if bar >= 0:
                        rid = tag[bar + 1:]
                    else:
                        rid = b""
                        if msg[:1] == b"[" and msg[2:4] == b"] ":
                            msg = msg[4:]
                elif first == b"{":
                    parsed = self._json(line)
                    if parsed is None:
                        self._bad(line)
                        continue
                    t, rid, msg = parsed
                elif line[:3] in MONTHS_B and line[3:4] == b" ":
                    parsed = self._syslog(line)
                    if parsed is None:
                        self._bad(line)
                        continue
                    t, rid, msg = parsed
                elif not line.strip():
                    continue
                else:
                    self._bad(line)
                    continue
                self.headed = True
                if check_window and t not in window:
                    self.outside += 1
                    self.head_t = None
                    continue
                self.head_t = t
                if t != prev_t:
                    self._time(t)
                    prev_t = t
                    if early_until < 0:
                        early_until = self._early_until = t + REG_EARLY_SECONDS
                head = msg[:4]
                if head == b"Comp":
                    if msg.startswith(b"Completed "):
                        self._completed(rid, t, msg, line)
                elif head == b"Proc":
                    if msg.startswith(b"Processing by "):
                        end = msg.find(b" ", 14)
                        action = msg[14:end if end > 0 else None].strip().decode("utf-8", "replace")
                        open_requests[rid] = (action, t)
                        if t <= early_until and rid:
                            early.add(rid)
                        self.level += 1
                        minute = t - t % 60
                        if self.level > self.peaks.get(minute, -MAX_OPEN):
                            self.peaks[minute] = self.level
                        if len(open_requests) > MAX_OPEN:
                            open_requests.pop(next(iter(open_requests)))
                            self._gone(1)
                        if t > self._prune_at:
                            self._prune(t)
                            self._prune_at = t + 60
                elif head == b"Star":
                    # b'Started POST "/rhsm/consumers?owner=X" for 10.0.0.5 at ...'
                    if rid and msg.startswith(REG_STARTED):
                        if msg[12] == 34 and msg[28:29] == b"/":  # GET or PUT "/rhsm/consumers/<uuid>: most are check-ins
                            seen = consumers.get(msg[29:65])
                            if seen is not None and t - seen > flow_window:
                                continue
                        self._reg_start(rid, t, msg, offset + n)
                elif msg.find(b"onnection") >= 0:
                    self._connection(msg, line, t)
        finally:
            self.lines += n
            self._flush()
        return prev_t

    def _reg_start(self, rid: bytes, t: int, msg: bytes, number: int) -> None:
        """Remember the Started line of a registration step (``number``: its line number)."""
        q = msg.find(b'"', 11)
        e = msg.find(b'"', q + 1)
        if q < 0 or e < 0:
            return
        kind, uuid = step_of(msg[8:q - 1], msg[q + 1:e])
        if kind < 0:
            return
        if uuid:
            first = self.consumers.get(uuid)
            if first is None:
                if len(self.consumers) < MAX_CONSUMERS:
                    self.consumers[uuid] = t
            elif t - first > self.flow_window:
                return  # a later request of a consumer (check-in): part of no registration flow
        a = e + 6  # b'" for 10.0.0.5 at'
        b = msg.find(b" ", a)
        ip = msg[a:b] if msg.startswith(b" for ", e + 1) and b > a else b""
        self.reg_started[rid] = (t, number, kind, ip, uuid)

    def _reg_event(self, started: flows.Started, duration: float, status: str) -> None:
        if len(self.reg_events) < MAX_REG_EVENTS:
            self.reg_events.append((started, duration, status))
        else:
            self.reg_dropped += 1

    def _continued(self, line: bytes) -> None:
        """A continuation line: an incident at its head line's time, none when that line is outside the window; before
        this input's first timestamped line, kept until the input before is known."""
        if self.head_t is not None:
            self._connection(line, line, self.head_t)
        elif not self.headed and len(self.leading) < MAX_LEADING and any(p in line for p in (*POOL_TIMEOUT, *PG_EXHAUSTED)):
            self.leading.append(line)

    def _connection(self, msg: bytes, line: bytes, t: int | None) -> None:
        """Count a pool timeout or a refused PostgreSQL connection in ``msg``; a request's logged ``Parameters:`` are
        user input (a search for the error's text), not Rails' error."""
        if msg.lstrip(b" ").startswith(b"Parameters: "):
            return
        if any(p in msg for p in POOL_TIMEOUT):
            self.incident("db_pool_timeout", "foreman", line, t)
        elif any(p in msg for p in PG_EXHAUSTED):
            self.incident("pg_connection_exhaustion", "foreman", line, t)

    def _completed(self, rid: bytes, t: int, msg: bytes, line: bytes) -> None:
        # b"Completed 200 OK in 11ms (Views: 0.2ms | ActiveRecord: 2.5ms | Allocations: 2231)"
        status = msg[10:13].decode("ascii", "replace")
        k = msg.find(b" in ", 13)
        if k < 0 or not status.isdigit():
            self._bad(line)
            return
        end = msg.find(b"ms", k + 4)
        try:
            duration = float(msg[k + 4:end])
        except ValueError:
            self._bad(line)
            return
        minute = t - t % 60
        if self.level > self.peaks.get(minute, -MAX_OPEN):
            self.peaks[minute] = self.level
        self._gone(1)
        if self.incidents_only:  # the concurrency and its evidence; durations, actions and flows are `logs`' job
            opened = self.open.pop(rid, None)
            self.reg_early.discard(rid)
            if not 0.0 <= duration <= self.longest:
                self._bad(line)
            elif opened is not None and minute not in self.minute_lines:
                self.minute_lines[minute] = line
            return
        db = 0.0
        a = msg.find(b"ActiveRecord: ", end)
        if a > 0:
            b = msg.find(b"ms", a + 14)
            try:
                db = float(msg[a + 14:b])
            except ValueError:
                db = 0.0
            if not 0.0 <= db <= self.longest:
                db = 0.0
        opened = self.open.pop(rid, None)
        reg = self.reg_started
        started = reg.pop(rid, None) if reg else None
        if not 0.0 <= duration <= self.longest:  # 1e400ms, -5ms, nan: the request ended, its duration is no figure
            self.reg_early.discard(rid)
            self._bad(line)
            return
        if started is not None:
            self._reg_event(started, duration, status)
        if self._settle(rid, opened, started, duration, status, db, t):
            return
        assert opened is not None
        self._record(opened[0], duration, status, db, t)
        if minute not in self.minute_lines:
            self.minute_lines[minute] = line

    def _settle(self, rid: bytes, opened: tuple[str, int] | None, started: flows.Started | None, duration: float,
                status: str, db: float, t: int) -> bool:
        """A completed request whose Processing line came early in this input or not at all (both readers): True when
        it was not seen (the request is kept as an orphan for the input before, or counted under an unknown action)."""
        early = self.reg_early
        if early and rid in early:  # Processing early in this input: its Started line may be in the one before
            early.discard(rid)
            if started is None and opened is not None and len(self.reg_unmatched) < MAX_ORPHANS:
                self.reg_unmatched.append((rid, duration, status))
        if opened is None:
            if len(self.orphans) < MAX_ORPHANS:
                self.orphans.append((rid, duration, status, db, t))
            else:
                self._record(UNKNOWN_ACTION, duration, status, db, t)
            return True
        return False

    def _record(self, action: str, duration: float, status: str, db: float, t: int) -> None:
        """Count a completed request of ``action`` (kept in pending lists, added up by :meth:`_flush`)."""
        row = self._pending.get(action)
        if row is None:
            row = self._pending[action] = ([], [], [])
        row[0].append(duration)
        row[1].append(db)
        row[2].append(status)
        minute = t - t % 60
        self._pending_minutes.append(minute)
        if status[0] == "5":
            self._pending_errors.append(minute)
        if len(self._pending_minutes) >= limits.MAX_PENDING:
            self._flush()

    def _flush(self) -> None:
        """Add the pending requests to the per-action statistics and the per-minute counts, in log order.

        The same figures as adding each request when it completes: sums are added in the same order,
        sketch buckets and counts do not depend on it.
        """
        for action, (durations, dbs, codes) in self._pending.items():
            stats = self.actions.get(action)
            if stats is None:
                stats = self.actions[action] = ActionStats()
            stats.latency.add_many(durations)
            stats.db_ms = reduce(add, dbs, stats.db_ms)
            status = stats.status
            for code, count in Counter(codes).items():
                cls = code[0] + "xx"
                status[cls] = status.get(cls, 0) + count
        self._pending.clear()
        for src, dst in ((self._pending_minutes, self.per_minute), (self._pending_errors, self.errors_per_minute)):
            for minute, count in Counter(src).items():
                dst[minute] = dst.get(minute, 0) + count
            src.clear()

    def _gone(self, count: int) -> None:
        self.level -= count
        if self.level < self.low:
            self.low = self.level

    def _prune(self, now: int) -> None:
        """Forget requests open longer than ``stale`` seconds (a worker died): they no longer count as open."""
        old = [rid for rid, (_, started) in self.open.items() if started < now - self.stale]
        for rid in old:
            del self.open[rid]
        self.dropped += len(old)
        self._gone(len(old))
        for rid in [rid for rid, started in self.reg_started.items() if started[0] < now - self.stale]:
            del self.reg_started[rid]

    def _syslog(self, line: bytes) -> tuple[int, bytes, bytes] | None:
        # b"Jun 23 18:31:46 host foreman[68464]: Completed ..."
        try:
            month = MONTHS_B[line[:3]]
            t = epoch(year_of(month, self.ended), month, int(line[4:6]), int(line[7:9]), int(line[10:12]), int(line[13:15]))
        except (ValueError, KeyError):
            return None
        c = line.find(b": ", 16)
        if c < 0:
            return None
        tag = line[16:c]
        p = tag.find(b"[")
        rid = tag[p + 1:-1] if p >= 0 else tag
        self.journald = True
        return t, rid, line[c + 2:].lstrip(b" ")

    def _json(self, line: bytes) -> tuple[int, bytes, bytes] | None:
        try:
            entry = json.loads(line)
            message = entry["MESSAGE"]
            stamp = int(entry["__REALTIME_TIMESTAMP"]) // 1_000_000
        except (ValueError, KeyError, TypeError):
            return None
        if isinstance(message, list):  # journald exports non-UTF-8 messages as byte arrays
            message = bytes(message).decode("utf-8", "replace")
        self.journald = True
        rid = str(entry.get("REQUEST") or entry.get("_PID") or "")[:8].encode()
        return stamp, rid, str(message).encode("utf-8", "replace")

    # --- merging ----------------------------------------------------------------------------
    def merge(self, other: Analyzer) -> None:
        """Add ``other`` (the input after this one); its leading continuation lines take this input's last head."""
        assert isinstance(other, ProductionLog)
        if self.headed and other.leading:
            if self.head_t is not None:
                for line in other.leading:
                    other._connection(line, line, self.head_t)
            other.leading = []
        super().merge(other)

    def merge_more(self, other: ProductionLog) -> None:
        for action, stats in other.actions.items():
            if action in self.actions:
                self.actions[action].merge(stats)
            else:
                self.actions[action] = stats
        for m, p in other.peaks.items():
            self.peaks[m] = max(self.peaks.get(m, -MAX_OPEN), p + self.level)
        self.low = min(self.low, other.low + self.level)
        self.level += other.level
        for src, dst in ((other.per_minute, self.per_minute), (other.errors_per_minute, self.errors_per_minute)):
            for k, v in src.items():
                dst[k] = dst.get(k, 0) + v
        self._merge_flows(other)
        # completions in ``other`` whose Processing line is in this (earlier) input
        for rid, duration, status, db, t in other.orphans:
            started = self.reg_started.pop(rid, None)
            if started is not None:
                self._reg_event(started, duration, status)
            opened = self.open.pop(rid, None)
            if opened is not None:
                self._record(opened[0], duration, status, db, t)
            elif len(self.orphans) < MAX_ORPHANS:
                self.orphans.append((rid, duration, status, db, t))
            else:
                self._record(UNKNOWN_ACTION, duration, status, db, t)
        self.open.update(other.open)
        self._carry_flows(other)
        self._flush()
        for m, text in other.minute_lines.items():
            if m not in self.minute_lines:
                self.minute_lines[m] = text
                path = other.minute_paths.get(m, other.path)
                if path != self.path:
                    self.minute_paths[m] = path
        self.leading = (self.leading + other.leading)[:MAX_LEADING]
        if other.headed:
            self.head_t, self.headed = other.head_t, True
        self.dropped += other.dropped
        self.journald = self.journald or other.journald

    def _merge_flows(self, other: ProductionLog) -> None:
        """Registration state of ``other`` (the input after this one): line numbers shifted, later check-ins left out."""
        shift = self.lines - other.lines  # Analyzer.merge has already added other's lines
        for (t, number, kind, ip, uuid), duration, status in other.reg_events:
            if not self._checkin(uuid, t):
                self._reg_event((t, number + shift, kind, ip, uuid), duration, status)
        self.reg_dropped += other.reg_dropped
        # Completed lines of ``other`` whose Started line is in this input
        for rid, duration, status in other.reg_unmatched:
            started = self.reg_started.pop(rid, None)
            if started is not None:
                self._reg_event(started, duration, status)

    def _checkin(self, uuid: bytes, t: int) -> bool:
        """Whether a request of consumer ``uuid`` at ``t`` comes too long after its first one to be part of a registration."""
        if not uuid:
            return False
        first = self.consumers.get(uuid)
        return first is not None and t - first > self.flow_window

    def _carry_flows(self, other: ProductionLog) -> None:
        """Registration requests still open at the end of ``other``, and the consumers it saw first."""
        shift = self.lines - other.lines
        for rid, s in other.reg_started.items():
            if not self._checkin(s[4], s[0]):
                self.reg_started[rid] = (s[0], s[1] + shift, s[2], s[3], s[4])
        known = self.consumers
        for uuid, t in other.consumers.items():
            if uuid not in known and len(known) < MAX_CONSUMERS:
                known[uuid] = t

    def finish(self) -> None:
        if self.window.open:  # continuation lines before the first timestamped line: no time, and outside any window
            for line in self.leading:
                self._connection(line, line, None)
        self.leading = []
        for _rid, duration, status, db, t in self.orphans:
            self._record(UNKNOWN_ACTION, duration, status, db, t)
        self.orphans = []
        self._flush()
        self.reg_unmatched = []
        self.reg_early = set()

    # --- results ----------------------------------------------------------------------------
    def concurrency(self) -> dict[int, int]:
        """Most requests open at once (Processing seen, Completed not yet) in each minute.

        Levels are counted in log order; requests already open when the log starts (their
        Completed line comes first) raise every level by their number.
        """
        base = -self.low
        return {m: p + base for m, p in self.peaks.items()}

    def summary(self, capacity: int | None = None, top: int = 30) -> dict[str, Any]:
        total_ms = sum(s.latency.sum for s in self.actions.values()) or 1.0
        rows = []
        for action, stats in sorted(self.actions.items(), key=lambda kv: -kv[1].latency.sum):
            row = {"action": action, **stats.latency.summary(), "share": round(100.0 * stats.latency.sum / total_ms, 1),
                   "db_ms": round(stats.db_ms, 1), "status": dict(sorted(stats.status.items()))}
            rows.append(row)
        overall = Sketch()
        status: dict[str, int] = {}
        for stats in self.actions.values():
            overall.merge(stats.latency)
            for k, v in stats.status.items():
                status[k] = status.get(k, 0) + v
        peak = self.concurrency()
        at_capacity = sorted(m for m, level in peak.items() if capacity and level >= capacity)
        registration = [r for r in rows if r["action"] in REGISTRATION]
        return {**self.common(), "journald": self.journald, "requests": overall.count, "latency": overall.summary(),
                "status": dict(sorted(status.items())), "actions": rows[:top], "actions_total": len(rows),
                "registration": registration,
                "registration_flows": flows.summary(self.reg_events, self.flow_window, self.reg_dropped),
                "per_minute": [[iso(m), n, self.errors_per_minute.get(m, 0), peak.get(m, 0)] for m, n in sorted(self.per_minute.items())],
                "concurrency": {"peak": max(peak.values(), default=0), "capacity": capacity,
                                "minutes_at_capacity": len(at_capacity),
                                "first_at_capacity": iso(at_capacity[0]) if at_capacity else None,
                                "last_at_capacity": iso(at_capacity[-1]) if at_capacity else None},
                "incomplete": len(self.open) + self.dropped}
