"""Logs of a facts source (live host, sosreport directory or tarball), read once and kept on the source."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from foretune.knowledge import threshold
from foretune.logs.kinds import kind_of
from foretune.logs.reader import wrap
from foretune.logs.scan import LogFile, Options, Scan, discover, read_files
from foretune.logs.timeutil import MONTHS, Window, epoch, log_ended

# where sos writes `date` (sos 4.x, 3.x, and the top-level copy), relative to the sosreport's root
SOS_DATE_FILES = ("sos_commands/date/date", "sos_commands/general/date", "date")

if TYPE_CHECKING:
    from foretune.host.sources.base import Source
    from foretune.host.sources.tarball import SosreportTarball


class TarballLogs:
    """A tarball's log members, analyzed during the archive's one streaming pass (a
    :class:`~foretune.host.sources.base.MemberReader`); ``options`` None reads the incidents only."""

    def __init__(self, options: Options | None = None) -> None:
        # facts alone (no log options) need the incidents only; `foretune logs` passes its options
        self.scan = Scan(options or Options(), incidents_only=options is None)
        # the sosreport's date, once its member has gone past: it dates the syslog lines of the logs after it
        # (sos archives list sos_commands/ and the top-level date before var/log/)
        self.collected: tuple[int, int] | None = options.ended if options else None

    def restart(self) -> None:
        """Forget what was read: the archive is read again from its start."""
        self.scan = Scan(self.scan.options, incidents_only=self.scan.incidents_only)

    def wants(self, rel: str) -> bool:
        return kind_of(rel) is not None or rel in SOS_DATE_FILES

    def read(self, rel: str, stream: IO[bytes], mtime: float) -> None:
        """Stream one log member through the analyzers (decompressing .gz/.xz/.bz2 members); the date member
        gives the collection date."""
        if rel in SOS_DATE_FILES:
            self.collected = self.collected or sos_date(stream.read(256).decode("utf-8", "replace"))
            return
        kind = kind_of(rel)
        assert kind is not None
        buffered: Any = stream if isinstance(stream, io.BufferedReader) else io.BufferedReader(stream)
        self.scan.read_stream(rel, kind, wrap(buffered, buffered.peek(6)[:6]), ended=log_ended(rel, self.collected, mtime))


def open_tarball(path: Path, options: Options | None = None,
                 progress: Callable[[int, int], None] | None = None) -> SosreportTarball:
    """A sosreport tarball read in one pass, its logs analyzed on the way (``options`` None: the incidents only)."""
    from foretune.host.sources.tarball import (
        SosreportTarball,  # start-up: tarfile and the decompressors, for a tarball only
    )

    logs = TarballLogs(options)
    src = SosreportTarball(path, logs=logs, progress=progress)
    src.log_scan = logs.scan
    return src


def scan_source(src: Source, options: Options | None = None, *, jobs: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> Scan | None:
    """The source's log scan (computed on first use); None for a source without files (a snapshot)."""
    from foretune.host.sources.live import LiveHost  # start-up: the source types load only when logs are scanned
    from foretune.host.sources.replay import Replay  # start-up: the source types load only when logs are scanned
    from foretune.host.sources.sosreport import SosreportDirectory  # start-up: as above

    if src.log_scan is not None and (options is None or not src.log_scan.incidents_only):
        return src.log_scan  # type: ignore[no-any-return]
    if isinstance(src, Replay):
        if src.logs is None:
            return None
        src.log_scan = scan_shipped(src.logs, options)
        return src.log_scan  # type: ignore[no-any-return]
    # a sosreport directory's facts read its logs as its archive's are (the incidents only, the same sample)
    incidents_only = options is None and isinstance(src, SosreportDirectory)
    if isinstance(src, LiveHost):
        root = src.root
    elif isinstance(src, SosreportDirectory):
        root = str(src.root)
        taken = src.now()  # the sosreport's date file: it dates syslog lines, never the checkout's mtimes
        if taken is not None:
            options = replace(options or Options(), ended=(taken.year, taken.month))
    else:
        return None
    files = discover(root)
    if options is None and isinstance(src, LiveHost):
        # facts of a live host: the recent days only (a busy server keeps gigabytes of rotated logs)
        options, files = recent(files, int(threshold("logs_live_facts_days")))
    scan = read_files(files, options or Options(), jobs=jobs, progress=progress, incidents_only=incidents_only)
    src.log_scan = scan
    return scan


def scan_shipped(logs: Mapping[str, Any], options: Options | None = None) -> Scan:
    """A scan of the logs a snapshot carries (:mod:`foretune.logs.ship`); by default over the window they were
    collected for, as the live host's own facts read them."""
    from foretune.logs.ship import since_epoch  # start-up: datetime and the log discovery wait for a snapshot

    scan = Scan(options or Options(window=Window(since=since_epoch(logs["since"]))))
    ended = logs.get("ended") or {}
    for path, text in sorted(logs["files"].items()):
        kind = kind_of(path)
        when = ended.get(path)
        if kind is not None:
            data = text.encode("utf-8")
            scan.read_stream(path.lstrip("/"), kind, io.BytesIO(data), ended=(int(when[0]), int(when[1])) if when else None)
            scan.bytes += len(data)
    return scan


def sos_date(text: str) -> tuple[int, int] | None:
    """(year, month) of a sosreport's ``date`` output.

    >>> sos_date("Thu Nov  9 16:30:02 EST 2017\\n"), sos_date("garbage")
    ((2017, 11), None)
    """
    words = text.split()
    if len(words) >= 6 and words[1] in MONTHS and words[5].isdigit():
        return (int(words[5]), MONTHS[words[1]])
    return None


def recent(files: list[LogFile], days: int) -> tuple[Options, list[LogFile]]:
    """A window of the last ``days`` (server wall clock) and the files written within it."""
    now = time.time()
    local = time.localtime(now)
    since = epoch(*local[:6]) - days * 86400
    keep = []
    for f in files:
        try:
            if os.path.getmtime(f.disk) >= now - days * 86400:
                keep.append(f)
        except OSError:
            continue
    return Options(window=Window(since=since)), keep


def puma_in_force(stats: object, loaded: object, configured: object) -> tuple[int, int, str] | None:
    """Puma's workers and threads per worker in force and the fact they come from: the running server's
    (``puma_stats``, pumactl stats: workers x max_threads), else what systemd runs foreman.service with
    (``puma_loaded``), else the configured ones (``puma``: the foreman.service drop-in, or Foreman's defaults); None
    when none gives both.

    >>> puma_in_force(None, {"workers": 40, "threads_min": 0, "threads_max": 16}, {"workers": 12, "threads_max": 5})
    (40, 16, 'puma_loaded')
    >>> puma_in_force({"workers": 4, "max_threads": 5}, None, {"workers": 12, "threads_max": 5})
    (4, 5, 'puma_stats')
    >>> puma_in_force(None, None, {"workers": 0, "threads_max": 5}) is None
    True
    """
    for name, puma, key in (("puma_stats", stats, "max_threads"), ("puma_loaded", loaded, "threads_max"),
                            ("puma", configured, "threads_max")):
        if isinstance(puma, dict):
            workers, threads = puma.get("workers"), puma.get(key)
            if isinstance(workers, int) and isinstance(threads, int) and workers > 0 and threads > 0:
                return workers, threads, name
    return None
    workers, threads = puma.get("workers"), puma.get("threads_max")
    if isinstance(workers, int) and isinstance(threads, int) and workers > 0 and threads > 0:
        return workers * threads
    return None
