"""PostgreSQL server logs with any ``log_line_prefix`` that starts with a ``%t``/``%m`` timestamp.

Counts connection exhaustion (``too many clients``, ``remaining connection slots``), slow
statements (``duration: N ms`` lines, which need ``log_min_duration_statement``), deadlocks,
too-frequent checkpoints and autovacuum/autoanalyze runs. Lines starting with a tab continue
the previous statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from foretune.logs.base import Analyzer
from foretune.logs.sketch import Sketch
from foretune.logs.timeutil import epoch, iso

_STAMP = re.compile(rb"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)")
_LEVEL = re.compile(rb"\b(LOG|ERROR|FATAL|PANIC|WARNING|DETAIL|HINT|STATEMENT|CONTEXT|NOTICE|INFO|DEBUG\d?|QUERY|LOCATION):  ")
_PID = re.compile(rb"\[\d+\]|\bpid=\d+|\s\d{2,}\s")
_DURATION = re.compile(rb"duration: ([\d.]+) ms  (?:statement|execute [^:]*|bind [^:]*|parse [^:]*): ?(.*)")
_LITERAL = re.compile(r"'(?:[^']|'')*'|\b\d+\b|\$\d+")
_TABLE = re.compile(r"\b(?:FROM|UPDATE|INTO|JOIN)\s+\"?([A-Za-z_][\w.]*)", re.IGNORECASE)
EXHAUSTED = (b"too many clients already", b"remaining connection slots are reserved")
TOP = 15
MAX_STATEMENTS = 20_000


def shape(sql: str) -> str:
    """A statement with literals replaced, for grouping.

    >>> shape("SELECT * FROM hosts WHERE id = 42 AND name = 'a''b'")
    'SELECT * FROM hosts WHERE id = ? AND name = ?'
    """
    return " ".join(_LITERAL.sub("?", sql).split())[:160]


def family(sql: str) -> str:
    """The application a statement belongs to, by its first table (Satellite logs carry no database name).

    >>> family("SELECT 1 FROM cp_consumer"), family('UPDATE "katello_repositories" SET x=1'), family("select 1")
    ('candlepin', 'foreman/katello', 'other')
    """
    match = _TABLE.search(sql)
    if not match:
        return "other"
    table = match.group(1).lower().split(".")[-1]
    if table.startswith(("cp_", "cp2_", "cpo_")):
        return "candlepin"
    if table.startswith(("core_", "rpm_", "file_", "container_", "ansible_", "deb_", "python_", "certguard_")):
        return "pulp"
    return "foreman/katello"


class PostgresLog(Analyzer):
    kind = "postgresql"

    def __init__(self, path: str, window: Any = None) -> None:
        super().__init__(path, window)
        self.levels: dict[str, int] = {}
        self.exhaustion: dict[int, int] = {}
        self.slow = Sketch()
        self.statements: dict[str, list[float]] = {}  # shape -> [count, total ms, max ms]
        self.families: dict[str, list[float]] = {}
        self.deadlocks = 0
        self.checkpoint_warnings = 0
        self.autovacuum: dict[str, int] = {"vacuum": 0, "analyze": 0}
        self.prefix_has_pid: bool | None = None

    def consume(self, lines: Iterable[bytes]) -> None:
        for line in lines:
            self.lines += 1
            if line[:1] in (b"\t", b" "):
                continue
            stamp = _STAMP.search(line, 0, 40)
            level = _LEVEL.search(line) if stamp else None
            if stamp is None or level is None:
                if line.strip():
                    self._bad(line)
                continue
            y, mo, d, h, mi, s = (int(x) for x in stamp.groups())
            try:
                t = epoch(y, mo, d, h, mi, s)
            except ValueError:
                self._bad(line)
                continue
            if not self._kept(t):
                continue
            if self.prefix_has_pid is None:
                self.prefix_has_pid = bool(_PID.search(line, stamp.end(), level.start()))
            name = level.group(1).decode()
            self.levels[name] = self.levels.get(name, 0) + 1
            msg = line[level.end():]
            if name == "FATAL" and any(p in msg for p in EXHAUSTED):
                minute = t - t % 60
                self.exhaustion[minute] = self.exhaustion.get(minute, 0) + 1
                self.incident("pg_connection_exhaustion", "postgresql", line, t)
            elif msg.startswith(b"duration: "):
                self._duration(msg)
            elif b"deadlock detected" in msg:
                self.deadlocks += 1
            elif b"checkpoints are occurring too frequently" in msg:
                self.checkpoint_warnings += 1
            elif msg.startswith(b"automatic vacuum"):
                self.autovacuum["vacuum"] += 1
            elif msg.startswith(b"automatic analyze"):
                self.autovacuum["analyze"] += 1

    def _duration(self, msg: bytes) -> None:
        match = _DURATION.match(msg)
        if match is None:
            return
        ms = float(match.group(1))
        sql = match.group(2).decode("utf-8", "replace").strip()
        self.slow.add(ms)
        if sql:
            for table, key in ((self.statements, shape(sql)), (self.families, family(sql))):
                row = table.get(key)
                if row is None:
                    if table is self.statements and len(table) >= MAX_STATEMENTS:
                        key = "(other statements)"
                        row = table.setdefault(key, [0, 0.0, 0.0])
                    else:
                        row = table[key] = [0, 0.0, 0.0]
                row[0] += 1
                row[1] += ms
                row[2] = max(row[2], ms)

    def merge_more(self, other: PostgresLog) -> None:
        for k, v in other.levels.items():
            self.levels[k] = self.levels.get(k, 0) + v
        for m, n in other.exhaustion.items():
            self.exhaustion[m] = self.exhaustion.get(m, 0) + n
        self.slow.merge(other.slow)
        for mine, theirs in ((self.statements, other.statements), (self.families, other.families)):
            for key, row in theirs.items():
                if key in mine:
                    mine[key][0] += row[0]
                    mine[key][1] += row[1]
                    mine[key][2] = max(mine[key][2], row[2])
                else:
                    mine[key] = list(row)
        self.deadlocks += other.deadlocks
        self.checkpoint_warnings += other.checkpoint_warnings
        for k, v in other.autovacuum.items():
            self.autovacuum[k] += v
        if self.prefix_has_pid is None:
            self.prefix_has_pid = other.prefix_has_pid

    def summary(self) -> dict[str, Any]:
        def rows(table: dict[str, list[float]]) -> list[dict[str, Any]]:
            ordered = sorted(table.items(), key=lambda kv: -kv[1][1])[:TOP]
            return [{"statement": k, "count": int(v[0]), "total_ms": round(v[1], 1), "max_ms": round(v[2], 1)} for k, v in ordered]
        return {**self.common(), "levels": dict(sorted(self.levels.items())),
                "connection_exhaustion": {"count": sum(self.exhaustion.values()), "minutes": len(self.exhaustion),
                                          "first": iso(min(self.exhaustion)) if self.exhaustion else None,
                                          "last": iso(max(self.exhaustion)) if self.exhaustion else None},
                "slow_statements": self.slow.summary(), "top_statements": rows(self.statements),
                "by_application": [{"application": r["statement"], **{k: v for k, v in r.items() if k != "statement"}}
                                   for r in rows(self.families)],
                "deadlocks": self.deadlocks, "checkpoint_warnings": self.checkpoint_warnings, "autovacuum": self.autovacuum,
                "prefix_has_pid": self.prefix_has_pid}
