"""Candlepin ``candlepin.log``/``error.log``: request latency per endpoint, slow requests, OutOfMemoryError.

``2016-09-09 13:45:52,650 [req=<uuid>, org=...] INFO  <logger> - Request: verb=GET, uri=/candlepin/...``
pairs with ``... - Response: status=200, content-type="...", time=134`` (or the DEBUG form
``Response: 200 OK (221 ms)``) by ``req=``; the ``[thread=...]`` and ``csid=`` variants are the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from foretune.logs.apache import normalise
from foretune.logs.base import Analyzer
from foretune.logs.sketch import Sketch
from foretune.logs.timeutil import epoch

_RESPONSE = re.compile(rb"Response: (?:status=(\d{3}).*?time=(\d+)|(\d{3})\b.*?\((\d+) ms\))")
MAX_OPEN = 100_000
TOP = 15
UNKNOWN = "(request line not in the log)"


class CandlepinLog(Analyzer):
    kind = "candlepin"

    def __init__(self, path: str, window: Any = None, slow_ms: float = 5000.0) -> None:
        super().__init__(path, window)
        self.slow_ms = slow_ms
        self.endpoints: dict[str, Sketch] = {}
        self.status: dict[str, int] = {}
        self.slow = 0
        self.levels: dict[str, int] = {}
        self.open: dict[bytes, str] = {}
        self._minutes: dict[bytes, int] = {}

    def consume(self, lines: Iterable[bytes]) -> None:
        minutes = self._minutes
        for line in lines:
            self.lines += 1
            if line[4:5] != b"-" or line[10:11] != b" " or line[19:20] not in (b",", b"."):
                if line[:1] in (b"\t", b" ") or line.startswith((b"Caused by", b"java.", b"org.", b"com.", b"javax.")):
                    if b"OutOfMemoryError" in line:
                        self.incident("candlepin_oom", "candlepin", line, self.last)
                    continue  # stack trace
                if line.strip():
                    self._bad(line)
                continue
            try:
                key = line[:16]
                base = minutes.get(key)
                if base is None:
                    base = minutes[key] = epoch(int(key[0:4]), int(key[5:7]), int(key[8:10]), int(key[11:13]), int(key[14:16]))
                t = base + int(line[17:19])
            except ValueError:
                self._bad(line)
                continue
            if not self._kept(t):
                continue
            if b"OutOfMemoryError" in line:
                self.incident("candlepin_oom", "candlepin", line, t)
            r = line.find(b"req=")
            rid = line[r + 4:line.find(b",", r)] if r >= 0 else b""
            d = line.find(b" - ", 24)
            msg = line[d + 3:] if d >= 0 else b""
            lvl = line[line.rfind(b"] ", 0, d) + 1:d].split()[:1] if d >= 0 else []
            if lvl:
                name = lvl[0].decode("ascii", "replace")
                self.levels[name] = self.levels.get(name, 0) + 1
            if msg.startswith(b"Request: "):
                verb = re.search(rb"verb=(\w+)", msg)
                uri = re.search(rb"uri=(\S+)", msg)
                if verb and uri:
                    self.open[rid] = f"{verb.group(1).decode()} {normalise(uri.group(1).decode('utf-8', 'replace').rstrip(','))}"
                    if len(self.open) > MAX_OPEN:
                        self.open.pop(next(iter(self.open)))
            elif msg.startswith(b"Response: "):
                match = _RESPONSE.match(msg)
                if match is None:
                    self._bad(line)
                    continue
                status = (match.group(1) or match.group(3)).decode()
                ms = float(match.group(2) or match.group(4))
                endpoint = self.open.pop(rid, UNKNOWN)
                sketch = self.endpoints.get(endpoint)
                if sketch is None:
                    sketch = self.endpoints[endpoint] = Sketch()
                sketch.add(ms)
                cls = status[0] + "xx"
                self.status[cls] = self.status.get(cls, 0) + 1
                if ms >= self.slow_ms:
                    self.slow += 1

    def merge_more(self, other: CandlepinLog) -> None:
        for k, s in other.endpoints.items():
            if k in self.endpoints:
                self.endpoints[k].merge(s)
            else:
                self.endpoints[k] = s
        for mine, theirs in ((self.status, other.status), (self.levels, other.levels)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v
        self.slow += other.slow
        self.open.update(other.open)

    def summary(self) -> dict[str, Any]:
        overall = Sketch()
        for s in self.endpoints.values():
            overall.merge(s)
        rows = [{"endpoint": k, **s.summary()} for k, s in sorted(self.endpoints.items(), key=lambda kv: -kv[1].sum)[:TOP]]
        return {**self.common(), "requests": overall.count, "latency": overall.summary(), "status": dict(sorted(self.status.items())),
                "slow_ms": self.slow_ms, "slow_requests": self.slow, "endpoints": rows, "levels": dict(sorted(self.levels.items())),
                "out_of_memory": sum(i.count for i in self.incidents.values() if i.kind == "candlepin_oom")}
