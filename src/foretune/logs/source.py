"""Logs of a facts source (live host, sosreport directory or tarball), read once and kept on the source."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from foretune.knowledge import threshold
from foretune.logs.scan import LogFile, Options, Scan, discover, read_files
from foretune.logs.timeutil import Window, epoch

if TYPE_CHECKING:
    from foretune.facts.sources.base import Source


def scan_source(src: Source, options: Options | None = None, *, jobs: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> Scan | None:
    """The source's log scan (computed on first use); None for a source without files (a snapshot)."""
    from foretune.facts.sources.live import LiveHost
    from foretune.facts.sources.replay import Replay
    from foretune.facts.sources.sosreport import SosreportDirectory

    if src.log_scan is not None and (options is None or not src.log_scan.incidents_only):
        return src.log_scan  # type: ignore[no-any-return]
    if isinstance(src, Replay):
        if src.logs is None:
            return None
        src.log_scan = scan_shipped(src.logs, options)
        return src.log_scan  # type: ignore[no-any-return]
    if isinstance(src, LiveHost):
        root = src.root
    elif isinstance(src, SosreportDirectory):
        root = str(src.root)
    else:
        return None
    files = discover(root)
    if options is None and isinstance(src, LiveHost):
        # facts of a live host: the recent days only (a busy server keeps gigabytes of rotated logs)
        options, files = recent(files, int(threshold("logs_live_facts_days")))
    scan = read_files(files, options or Options(), jobs=jobs, progress=progress)
    src.log_scan = scan
    return scan


def scan_shipped(logs: Mapping[str, Any], options: Options | None = None) -> Scan:
    """A scan of the logs a snapshot carries (:mod:`foretune.logs.ship`); by default over the window they were
    collected for, as the live host's own facts read them."""
    import io

    from foretune.logs.kinds import kind_of
    from foretune.logs.ship import since_epoch

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


def recent(files: list[LogFile], days: int) -> tuple[Options, list[LogFile]]:
    """A window of the last ``days`` (server wall clock) and the files written within it."""
    import os
    import time

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


def puma_capacity(puma: object) -> int | None:
    """workers x threads_max of the ``puma`` fact, or None.

    >>> puma_capacity({"workers": 4, "threads_min": 5, "threads_max": 16}), puma_capacity(None)
    (64, None)
    """
    if not isinstance(puma, dict):
        return None
    workers, threads = puma.get("workers"), puma.get("threads_max")
    if isinstance(workers, int) and isinstance(threads, int) and workers > 0 and threads > 0:
        return workers * threads
    return None
