"""System logs (``/var/log/messages``, ``journalctl`` short output, the kernel's ``dmesg``, mosquitto's own
``mosquitto.log``): OOM kills, file and socket exhaustion, and mosquitto's clients (logs/mosquitto.py). dmesg lines carry seconds since boot (or ``dmesg -T``'s local time), no date: their OOM kills
count with no time.

``Nov 23 10:00:00 host kernel: Out of memory: Killed process 1234 (java) ...`` (older kernels:
``Killed process 1234 (java)`` after ``Out of memory: Kill process``), counted once per kill (its PID, name
and anon-rss: dmesg and messages both show a kill) by process name; ``Too many open files``, ``socket count
exceeded`` and qpid's ``connection denied by configured limit`` by the service that logged them. Classic syslog lines have no year: it comes from when
the file was last written (``timeutil.log_ended``: a dated rotation's name, else the sosreport's date, else on
a live host the file's modification time), a month later than that one being of the year before. Lines in
rsyslog's RFC 3339 format (``2021-06-14T03:12:09.123+00:00 host ...``) carry their own date, which is used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from foretune.logs.base import Analyzer
from foretune.logs.mosquitto import Broker
from foretune.logs.timeutil import MONTHS_B, epoch, year_of

_ISO = re.compile(rb"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\S* ")
_KILLED = re.compile(rb"Killed process (\d+) \(([^)]+)\)")
_ANON_RSS = re.compile(rb"anon-rss:(\d+)kB")
# mosquitto: "Unable to accept new connection, system socket count has been exceeded"
SOCKETS = (b"Too many open files", b"socket count exceeded", b"socket count has been exceeded", b"denied by configured limit")
# mosquitto's own log (``log_dest file``): "1763288900: Unable to accept new connection, system socket count ..."
_EPOCH = re.compile(rb"^(\d{9,11}): ")
_DMESG = re.compile(rb"^\[\s*\d+\.\d+\] |^\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\] ")
SERVICES = ("mosquitto", "qdrouterd", "qpidd", "httpd", "puma", "foreman", "postgres", "java", "tomcat", "pulpcore",
            "redis", "dynflow", "sidekiq", "smart-proxy", "puppetserver", "candlepin", "gunicorn")


def service_of(tag: str) -> str:
    """A syslog tag (``qdrouterd[123]``, ``pulpcore-api``) as a service name.

    >>> service_of("qdrouterd[123]"), service_of("systemd")
    ('qdrouterd', 'systemd')
    """
    name = tag.split("[", 1)[0]
    for known in SERVICES:
        if known in name:
            return known
    return name or "unknown"


class SystemLog(Analyzer):
    kind = "system"

    def __init__(self, path: str, window: Any = None, ended: tuple[int, int] | None = None) -> None:
        super().__init__(path, window)
        self.ended = ended or (1970, 12)  # (year, month) the log was last written: syslog lines have no year
        self.oom_kills: dict[str, int] = {}
        self.exhaustion: dict[str, int] = {}
        self.broker = Broker()  # mosquitto's own log, or its lines here: clients, disconnects, refused connections

    def consume(self, lines: Iterable[bytes]) -> None:
        for line in lines:
            self.lines += 1
            month = MONTHS_B.get(line[:3])
            mosquitto = _EPOCH.match(line) if month is None else None
            if mosquitto is not None:  # mosquitto's own log: seconds since the epoch, and only mosquitto writes it
                t = int(mosquitto.group(1))
                if not self._kept(t):
                    continue
                if self.broker.see(line[mosquitto.end():].rstrip(), t) or any(needle in line for needle in SOCKETS):
                    self.exhaustion["mosquitto"] = self.exhaustion.get("mosquitto", 0) + 1
                    self.incident("socket_exhaustion", "mosquitto", line, t)
                continue
            if month is None and _DMESG.match(line):  # the kernel ring buffer (sos_commands/kernel/dmesg): no wall clock
                self._killed(line, None)
                continue
            stamped = _ISO.match(line) if month is None else None
            if (month is None or line[3:4] != b" ") and stamped is None:
                if line.strip() and not line.startswith(b"-- "):  # journalctl's "-- Logs begin ..." headers
                    self._bad(line)
                continue
            try:
                if stamped is not None:  # the line's own date (rsyslog's RFC 3339 format) is the date
                    year, mon, day, hour, minute, second = (int(g) for g in stamped.groups())
                    t = epoch(year, mon, day, hour, minute, second)
                    host_at = stamped.end()
                else:
                    assert month is not None
                    t = epoch(year_of(month, self.ended), month, int(line[4:6]), int(line[7:9]), int(line[10:12]), int(line[13:15]))
                    host_at = 16
            except ValueError:
                self._bad(line)
                continue
            if not self._kept(t):
                continue
            if b"Killed process" in line:
                self._killed(line, t)
                continue
            at = line.find(b"mosquitto[", host_at, host_at + 80)
            if at > 0:  # mosquitto's messages in the system log: "mosquitto[1208]: 1700481857: New client connected ..."
                message = line[line.find(b": ", at) + 2:]
                stamp = _EPOCH.match(message)
                self.broker.see((message[stamp.end():] if stamp else message).rstrip(), t)
            for needle in SOCKETS:
                if needle in line:
                    host_end = line.find(b" ", host_at)
                    colon = line.find(b": ", host_end)
                    service = service_of(line[host_end + 1:colon].decode("utf-8", "replace")) if colon > 0 else "unknown"
                    self.exhaustion[service] = self.exhaustion.get(service, 0) + 1
                    self.incident("socket_exhaustion", service, line, t)
                    break

    def _killed(self, line: bytes, t: int | None) -> None:
        match = _KILLED.search(line) if b"Killed process" in line else None
        if match:
            pid, name = match.group(1).decode("ascii"), match.group(2).decode("utf-8", "replace")
            self.oom_kills[name] = self.oom_kills.get(name, 0) + 1
            # one kill: its PID and name, and the resident memory the kernel printed with them; the ring buffer's copy
            # of a syslog line has no date to compare, and a service restarted after a reboot often gets its PID back
            rss = _ANON_RSS.search(line, match.end(), match.end() + 200)
            self.incident("oom_kill", service_of(name), line, t,
                          ident=f"{pid} ({name})" + (f" anon-rss:{rss.group(1).decode('ascii')}kB" if rss else ""))

    def merge_more(self, other: SystemLog) -> None:
        self.broker.merge(other.broker)
        for mine, theirs in ((self.oom_kills, other.oom_kills), (self.exhaustion, other.exhaustion)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v

    def summary(self) -> dict[str, Any]:
        return {**self.common(), "oom_kills": dict(sorted(self.oom_kills.items(), key=lambda kv: -kv[1])),
                "file_or_socket_exhaustion": dict(sorted(self.exhaustion.items(), key=lambda kv: -kv[1])),
                "mqtt": self.broker.summary() if self.broker.seen else None}
