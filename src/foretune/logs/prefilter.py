"""Incidents only: feed an analyzer just the lines that can hold an incident, found in whole chunks.

The ``log_incidents`` fact needs no latency tables, endpoints or clients, so a sosreport's logs are
searched chunk by chunk for the analyzer's own needles (fast ``bytes.find``; one compiled pattern
for 502/503 access lines) and only the lines holding one go through the analyzer, which parses
them as in a full read. What else an incident depends on is kept:

- the lines up to the first one the analyzer does not count as not understood (so an unreadable
  log still counts as unreadable, and an access log's first time-zone offset is the same); until
  then, lines that cannot be understood (they fail a necessary test of the analyzer's format, one
  compiled pattern per kind) are counted, not parsed;
- the ``Processing by``/``Completed`` lines of production.log (Puma saturation counts requests open at
  once) of a bounded sample: the first :data:`SAMPLE_BYTES` of each input. Past it only the incident
  needles are searched, and the analyzer's ``samples`` say how many lines the concurrency was counted over
  (the log_incidents fact tells it, :func:`foretune.logs.incidents.sample_note`): a saturation later in
  that log is not seen by the audit (``foretune logs`` reads every line). The
  sample can miss saturation, never invent it: levels are counted from the sample's own lines;
- before a continuation line (a stack trace or multi-line message, timed by the line before it),
  the nearest earlier timestamped line;
- the number of lines, counted over the whole input; an access log's, per minute of their stamps too (a vhost's
  share of 503s needs its requests, :func:`foretune.logs.incidents.share`), until a minute holds a 503 burst (a log
  with a burst is not judged on its share).

Kinds without incidents (task exports) are read in full.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import IO

from foretune.logs.base import Analyzer
from foretune.logs.reader import READ_ERRORS
from foretune.logs.timeutil import MONTHS_B

CHUNK_BYTES = 1024 * 1024
SAMPLE_BYTES = 16 * 1024 * 1024  # per input: production.log's requests counted for Puma concurrency
PIECE_BYTES = 64 * 1024  # a chunk's sampled lines are cut from pieces of about this size (bounded memory)
CUT_IN_C = True  # sampled lines of a chunk cut by bytes.split and fed as one block, a pattern's lines cut by its
# matches (tests turn it off to compare)


def _production_head(line: bytes) -> bool:
    return (line[4:5] == b"-" and line[10:11] in (b"T", b" ")) or line[:1] == b"{" \
        or (line[:3] in MONTHS_B and line[3:4] == b" ")


def _production_continued(line: bytes) -> bool:
    return line[:1] in (b" ", b"\t", b"|")


def _candlepin_head(line: bytes) -> bool:
    return line[4:5] == b"-" and line[10:11] == b" " and line[19:20] in (b",", b".")


class Filter:
    """The needles of one log kind and, for kinds with continuation lines, how to tell them apart."""

    def __init__(self, maybe: bytes, needles: tuple[bytes, ...] = (), pattern: bytes | None = None,
                 head: Callable[[bytes], bool] | None = None, continued: Callable[[bytes], bool] | None = None,
                 inside: bytes | None = None, sampled: tuple[bytes, ...] = (), continued_first: bytes | None = None) -> None:
        # a line the analyzer might not count as "not understood" (a superset): its start after a
        # newline matches ``maybe``, it is blank, or it holds ``inside``
        self.maybe = re.compile(rb"\n(?:" + maybe + rb"|[ \t\r\f\v]*(?:\n|\Z))")
        self.inside = re.compile(inside) if inside is not None else None
        self.needles = needles
        self.sampled = sampled  # needles searched within the sample only
        self.pattern = re.compile(pattern) if pattern is not None else None
        # a kind searched by its pattern alone: a match runs on to its line's end, so a line is found once
        self.to_line_end = re.compile(pattern + rb"[^\n]*\n?") if pattern is not None and not needles and not sampled \
            and head is None else None
        self.head = head
        self.continued = continued
        # a continuation line (its first byte in ``continued_first``, the set ``continued`` tests) holding a sampled needle
        self.sampled_continued = re.compile(rb"\n" + continued_first + rb"[^\n]*?(?:"
                                            + b"|".join(re.escape(n) for n in sampled) + rb")") \
            if continued_first is not None and sampled else None

    def hits(self, data: bytes, pos: int, sample: bool = True) -> list[int]:
        """Offsets of every needle in ``data[pos:]`` (the sampled ones only if ``sample``), ascending."""
        found: list[int] = []
        for needle in (*self.needles, *self.sampled) if sample else self.needles:
            i = data.find(needle, pos)
            while i >= 0:
                found.append(i)
                i = data.find(needle, i + 1)
        if self.pattern is not None:
            found += [m.start() for m in self.pattern.finditer(data, pos)]
        found.sort()
        return found

    def sampled_blocks(self, data: bytes) -> list[bytes] | None:
        """The lines of ``data`` (whole lines, the last ending with its line end) that hold a sampled needle, as blocks
        of whole lines cut from :data:`PIECE_BYTES` pieces of it by ``bytes.split``; None (the general path picks the
        lines then) when a line holds an incident needle or a continuation line a sampled one. The same lines
        :meth:`hits` leads to, in order.
        """
        if any(data.find(needle) >= 0 for needle in self.needles) or self.pattern is not None:
            return None
        first, second = self.sampled
        head = data[:data.find(b"\n")]
        if self.sampled_continued is not None and (self.sampled_continued.search(data) is not None or (
                self.continued is not None and self.continued(head) and (head.find(first) >= 0 or head.find(second) >= 0))):
            return None
        blocks = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start + PIECE_BYTES) + 1 or len(data)
            picked = [line for line in data[start:end].split(b"\n") if line.find(first) >= 0 or line.find(second) >= 0]
            if picked:
                picked.append(b"")
                blocks.append(b"\n".join(picked))
            start = end
        return blocks


def _filters() -> dict[str, Filter]:
    from foretune.logs.apache import ERROR_EVENTS  # start-up: analyzers load only for a prefilter
    from foretune.logs.postgres import EXHAUSTED  # start-up: analyzers load only for a prefilter
    from foretune.logs.production import PG_EXHAUSTED, POOL_TIMEOUT  # start-up: analyzers load only for a prefilter
    from foretune.logs.system import SOCKETS  # start-up: analyzers load only for a prefilter

    incident_events = ("max_request_workers", "passenger_queue_full", "too_many_open_files")
    month = rb"(?:" + b"|".join(MONTHS_B) + rb") "
    return {
        "production": Filter(rb"[ \t|{-]|.{4}-.{5}[T ]|" + month,
                             (*POOL_TIMEOUT, *PG_EXHAUSTED), sampled=(b"Processing by ", b"Completed "), continued_first=rb"[ \t|]",
                             head=_production_head, continued=_production_continued),
        # the status after the request's closing quote (the analyzer splits on quotes and whitespace)
        "apache_access": Filter(rb"(?!)", pattern=rb'"[ \t\r\f\v]*50[23](?!\S)', inside=rb" \[[^\n]{26}\] "),
        "apache_error": Filter(rb"\[", tuple(needle for needle, event in ERROR_EVENTS if event in incident_events)),
        "postgresql": Filter(rb"[ \t]|[^\n]{0,21}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", EXHAUSTED),
        "candlepin": Filter(rb"[ \t]|.{4}-.{5} .{8}[,.]|Caused by|java\.|org\.|com\.|javax\.", (b"OutOfMemoryError",),
                            head=_candlepin_head, continued=lambda line: not _candlepin_head(line)),
        "system": Filter(month + rb"|-- |\d{4}-\d\d-\d\dT|\[|\d{9,11}: ", (b"Killed process", *SOCKETS)),
    }


_FILTERS: dict[str, Filter] = {}
# an access line's stamp (``[14/Mar/2017:10:18:00 -0400]``), its minute and offset: requests per minute
ACCESS_STAMP = re.compile(rb" \[(\d\d/[A-Z][a-z][a-z]/\d{4}:\d\d:\d\d):\d\d ([-+]\d{4})\] ")


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
        self.read = 0  # bytes of the input before this chunk
        self.sample_lines: int | None = None  # lines in the sample, once it ended before the input


def _prime(analyzer: Analyzer, flt: Filter, data: bytes) -> tuple[int, bool]:
    """Feed lines until the analyzer takes one as understood; (offset after it, whether it did).

    Lines that fail the kind's necessary test and hold no needle are counted as not understood.
    """
    text = b"\n" + data  # text[k] is the newline before data[k]
    hits = flt.hits(data, 0)
    h = 0
    pos = 0
    while pos < len(data):
        match = flt.maybe.search(text, pos)
        cand = match.start() if match else len(data)
        if flt.inside is not None:
            found = flt.inside.search(data, pos, cand)
            if found is not None:
                cand = data.rfind(b"\n", 0, found.start()) + 1
        while h < len(hits) and hits[h] < pos:
            h += 1
        if h < len(hits) and hits[h] < cand:
            cand = data.rfind(b"\n", 0, hits[h]) + 1
        skipped = data.count(b"\n", pos, cand) + (1 if cand == len(data) and data[-1:] != b"\n" else 0)
        analyzer.lines += skipped
        analyzer.bad += skipped
        if cand >= len(data):
            return len(data), False
        end = data.find(b"\n", cand)
        end = end + 1 if end >= 0 else len(data)
        analyzer.consume((data[cand:end],))
        pos = end
        if analyzer.lines > analyzer.bad:
            return pos, True
    return pos, False


def _chunk(analyzer: Analyzer, flt: Filter, data: bytes, state: _State) -> None:
    pos = 0
    if not state.primed:
        pos, state.primed = _prime(analyzer, flt, data)
        state.last_head = None
    picked: list[bytes] = []
    fed = pos
    sample = state.read < SAMPLE_BYTES
    if not sample and flt.sampled and state.sample_lines is None:
        state.sample_lines = state.lines - (data.count(b"\n") + (0 if data.endswith(b"\n") else 1))
    if CUT_IN_C and sample and len(flt.sampled) == 2 and pos == 0 and data.endswith(b"\n"):
        blocks = flt.sampled_blocks(data)
        if blocks is not None:
            _sampled(analyzer, flt, data, state, blocks)
            return
    if CUT_IN_C and flt.to_line_end is not None:
        rfind = data.rfind
        picked = [data[rfind(b"\n", 0, start) + 1:end] for start, end in map(re.Match.span, flt.to_line_end.finditer(data, pos))]
        if picked:
            analyzer.consume(picked)
        return
    for hit in flt.hits(data, pos, sample):
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


def _sampled(analyzer: Analyzer, flt: Filter, data: bytes, state: _State, blocks: list[bytes]) -> None:
    """Feed the sampled lines of a whole chunk block by block (what :func:`_chunk` would feed them as, line by line)."""
    fed = 0
    if blocks:
        last = blocks[-1][blocks[-1].rfind(b"\n", 0, -1) + 1:]
        # the end of the last line fed: no later line holds it (it would hold a sampled needle too)
        fed = len(last) if data.startswith(last) else data.rfind(b"\n" + last) + 1 + len(last)
        analyzer.consume_joined(blocks)  # one read, as the line path's one consume a chunk
    if flt.head is not None:
        tail, stop = _head_before(data, len(data), fed, flt.head)
        if tail is not None or stop:
            state.last_head = tail


def consume_incidents(analyzer: Analyzer, stream: IO[bytes], chunk_bytes: int = CHUNK_BYTES) -> None:
    """Feed ``analyzer`` the lines of ``stream`` an incident needs; its line count is that of the whole input."""
    flt = filter_for(analyzer.kind)
    assert flt is not None
    analyzer.incidents_only = True
    state = _State()
    carry = b""
    stamps: Counter[tuple[bytes, bytes]] | None = Counter() if analyzer.kind == "apache_access" else None
    burst = _burst_per_minute() if stamps is not None else 0
    try:
        while True:
            block = stream.read(chunk_bytes)
            if block:
                cut = block.rfind(b"\n") + 1
                if cut == 0:
                    carry += block
                    continue
                # the lines that end in this block, copied once (a slice of a memoryview is not copied)
                data = b"".join((carry, memoryview(block)[:cut])) if cut < len(block) or carry else block
                carry = block[cut:]
            elif carry:
                data, carry = carry, b""
            else:
                break
            state.lines += data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
            _chunk(analyzer, flt, data, state)
            if stamps is not None:
                stamps.update(ACCESS_STAMP.findall(data))
                if _burst_seen(analyzer, burst):  # the 503 share is judged only without a burst: no more counting
                    stamps, analyzer.counted_until_burst = None, burst
            state.read += len(data)
    except READ_ERRORS as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        analyzer.problems.append(f"{analyzer.path}: truncated or corrupt after {state.lines:,} lines ({reason}); "
                                 "the lines before count")
    finally:
        analyzer.lines = state.lines
        if stamps is not None:
            analyzer.line_minutes = _per_minute(stamps, getattr(analyzer, "offset", None))
        if state.sample_lines is not None:  # told by the log_incidents fact (incidents.sample_note)
            analyzer.samples.append((analyzer.path, state.sample_lines, state.lines, SAMPLE_BYTES))


def _burst_per_minute() -> int:
    from foretune.knowledge import threshold  # start-up: analyzers load only for a prefilter

    return int(threshold("logs_503_burst_per_minute"))


def _burst_seen(analyzer: Analyzer, per_minute: int) -> bool:
    """Whether a minute of this access log already holds a 503 burst (``incidents.bursts``). Its requests per minute
    are then never used: a log with a burst (each file's minute counts add up in the merged log) is not judged on its
    503 share (``incidents.collect``), so its ``line_minutes`` stay None and ``counted_until_burst`` says why."""
    from foretune.logs.apache import C502, C503  # start-up: analyzers load only for a prefilter

    rows = getattr(analyzer, "minutes", {})
    return any(row[C503] + row[C502] >= per_minute for row in rows.values())


def _per_minute(stamps: Counter[tuple[bytes, bytes]], offset: bytes | None) -> dict[int, int]:
    """Lines per minute from (``dd/Mon/yyyy:HH:MM``, offset) counts, in the first offset the analyzer read (as it times
    its lines)."""
    from foretune.logs.apache import _offset_seconds  # start-up: analyzers load only for a prefilter
    from foretune.logs.timeutil import epoch  # start-up: as above

    out: dict[int, int] = {}
    for (key, zone), n in stamps.items():
        try:
            t = epoch(int(key[7:11]), MONTHS_B[key[3:6]], int(key[0:2]), int(key[12:14]), int(key[15:17]))
        except (ValueError, KeyError):
            continue
        if offset is not None and zone != offset:
            t += _offset_seconds(offset) - _offset_seconds(zone)
        out[t] = out.get(t, 0) + n
    return out
