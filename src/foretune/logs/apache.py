"""Apache httpd access logs (combined or common, optional ``%D``) and error logs.

Access: ``%h %l %u %t "%r" %>s %b ["%{Referer}i" "%{User-Agent}i"] [%D]``. Per minute: requests,
status classes, 502s and 503s; top endpoints (UUIDs, hashes and numbers replaced), clients and
user agents; latency only when the format has ``%D``. Error: ``MaxRequestWorkers`` reached, proxy
errors, Passenger's full request queue and ``Too many open files``, by minute.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from foretune.logs.base import CLOCK_JUMP_SECONDS, Analyzer, quote
from foretune.logs.sketch import Sketch
from foretune.logs.timeutil import MONTHS_B, epoch, iso

TOP = 15
MAX_KEYS = 100_000  # distinct clients/agents/endpoints kept before the rarest are pruned
MAX_TIMES = 4096  # whole stamps (to the second) whose time an incidents-only read keeps; it starts over beyond this
_ID = re.compile(r"/(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32,}|\d+)(?=/|$)")
_NAMED = re.compile(r"/(pulp/(?:content|repos|isos)|pulp/api/v3/content/[^/]+/[^/]+|rhsm/consumers/[^/]+/certificates)/.+$")
# a host's name in a path is an id too: Puppet's certname routes and Foreman's /hosts/<fqdn>
# (Puppet 3's routes, of the 6.2-era Capsules, put the environment first: /production/node/<certname>; the ENC script
# node.rb asks Foreman for /node/<certname>)
_HOST = re.compile(r"/(puppet/v3/(?:node|catalog|facts|report|file_metadatas?)|puppet-ca/v1/certificate(?:_request|_status)?)/[^/]+"
                   r"|/(hosts)/[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?=/|$)"
                   r"|^/((?:[A-Za-z0-9_]+/)?node|[A-Za-z0-9_]+/(?:catalog|facts|report|certificate(?:_request|_status)?))/[^/]+")
# the routes only a Puppet agent calls: its bare "Ruby" User-Agent (Puppet 3 to 5) is a Puppet client there
_PUPPET_B = re.compile(rb"^\S+ /(?:puppet/v3|puppet-ca/v1|[A-Za-z0-9_]+/(?:node|catalog|facts|report|file_metadatas?|file_content|certificate))/")
_HOST_B = re.compile(_HOST.pattern.encode())
_ID_B = re.compile(_ID.pattern.encode())
_NAMED_B = re.compile(_NAMED.pattern.encode())
# columns of a per-minute row
TOTAL, C2, C3, C4, C5, C502, C503 = range(7)


_USERINFO_B = re.compile(rb"^([A-Za-z][A-Za-z0-9+.\-]{0,30}://)[^/@]*@")


def normalise(path: str) -> str:
    """A request path with ids replaced, for grouping.

    >>> normalise("/rhsm/consumers/385e688f-43ad-41b2-9fc7-593942ddec78/profiles?x=1")
    '/rhsm/consumers/:id/profiles'
    >>> normalise("/api/v2/hosts/42")
    '/api/v2/hosts/:id'
    >>> normalise("/pulp/content/Org/Library/rhel/Packages/b/bash.rpm")
    '/pulp/content/…'
    >>> normalise("/puppet/v3/node/web01.example.com?environment=production"), normalise("/api/v2/hosts/web01.example.com/facts")
    ('/puppet/v3/node/:host', '/api/v2/hosts/:host/facts')
    >>> normalise("/production/node/host0200.example.com?transaction_uuid=0a7e"), normalise("/production/catalog/web01")
    ('/production/node/:host', '/production/catalog/:host')
    >>> normalise("/node/web01.example.com?format=yml")
    '/node/:host'
    """
    path = path.split("?", 1)[0]
    path = _NAMED.sub(lambda m: f"/{m.group(1)}/…", path)
    path = _HOST.sub(lambda m: f"/{m.group(1) or m.group(2) or m.group(3)}/:host", path)
    return _ID.sub("/:id", path)


def _endpoint(request: bytes) -> bytes:
    """``b'GET /x/42?a HTTP/1.1'`` -> ``b'GET /x/:id'``; an absolute URL loses its userinfo (``user:password@``).

    >>> _endpoint(b"GET /api/v2/hosts/42?x=1 HTTP/1.1")
    b'GET /api/v2/hosts/:id'
    >>> _endpoint(b"GET https://admin:pw@sat.example.com/api/v2/hosts/7 HTTP/1.1")
    b'GET https://sat.example.com/api/v2/hosts/:id'
    >>> _endpoint(b"POST /puppet/v3/catalog/web01.example.com?environment=production HTTP/1.1")
    b'POST /puppet/v3/catalog/:host'
    """
    words = request.split(b" ")
    if len(words) < 2:
        return b"(malformed request)"
    path = words[1].split(b"?", 1)[0]
    if path.find(b"://") > 0:  # only an absolute URL has userinfo
        path = _USERINFO_B.sub(rb"\1", path)
    if b"/pulp/" in path:
        path = _NAMED_B.sub(lambda m: b"/" + m.group(1) + "/…".encode(), path)
    path = _HOST_B.sub(lambda m: b"/" + (m.group(1) or m.group(2) or m.group(3)) + b"/:host", path)
    return words[0] + b" " + _ID_B.sub(b"/:id", path)


def client_kind(agent: str) -> str:
    """The client family of a User-Agent.

    >>> client_kind("RHSM/1.0 (cmd=rhsmcertd-worker) subscription-manager/1.28.13-6.el8_4")
    'subscription-manager'
    >>> client_kind("libdnf (Red Hat Enterprise Linux 8.6; generic; Linux.x86_64)")
    'dnf/yum'
    """
    a = agent.lower()
    for needle, kind in (("subscription-manager", "subscription-manager"), ("rhsm", "subscription-manager"),
                         ("dnf", "dnf/yum"), ("yum", "dnf/yum"), ("urlgrabber", "dnf/yum"), ("zypp", "zypper"),
                         ("apt", "apt"), ("puppet", "puppet"), ("ansible", "ansible"), ("rest-client", "hammer/API (Ruby)"),
                         ("ruby", "hammer/API (Ruby)"), ("python", "python"), ("curl", "curl"), ("mozilla", "browser")):
        if needle in a:
            return kind
    return "other" if agent not in ("", "-") else "none"


def _bump(counter: dict[str, int], key: str, n: int = 1) -> None:
    counter[key] = counter.get(key, 0) + n
    if len(counter) > MAX_KEYS:
        for k in [k for k, v in counter.items() if v <= 1]:
            del counter[k]


def _top(counter: dict[str, int], n: int = TOP) -> list[list[Any]]:
    return [[k, v] for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


class AccessLog(Analyzer):
    kind = "apache_access"
    quick = True  # an incidents-only read takes :meth:`_consume_quick` (tests turn it off to compare)

    def __init__(self, path: str, window: Any = None) -> None:
        super().__init__(path, window)
        self.minutes: dict[int, list[int]] = {}
        self.endpoints: dict[str, int] = {}
        self.clients: dict[str, int] = {}
        self.agents: dict[str, int] = {}
        self.kinds: dict[str, int] = {}
        self.latency = Sketch()  # only with %D
        self.endpoint_latency: dict[str, Sketch] = {}
        self.first_5xx: dict[str, tuple[int, str]] = {}  # "502"/"503" -> earliest line
        self.first_503: dict[int, tuple[int, str]] = {}  # minute -> its earliest 503 line (a window's quote)
        self.last_503: dict[int, int] = {}  # minute -> the time of its latest 503
        # the file of a first_5xx (by code) or first_503 (by minute) line taken from a later input merged in
        self.first_paths: dict[str | int, str] = {}
        self.offset: bytes | None = None
        self.zone_changes = 0
        self._stamps: dict[bytes, int] = {}
        self._times: dict[bytes, int] = {}  # b"27/Mar/2017:13:34:56 -0400" -> its time (incidents only)
        self._norm: dict[bytes, bytes] = {}
        self._endpoints_b: dict[bytes, int] = {}
        self._clients_b: dict[bytes, int] = {}
        self._agents_b: dict[bytes, int] = {}

    def _stamp(self, key: bytes) -> int:
        # b"27/Mar/2017:13:34 -0400" (minute and offset)
        t = epoch(int(key[7:11]), MONTHS_B[key[3:6]], int(key[0:2]), int(key[12:14]), int(key[15:17]))
        offset = key[18:23]
        if self.offset is None:
            self.offset = offset
        elif offset != self.offset:
            self.zone_changes += 1
            t += _offset_seconds(self.offset) - _offset_seconds(offset)
        self._stamps[key] = t
        return t

    def consume(self, lines: Iterable[bytes]) -> None:
        if self.incidents_only and self.quick:
            self._consume_quick(lines)
            return
        stamps = self._stamps
        window = self.window
        check_window = not window.open
        minutes = self.minutes
        norm = self._norm
        endpoints, clients, agents = self._endpoints_b, self._clients_b, self._agents_b
        quick = self.incidents_only
        same_t: int | None = None  # the time of the line before, when a line of that time again changes nothing
        n = 0
        try:
            for line in lines:
                n += 1
                i = line.find(b" [")
                j = line.find(b"] ", i)
                if i < 0 or j - i != 28:
                    if line.strip():
                        self._bad(line)
                    continue
                key = line[i + 2:i + 19] + line[i + 22:j]
                try:
                    base = stamps.get(key)
                    if base is None:
                        base = self._stamp(key)
                    t = base + int(line[i + 20:i + 22])
                except (ValueError, KeyError):
                    self._bad(line)
                    continue
                parts = line[j + 2:].split(b'"')
                if len(parts) < 3:
                    self._bad(line)
                    continue
                tail = parts[2].split()
                if not tail or not tail[0].isdigit():
                    self._bad(line)
                    continue
                if check_window and t not in window:
                    self.outside += 1
                    continue
                if t != same_t:
                    self._time(t)
                    last = self.last
                    same_t = t if last is not None and t >= last - CLOCK_JUMP_SECONDS else None  # a clock jump counts again
                status = int(tail[0])
                minute = t - t % 60
                row = minutes.get(minute)
                if row is None:
                    row = minutes[minute] = [0, 0, 0, 0, 0, 0, 0]
                row[TOTAL] += 1
                cls = status // 100
                if 2 <= cls <= 5:
                    row[cls - 1] += 1
                    if status == 503 or status == 502:
                        row[C503 if status == 503 else C502] += 1
                        self._refused(status, minute, t, line)
                if quick:
                    continue
                request = parts[1]
                endpoint = norm.get(request)
                if endpoint is None:
                    endpoint = _endpoint(request)
                    if len(norm) > MAX_KEYS:
                        norm.clear()
                    norm[request] = endpoint
                endpoints[endpoint] = endpoints.get(endpoint, 0) + 1
                client = line[:line.find(b" ")]
                clients[client] = clients.get(client, 0) + 1
                if len(parts) >= 6:
                    agent = parts[5]
                    if agent == b"Ruby" and _PUPPET_B.match(endpoint):
                        agent = b"Ruby (Puppet agent)"
                    agents[agent] = agents.get(agent, 0) + 1
                    micro = parts[6].split() if len(parts) > 6 else []
                else:
                    micro = tail[2:]
                if micro and micro[0].isdigit():
                    ms = int(micro[0]) / 1000.0
                    self.latency.add(ms)
                    text = endpoint.decode("utf-8", "replace")
                    sketch = self.endpoint_latency.get(text)
                    if sketch is None:
                        sketch = self.endpoint_latency[text] = Sketch()
                    sketch.add(ms)
                if n & 0xFFFF == 0:
                    self._flush()
        finally:
            self.lines += n
            self._flush()

    def _consume_quick(self, lines: Iterable[bytes]) -> None:
        """:meth:`consume` of an incidents-only read (time and status per line), with fewer steps: a line's time is
        looked up by its whole stamp, and its status is read after the request's closing quote without splitting the
        line. A line of the same stamp and the same `` 502 ``/`` 503 `` as the line before it that counted (a 503
        storm: about 13 a second in gen_logs.py's log) changes only that minute's counts, so it is only counted, and
        the counts are added when that run ends. The same result (``tests/logs/test_incidents_fast.py`` compares both)."""
        stamps, times = self._stamps, self._times
        window = self.window
        check_window = not window.open
        minutes = self.minutes
        same_t: int | None = None
        n = 0
        run_key = b"\n"  # b" [" + the stamp + b"] " of the run's first line (no line holds b"\n" before its end)
        run_after = b""  # its b" 503 " or b" 502 "; its minute's row is run_row
        run_row: list[int] = []
        run_cls = run_col = run = 0  # the row's columns the run adds to, and how many lines it has after its first
        try:
            for line in lines:
                n += 1
                i = line.find(b" [")
                if i >= 0 and line.startswith(run_key, i):  # this first " [" begins " [<the run's stamp>] "
                    q = line.find(b'"', i + 30)
                    q = line.find(b'"', q + 1) if q >= 0 else -1
                    if q >= 0 and line.startswith(run_after, q + 1):
                        run += 1
                        continue
                j = line.find(b"] ", i)
                if i < 0 or j - i != 28:
                    if line.strip():
                        self._bad(line)
                    continue
                stamp = line[i + 2:j]
                t = times.get(stamp)
                if t is None:
                    key = stamp[:17] + stamp[20:]  # consume's key: the minute and the offset
                    try:
                        base = stamps.get(key)
                        if base is None:
                            base = self._stamp(key)
                        t = base + int(stamp[18:20])
                    except (ValueError, KeyError):
                        self._bad(line)
                        continue
                    if len(times) >= MAX_TIMES:
                        times.clear()
                    times[stamp] = t
                q = line.find(b'"', j + 2)
                q = line.find(b'"', q + 1) if q >= 0 else -1  # the request's closing quote
                if q < 0:
                    self._bad(line)
                    continue
                after = line[q + 1:q + 6]
                if after == b" 503 ":
                    status = 503
                elif after == b" 502 ":
                    status = 502
                else:
                    e = line.find(b'"', q + 1)
                    tail = (line[q + 1:e] if e >= 0 else line[q + 1:]).split()
                    if not tail or not tail[0].isdigit():
                        self._bad(line)
                        continue
                    status = int(tail[0])
                if check_window and t not in window:
                    self.outside += 1
                    continue
                if t != same_t:
                    self._time(t)
                    last = self.last
                    same_t = t if last is not None and t >= last - CLOCK_JUMP_SECONDS else None
                minute = t - t % 60
                row = minutes.get(minute)
                if row is None:
                    row = minutes[minute] = [0, 0, 0, 0, 0, 0, 0]
                row[TOTAL] += 1
                cls = status // 100
                if 2 <= cls <= 5:
                    row[cls - 1] += 1
                    if status == 503 or status == 502:
                        row[C503 if status == 503 else C502] += 1
                        self._refused(status, minute, t, line)
                        if same_t == t and (after == b" 503 " or after == b" 502 "):
                            # the next lines of this stamp and status: no earlier time, no later one, no clock jump
                            if run:
                                run_row[TOTAL] += run
                                run_row[run_cls] += run
                                run_row[run_col] += run
                                run = 0
                            run_key, run_after, run_row = b" [" + stamp + b"] ", after, row
                            run_cls, run_col = cls - 1, (C503 if status == 503 else C502)
                            continue
                run_key = b"\n"
        finally:
            self.lines += n
            if run:
                run_row[TOTAL] += run
                run_row[run_cls] += run
                run_row[run_col] += run

    def _refused(self, status: int, minute: int, t: int, line: bytes) -> None:
        """A 502 or 503 at time ``t``: the earliest line of its code, and of its minute's 503s, and that minute's last."""
        code = "503" if status == 503 else "502"
        first = self.first_5xx.get(code)
        if first is None or t < first[0]:
            self.first_5xx[code] = (t, quote(line))
        if status == 503:
            first = self.first_503.get(minute)
            if first is None or t < first[0]:
                self.first_503[minute] = (t, quote(line))
            if t > self.last_503.get(minute, t - 1):
                self.last_503[minute] = t

    def _flush(self) -> None:
        """Move the byte-keyed counters of the hot loop into the text-keyed ones (bounded in size)."""
        for raw, text_counter in ((self._endpoints_b, self.endpoints), (self._clients_b, self.clients), (self._agents_b, self.agents)):
            for k, v in raw.items():
                _bump(text_counter, k.decode("utf-8", "replace"), v)
            raw.clear()

    def merge_more(self, other: AccessLog) -> None:
        for m, row in other.minutes.items():
            mine = self.minutes.get(m)
            if mine is None:
                self.minutes[m] = row
            else:
                for k in range(len(row)):
                    mine[k] += row[k]
        for counter, more in ((self.endpoints, other.endpoints), (self.clients, other.clients), (self.agents, other.agents)):
            for name, n in more.items():
                _bump(counter, name, n)
        self.latency.merge(other.latency)
        for name, sketch in other.endpoint_latency.items():
            if name in self.endpoint_latency:
                self.endpoint_latency[name].merge(sketch)
            else:
                self.endpoint_latency[name] = sketch
        for code, (t, text) in other.first_5xx.items():
            if code not in self.first_5xx or t < self.first_5xx[code][0]:
                self.first_5xx[code] = (t, text)
                self._taken(other, code)
        for minute, (t, text) in other.first_503.items():
            if minute not in self.first_503 or t < self.first_503[minute][0]:
                self.first_503[minute] = (t, text)
                self._taken(other, minute)
        for minute, t in other.last_503.items():
            self.last_503[minute] = max(t, self.last_503.get(minute, t))
        self.zone_changes += other.zone_changes

    def _taken(self, other: AccessLog, key: str | int) -> None:
        """A first line of ``other`` (a later input) replaced this one's: remember its file."""
        path = other.first_paths.get(key, other.path)
        if path != self.path:
            self.first_paths[key] = path
        else:
            self.first_paths.pop(key, None)

    def summary(self) -> dict[str, Any]:
        totals = [0] * 7
        for row in self.minutes.values():
            for k in range(7):
                totals[k] += row[k]
        kinds: dict[str, int] = {}
        for agent, n in self.agents.items():
            kind = client_kind(agent)
            kinds[kind] = kinds.get(kind, 0) + n
        endpoints = _top(self.endpoints)
        if self.latency.count:
            for entry in endpoints:
                found = self.endpoint_latency.get(str(entry[0]))
                entry.append(found.summary() if found else None)
        return {**self.common(), "requests": totals[TOTAL],
                "status": {"2xx": totals[C2], "3xx": totals[C3], "4xx": totals[C4], "5xx": totals[C5],
                           "502": totals[C502], "503": totals[C503]},
                "has_duration": self.latency.count > 0, "latency": self.latency.summary() if self.latency.count else None,
                "per_minute": [[iso(m), *row] for m, row in sorted(self.minutes.items())],
                "top_endpoints": endpoints, "top_clients": _top(self.clients), "top_agents": _top(self.agents, 10),
                "client_kinds": _top(kinds), "time_zone_changes": self.zone_changes}


def _offset_seconds(offset: bytes) -> int:
    """``b'-0400'`` -> -14400; anything else -> 0."""
    try:
        sign = -1 if offset[:1] == b"-" else 1
        return sign * (int(offset[1:3]) * 3600 + int(offset[3:5]) * 60)
    except ValueError:
        return 0


ERROR_EVENTS = (
    (b"AH00161", "max_request_workers"),
    (b"MaxRequestWorkers", "max_request_workers"),
    (b"MaxClients", "max_request_workers"),
    (b"Request queue is full", "passenger_queue_full"),
    (b"Too many open files", "too_many_open_files"),
    (b"AH01102", "proxy_error"),
    (b"AH00898", "proxy_error"),
    (b"AH01097", "proxy_error"),
    (b"AH01114", "proxy_error"),
    (b"AH00957", "proxy_error"),
    (b"proxy:error", "proxy_error"),
    (b"proxy_http:error", "proxy_error"),
)


class ErrorLog(Analyzer):
    """``[Mon Aug 09 11:02:23.229609 2021] [module:level] [pid N] ... message``, and the lines Passenger writes to the same
    log (``[ 2017-11-09 09:00:02.1203 2518/7f3c0b7fe700 Pool2/Group.h:331 ]: Request queue is full. Returning an error``:
    its ``_prepareLogEntry`` format, local time like Apache's)."""

    kind = "apache_error"

    def __init__(self, path: str, window: Any = None) -> None:
        super().__init__(path, window)
        self.events: dict[str, dict[int, int]] = {}  # event -> minute -> count
        self.levels: dict[str, int] = {}

    def consume(self, lines: Iterable[bytes]) -> None:
        for line in lines:
            self.lines += 1
            if line[:1] != b"[":
                if line.strip():
                    self._bad(line)
                continue
            j = line.find(b"]")
            stamp = line[1:j].split()
            try:
                if line[:2] == b"[ ":  # Passenger's own lines: "[ 2017-11-09 09:00:02.1203 2518/7f3c0b7fe700 Pool2/Group.h:331 ]: ..."
                    day, clock = stamp[0], stamp[1]
                    t = epoch(int(day[0:4]), int(day[5:7]), int(day[8:10]), int(clock[0:2]), int(clock[3:5]), int(clock[6:8]))
                else:
                    clock = stamp[3]
                    t = epoch(int(stamp[4]), MONTHS_B[stamp[1]], int(stamp[2]), int(clock[0:2]), int(clock[3:5]), int(clock[6:8]))
            except (IndexError, ValueError, KeyError):
                self._bad(line)
                continue
            if not self._kept(t):
                continue
            k = line.find(b"[", j)
            level = line[k + 1:line.find(b"]", k)].rsplit(b":", 1)[-1].decode("ascii", "replace") if k > 0 else "?"
            self.levels[level] = self.levels.get(level, 0) + 1
            for needle, event in ERROR_EVENTS:
                if needle in line:
                    per = self.events.setdefault(event, {})
                    minute = t - t % 60
                    per[minute] = per.get(minute, 0) + 1
                    if event == "max_request_workers":
                        self.incident("queue_at_capacity", "httpd", line, t)
                    elif event == "passenger_queue_full":
                        self.incident("queue_at_capacity", "passenger", line, t)
                    elif event == "too_many_open_files":
                        self.incident("socket_exhaustion", "httpd", line, t)
                    break

    def merge_more(self, other: ErrorLog) -> None:
        for event, per in other.events.items():
            mine = self.events.setdefault(event, {})
            for m, n in per.items():
                mine[m] = mine.get(m, 0) + n
        for k, v in other.levels.items():
            self.levels[k] = self.levels.get(k, 0) + v

    def summary(self) -> dict[str, Any]:
        events = {}
        for event, per in sorted(self.events.items()):
            events[event] = {"count": sum(per.values()), "minutes": len(per), "first": iso(min(per)), "last": iso(max(per))}
        return {**self.common(), "levels": dict(sorted(self.levels.items())), "events": events}
