"""What every log analyzer shares: line counts, time span, clock jumps, incidents with a quoted line."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import IO, Any

from foretune.logs.timeutil import Window, iso

CLOCK_JUMP_SECONDS = 600  # a timestamp this far before the latest one is a clock jump, not interleaving
BAD_EXAMPLES = 3
LINE_CHARS = 300
SAMPLE_MARK = " (Puma concurrency) counted over the first "  # in every sample note (incidents.sample_notes): the audit's notes pick it


def quote(line: bytes | str) -> str:
    """One log line for evidence: decoded, stripped, shortened, with secrets redacted and control characters
    (terminal escape sequences) made visible."""
    from foretune.host.redact import redact_text  # start-up: its patterns compile only when a line is quoted
    from foretune.term import clean_line  # start-up: only when quote runs

    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = clean_line(redact_text(text.strip().replace("\x00", "")))
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"


class Incident:
    """Occurrences of one kind of incident in one log: count, first/last time, the first line, and the identities
    of what happened when the log names them (an OOM kill's ``3300 (java)``: the same kill in dmesg and in
    messages is one kill)."""

    __slots__ = ("count", "first", "keys", "kind", "last", "line", "path", "service")

    def __init__(self, kind: str, service: str, path: str, line: str) -> None:
        self.kind, self.service, self.path, self.line = kind, service, path, line
        self.count = 0
        self.first: int | None = None
        self.last: int | None = None
        self.keys: set[str] = set()

    def see(self, t: int | None, n: int = 1) -> None:
        self.count += n
        if t is not None:
            self.first = t if self.first is None else min(self.first, t)
            self.last = t if self.last is None else max(self.last, t)

    def merge(self, other: Incident) -> None:
        if other.first is not None and (self.first is None or other.first < self.first):
            self.line, self.path = other.line, other.path  # the quoted line and the file it is in
        self.count += other.count
        self.keys |= other.keys
        for t in (other.first, other.last):
            if t is not None:
                self.first = t if self.first is None else min(self.first, t)
                self.last = t if self.last is None else max(self.last, t)

    def as_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "service": self.service, "path": self.path, "line": self.line,
               "count": self.count, "first": iso(self.first), "last": iso(self.last)}
        return {**out, "keys": sorted(self.keys)} if self.keys else out


class Analyzer:
    """Base class: subclasses implement :meth:`consume` (a tight loop over raw lines) and :meth:`merge_more`."""

    kind = "log"
    # set by the incidents-only read (prefilter.py): what only `foretune logs` reports (latencies, endpoints,
    # clients, actions, flows) is not computed
    incidents_only = False

    def __init__(self, path: str, window: Window | None = None) -> None:
        self.path = path
        self.window = window or Window()
        self.lines = 0
        self.bad = 0
        self.outside = 0  # lines outside --since/--until
        self.bad_examples: list[str] = []
        self.first: int | None = None
        self.last: int | None = None
        self.clock_jumps = 0
        self.incidents: dict[tuple[str, str], Incident] = {}
        self.problems: list[str] = []
        # inputs read in part (prefilter.py): (path, lines of the sample, lines, sample bytes)
        self.samples: list[tuple[str, int, int, int]] = []
        # lines per minute of an input read in part (an access log's requests, prefilter.py), else None
        self.line_minutes: dict[int, int] | None = None
        # its lines per minute stopped being counted at a 503 burst of this many a minute (prefilter.py), else None
        self.counted_until_burst: int | None = None

    # --- called from consume() ------------------------------------------------------------
    def _bad(self, line: bytes) -> None:
        self.bad += 1
        if len(self.bad_examples) < BAD_EXAMPLES and line.strip():
            self.bad_examples.append(quote(line)[:120])

    def _kept(self, t: int) -> bool:
        """Whether a line at ``t`` lies in the window; counts it as outside, or records its time."""
        if not self.window.open and t not in self.window:
            self.outside += 1
            return False
        self._time(t)
        return True

    def _time(self, t: int) -> None:
        last = self.last
        if last is None:
            self.first = self.last = t
            return
        if t < last - CLOCK_JUMP_SECONDS:
            self.clock_jumps += 1
        if t > last:
            self.last = t
        if t < (self.first or t):
            self.first = t

    def incident(self, kind: str, service: str, line: bytes | str, t: int | None, n: int = 1, ident: str | None = None) -> None:
        """Count one occurrence; ``ident`` names what happened (``3300 (java)``) when the line says."""
        key = (kind, service)
        found = self.incidents.get(key)
        if found is None:
            found = self.incidents[key] = Incident(kind, service, self.path, quote(line))
        found.see(t, n)
        if ident is not None:
            found.keys.add(ident)

    # --- API --------------------------------------------------------------------------------
    def consume(self, lines: Iterable[bytes]) -> None:
        raise NotImplementedError

    def consume_joined(self, blocks: Iterable[bytes]) -> None:
        """Analyze ``blocks`` of whole lines, each ending with its line end, as one :meth:`consume` of their lines."""
        self.consume(line for block in blocks for line in io.BytesIO(block))

    def consume_stream(self, stream: IO[bytes]) -> None:
        """Analyze a whole (decompressed) stream; an analyzer may read it in blocks rather than lines."""
        self.consume(stream)

    def consume_range(self, path: str, start: int, end: int) -> None:
        """Analyze the lines of a plain file whose first byte lies in ``[start, end)``."""
        from foretune.logs.reader import byte_range  # start-up: only when a large file is split

        self.consume(byte_range(path, start, end))

    def shrink(self) -> None:
        """Drop caches that only speed up parsing (before the analyzer is sent to another process)."""
        for name in ("_minutes", "_stamps", "_times", "_bases", "_norm", "_names"):
            cache = getattr(self, name, None)
            if isinstance(cache, dict):
                cache.clear()

    def finish(self) -> None:
        """Settle state that waits for the end of the input (requests never completed)."""

    def merge(self, other: Analyzer) -> None:
        """Add ``other`` (same kind, the input that follows this one) into this analyzer."""
        self.lines += other.lines
        self.bad += other.bad
        self.outside += other.outside
        self.bad_examples = (self.bad_examples + other.bad_examples)[:BAD_EXAMPLES]
        self.clock_jumps += other.clock_jumps
        if other.first is not None:
            self.first = other.first if self.first is None else min(self.first, other.first)
        if other.last is not None:
            self.last = other.last if self.last is None else max(self.last, other.last)
        for key, inc in other.incidents.items():
            if key in self.incidents:
                self.incidents[key].merge(inc)
            else:
                self.incidents[key] = inc
        self.problems += other.problems
        self.samples += other.samples
        if other.counted_until_burst is not None:
            self.counted_until_burst = other.counted_until_burst
        if other.line_minutes is not None:
            mine = self.line_minutes = self.line_minutes if self.line_minutes is not None else {}
            for m, n in other.line_minutes.items():
                mine[m] = mine.get(m, 0) + n
        self.merge_more(other)

    def merge_more(self, other: Any) -> None:
        raise NotImplementedError

    def common(self) -> dict[str, Any]:
        return {"kind": self.kind, "lines": self.lines, "not_understood": self.bad, "outside_window": self.outside,
                "not_understood_examples": self.bad_examples, "first": iso(self.first), "last": iso(self.last),
                "clock_jumps": self.clock_jumps}

    def summary(self) -> dict[str, Any]:
        raise NotImplementedError
