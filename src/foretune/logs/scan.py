"""Run the analyzers over log files: discover, open (decompressing), split large files, merge in time order.

Files of one family (e.g. ``production.log`` and its rotations) are analyzed separately, possibly
in parallel, and merged oldest first, so requests spanning two files or two byte ranges still
join. Large plain files are split into byte ranges; compressed ones are read whole by one worker.
"""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO

from foretune.host.sources.sosreport import is_sosreport_root
from foretune.logs.base import Analyzer
from foretune.logs.kinds import PATTERNS, family, kind_of, kind_of_name, rotation_rank
from foretune.logs.reader import READ_ERRORS, open_log
from foretune.logs.timeutil import Window, log_ended

CHUNK_BYTES = 64 * 1024 * 1024  # plain files larger than this are split into ranges of this size
PARALLEL_BYTES = 48 * 1024 * 1024  # below this much input one process is faster than starting workers


@dataclass(frozen=True)
class Options:
    window: Window = field(default_factory=Window)
    # (year, month) the source was collected (a sosreport's date): with each file's place in rotation it dates
    # syslog lines, which carry no year (timeutil.log_ended)
    ended: tuple[int, int] | None = None
    candlepin_slow_ms: float = 5000.0


@dataclass(frozen=True)
class LogFile:
    location: str  # root-relative path or the name given
    disk: str  # where to open it
    kind: str
    size: int


def new_analyzer(kind: str, location: str, options: Options, ended: tuple[int, int] | None = None) -> Analyzer:
    from foretune.logs import (  # start-up: each analyzer loads only when a scan needs one
        apache,
        candlepin,
        postgres,
        production,
        system,
        tasks,
    )

    if kind == "production":
        return production.ProductionLog(location, options.window, ended=ended)
    if kind == "apache_access":
        return apache.AccessLog(location, options.window)
    if kind == "apache_error":
        return apache.ErrorLog(location, options.window)
    if kind == "postgresql":
        return postgres.PostgresLog(location, options.window)
    if kind == "candlepin":
        return candlepin.CandlepinLog(location, options.window, slow_ms=options.candlepin_slow_ms)
    if kind == "system":
        return system.SystemLog(location, options.window, ended=ended)
    if kind == "tasks":
        return tasks.TasksCsv(location, options.window)
    raise ValueError(f"unknown log kind {kind!r}")


class Scan:
    """Analyzers of every file read, grouped by (kind, family)."""

    def __init__(self, options: Options | None = None, *, incidents_only: bool = False) -> None:
        self.options = options or Options()
        self.incidents_only = incidents_only  # analyzers fed only what incidents need (prefilter.py)
        self.parts: dict[tuple[str, str], list[tuple[tuple[int, str], int, Analyzer]]] = {}
        self.files: list[str] = []
        self.problems: list[str] = []
        self.bytes = 0
        self._merged: dict[tuple[str, str], Analyzer] | None = None

    def add(self, location: str, analyzer: Analyzer, part: int = 0, *, in_order: bool = False) -> None:
        """Keep ``analyzer``'s result; ``in_order``: every input before it in its family is already in, so merge it now."""
        key = (analyzer.kind, family(location))
        pieces = self.parts.setdefault(key, [])
        if in_order and pieces:
            pieces[0][2].merge(analyzer)
        else:
            pieces.append((rotation_rank(location), part, analyzer))
        if part == 0:
            self.files.append(location)
        self.problems += analyzer.problems
        self._merged = None

    def read_stream(self, location: str, kind: str, stream: IO[bytes], ended: tuple[int, int] | None = None) -> None:
        """Analyze one (already decompressed) stream."""
        analyzer = new_analyzer(kind, location, self.options, ended)
        if self.incidents_only:
            from foretune.logs.prefilter import consume_incidents, filter_for  # start-up: only when read_stream runs

            if filter_for(kind) is not None:
                consume_incidents(analyzer, stream)
                self.add(location, analyzer)
                return
        consume(analyzer, stream)
        self.add(location, analyzer)

    def merged(self) -> dict[tuple[str, str], Analyzer]:
        """One analyzer per (kind, family), its parts merged oldest first."""
        if self._merged is None:
            out: dict[tuple[str, str], Analyzer] = {}
            for key, parts in sorted(self.parts.items()):
                parts = sorted(parts, key=lambda p: (p[0], p[1]))
                head = parts[0][2]
                for _, _, other in parts[1:]:
                    head.merge(other)
                head.finish()
                self.parts[key] = [(parts[0][0], 0, head)]
                out[key] = head
            self._merged = out
        return self._merged

    @property
    def lines(self) -> int:
        return sum(a.lines for a in self.merged().values())

    @property
    def not_understood(self) -> int:
        return sum(a.bad for a in self.merged().values())


def consume(analyzer: Analyzer, stream: IO[bytes]) -> None:
    """Feed a whole stream; a read error (truncated or corrupt compression) keeps the lines before it."""
    try:
        analyzer.consume_stream(stream)
    except READ_ERRORS as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        analyzer.problems.append(f"{analyzer.path}: truncated or corrupt after {analyzer.lines:,} lines ({reason}); "
                                 "the lines before count")


# --- finding files -------------------------------------------------------------------------
def discover(root: str) -> list[LogFile]:
    """The logs foretune reads under a server root (``/`` live, or a sosreport directory)."""
    found: dict[str, LogFile] = {}
    for pattern, kind in PATTERNS:
        for disk in sorted(glob.glob(os.path.join(root, pattern))):
            rel = os.path.relpath(disk, root)
            if rel in found or not os.path.isfile(disk) or kind_of(rel) != kind:
                continue
            try:
                size = os.path.getsize(disk)
            except OSError:
                continue
            found[rel] = LogFile(rel, disk, kind, size)
    return list(found.values())


def from_paths(paths: Iterable[str], problems: list[str]) -> list[LogFile]:
    """Files named by the user, and the logs inside directories (a sosreport directory by its layout)."""
    out: list[LogFile] = []
    for path in paths:
        if os.path.isdir(path):
            if is_sosreport_root(set(os.listdir(path))):
                out += discover(path)
                continue
            for base, _, names in os.walk(path):
                for name in sorted(names):
                    out += _one(os.path.join(base, name), os.path.relpath(os.path.join(base, name), path), problems, quiet=True)
        else:
            out += _one(path, path, problems, quiet=False)
    return out


def _one(disk: str, location: str, problems: list[str], *, quiet: bool) -> list[LogFile]:
    try:
        size = os.path.getsize(disk)
        stream = open_log(disk)
    except OSError as exc:
        problems.append(f"{location}: cannot read ({exc.strerror or exc})")
        return []
    head = b""
    with stream, contextlib.suppress(*READ_ERRORS):  # damaged: classified by name, reported when read
        head = stream.read(4096)
    kind = kind_of_name(location, head)
    if kind is None:
        if not quiet:
            problems.append(f"{location}: not a log format foretune knows (production.log, Apache, PostgreSQL, "
                            "Candlepin, syslog, tasks CSV): skipped")
        return []
    return [LogFile(location, disk, kind, size)]


# --- reading -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Task:
    file: LogFile
    part: int
    start: int | None  # byte range of a plain file, or None for the whole (maybe compressed) file
    end: int | None
    ended: tuple[int, int] | None


def _run_task(task: Task, options: Options, incidents_only: bool = False) -> tuple[LogFile, int, Analyzer]:
    analyzer = new_analyzer(task.file.kind, task.file.location, options, task.ended)
    if task.start is None:
        try:
            stream = open_log(task.file.disk)
        except OSError as exc:
            analyzer.problems.append(f"{task.file.location}: cannot read ({exc.strerror})")
            return task.file, task.part, analyzer
        with stream:
            if incidents_only:
                from foretune.logs.prefilter import consume_incidents, filter_for  # start-up: only for the facts' read

                if filter_for(task.file.kind) is not None:
                    consume_incidents(analyzer, stream)
                    analyzer.shrink()
                    return task.file, task.part, analyzer
            consume(analyzer, stream)
    else:
        assert task.end is not None
        analyzer.consume_range(task.file.disk, task.start, task.end)
    analyzer.shrink()
    return task.file, task.part, analyzer


def _plain(disk: str) -> bool:
    from foretune.logs.reader import compression  # start-up: only when _plain runs

    try:
        with open(disk, "rb") as handle:
            return compression(handle.read(6)) is None
    except OSError:
        return False


def _tasks(files: list[LogFile], split: bool, collected: tuple[int, int] | None = None) -> list[Task]:
    tasks: list[Task] = []
    for f in files:
        try:
            mtime: float | None = os.path.getmtime(f.disk)
        except OSError:
            mtime = None
        ended = log_ended(f.location, collected, mtime)
        if split and f.size > 2 * CHUNK_BYTES and f.kind != "tasks" and _plain(f.disk):
            starts = list(range(0, f.size, CHUNK_BYTES))
            tasks += [Task(f, i, s, min(s + CHUNK_BYTES, f.size), ended) for i, s in enumerate(starts)]
        else:
            tasks.append(Task(f, 0, None, None, ended))
    return tasks


def read_files(files: list[LogFile], options: Options, *, jobs: int | None = None,
               progress: Callable[[int, int], None] | None = None, incidents_only: bool = False) -> Scan:
    """Analyze ``files``; with more than PARALLEL_BYTES of input, in ``jobs`` processes (default: CPUs).

    ``incidents_only``: each file is read whole as an archive's member is (:mod:`foretune.logs.prefilter`: the
    same sample, the same facts), never split into byte ranges."""
    scan = Scan(options, incidents_only=incidents_only)
    total = sum(f.size for f in files)
    jobs = jobs or os.cpu_count() or 1
    parallel = jobs > 1 and total > PARALLEL_BYTES
    tasks = sorted(_tasks(files, split=parallel and not incidents_only, collected=options.ended),
                   key=lambda t: -(t.end - t.start if t.start is not None and t.end is not None else t.file.size))
    done = 0
    if progress:
        progress(0, total)
    if not parallel:
        for task in tasks:
            f, part, analyzer = _run_task(task, options, incidents_only)
            scan.add(f.location, analyzer, part)
            done += task.file.size
            if progress:
                progress(done, total)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed  # start-up: only when read_files runs

        # results are merged in file order as soon as the ones before them are in, so the analyzers of a large
        # file's byte ranges never all wait in memory at once
        order = sorted(tasks, key=lambda t: (rotation_rank(t.file.location), t.part))
        position = {id(task): n for n, task in enumerate(order)}
        waiting: dict[int, tuple[LogFile, int, Analyzer]] = {}
        following = 0
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(_run_task, task, options, incidents_only): task for task in tasks}
            for future in as_completed(futures):
                task = futures.pop(future)  # a finished future holds its result: let it go once merged
                waiting[position[id(task)]] = future.result()
                while following in waiting:
                    f, part, analyzer = waiting.pop(following)
                    scan.add(f.location, analyzer, part, in_order=True)
                    following += 1
                done += (task.end - task.start) if task.start is not None and task.end is not None else task.file.size
                if progress:
                    progress(done, total)
    scan.bytes = total
    return scan

