"""Storage benchmark: which directories, which fio jobs, safety checks, and verdicts.

Modes:

- ``quick``: foreman-maintain's disk check, unchanged (sequential 4 KiB direct read of 1 GiB).
- ``buffered`` (default): satellite-support storage-benchmark's read, write and 80/20 random jobs
  on a file of 2 x RAM, each bounded by a runtime, plus WAL-like flushed 8 kB writes and direct
  random-read latency at queue depth 1 and 16.
- ``direct``: the same jobs with O_DIRECT (1 MiB blocks for the sequential jobs, as readahead
  would issue), so a file of a few GiB is enough and the run takes minutes.

Safety: every file is written inside a new ``foretune-bench-*`` subdirectory, only files
foretune named are removed, and the subdirectory is removed on success, failure and interrupt.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from foretune.bench.fio import FioJob, FioRun
from foretune.env import ExitStatus
from foretune.errors import InputError
from foretune.knowledge import threshold, threshold_entries
from foretune.units import GIB, format_bytes, format_gib

VERDICT_NAMES = ("pass", "warn", "fail", "info")
DIRECT_SEQ_BLOCK = 1024**2  # direct mode's sequential block: O_DIRECT bypasses readahead, so large blocks keep the disk busy
JOB_ORDER = ("quick-seq-read", "seq-read", "seq-write", "rand-rw", "fsync-write", "lat-qd1", "lat-qd16")
DATA_FILE = "foretune-bench.data"
WAL_FILE = "foretune-bench.wal"
MEMORY_FS = frozenset({"tmpfs", "ramfs"})
NETWORK_FS = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "glusterfs", "fuse.glusterfs", "ceph", "fuse.cephfs", "fuse.sshfs"})

# Where Foreman/Katello keep data, per role and version: Pulp content, PostgreSQL (EL, SCL on
# Satellite 6.x up to 6.10, Debian), MongoDB (Pulp 2, Satellite <= 6.9).
PULP_DIRS = ("var/lib/pulp",)
PG_DATA_DIRS = ("var/lib/pgsql/data", "var/opt/rh/rh-postgresql12/lib/pgsql/data", "var/lib/postgresql/*/main")
MONGO_DIRS = ("var/lib/mongodb",)


@dataclass(frozen=True)
class Device:
    """What a directory lives on."""

    fstype: str | None
    rotational: bool | None
    nfs: bool
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"fstype": self.fstype, "rotational": self.rotational, "nfs": self.nfs, "source": self.source}

    def describe(self) -> str:
        kind = {True: "rotational disk", False: "non-rotational (SSD/NVMe or virtual)", None: "device type unknown"}
        parts = [self.fstype or "filesystem unknown"]
        if self.source:
            parts.append(f"on {self.source}")
        parts.append("network filesystem" if self.nfs else kind[self.rotational])
        return ", ".join(parts)


def _unescape(text: str) -> str:
    return text.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")


def mount_of(path: str, mountinfo: str = "/proc/self/mountinfo") -> tuple[str | None, str | None]:
    """(fstype, source) of the mount holding ``path``, from /proc/self/mountinfo."""
    real = os.path.realpath(path)
    best: tuple[int, str | None, str | None] = (-1, None, None)
    try:
        lines = Path(mountinfo).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None, None
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5:
            continue
        point = _unescape(fields[4])
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and len(point) > best[0]:
            rest = right.split()
            best = (len(point), rest[0] if rest else None, _unescape(rest[1]) if len(rest) > 1 else None)
    return best[1], best[2]


def rotational_of(path: str, sys_root: str = "/sys") -> bool | None:
    """Whether the block device under ``path`` is rotational (None for tmpfs, NFS, unknown)."""
    try:
        dev = os.stat(path).st_dev
    except OSError:
        return None
    node = Path(sys_root, "dev", "block", f"{os.major(dev)}:{os.minor(dev)}")
    try:
        node = node.resolve(strict=True)
    except OSError:
        return None
    if (node / "partition").exists():
        node = node.parent
    try:
        return (node / "queue" / "rotational").read_text().strip() == "1"
    except OSError:
        return None


def device_facts(path: str) -> Device:
    fstype, source = mount_of(path)
    nfs = fstype in NETWORK_FS if fstype else False
    return Device(fstype, None if nfs else rotational_of(path), nfs, source)


def default_directories(root: str = "/") -> tuple[list[str], list[str]]:
    """Existing data directories by role, one per device; returns (chosen, notes about skipped ones).

    For PostgreSQL the parent of the data directory is used when it is on the same device, so
    nothing is written inside the cluster's own directory.
    """
    import glob  # start-up: only when default_directories runs

    candidates: list[str] = []
    for pattern in (*PULP_DIRS, *PG_DATA_DIRS, *MONGO_DIRS):
        for found in sorted(glob.glob(os.path.join(root, pattern))):
            if not os.path.isdir(found):
                continue
            if pattern in PG_DATA_DIRS:
                parent = os.path.dirname(found.rstrip("/"))
                with contextlib.suppress(OSError):
                    if os.stat(parent).st_dev == os.stat(found).st_dev:
                        found = parent
            candidates.append(found)
    chosen: list[str] = []
    notes: list[str] = []
    seen: dict[int, str] = {}
    for path in candidates:
        dev = os.stat(path).st_dev
        if dev in seen:
            notes.append(f"{path} is on the same device as {seen[dev]}; tested once")
            continue
        seen[dev] = path
        chosen.append(path)
    return chosen, notes


def ram_bytes(meminfo: str = "/proc/meminfo") -> int:
    """MemTotal in bytes."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(meminfo).read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    raise InputError(f"cannot read MemTotal from {meminfo}; give the file size with --size")


def guide_file_size(ram: int) -> int:
    """storage-benchmark's file: whole GiB of RAM (rounded down, at least 1) times the factor."""
    return int(threshold("bench-file-ram-factor")) * max(1, ram // GIB) * GIB


@dataclass(frozen=True)
class StoragePlan:
    """What one run will do in each directory."""

    mode: str  # quick | buffered | direct
    size: int
    runtime: int | None
    jobs: tuple[FioJob, ...]

    def files(self) -> dict[str, int]:
        """Every data file the jobs create, with its largest size."""
        out: dict[str, int] = {}
        for job in self.jobs:
            name = job.data_file()
            out[name] = max(out.get(name, 0), job.size)
        return out

    def bytes_written(self) -> int:
        return sum(self.files().values())

    def estimated_seconds(self) -> float:
        """Upper-bound guess: every runtime cap plus writing the files at the 60 MB/s the guides still accept."""
        speed = float(threshold("bench-quick-read-min")) * 1024 * 1024
        layout = self.bytes_written() / speed
        if self.mode == "quick":
            return layout * 2  # lay out, then read the whole file back
        return layout + sum(job.runtime or 0 for job in self.jobs)


def plan(mode: str, *, size: int | None, runtime: int | None, async_engine: str = "libaio", ram: int | None = None) -> StoragePlan:
    """The jobs for ``mode`` with sizes and time bounds filled in from the cited defaults."""
    if mode == "quick":
        size = size or int(threshold("bench-quick-size"))
        job = FioJob("quick-seq-read", "job1", "read", size, direct=True, unlink=True)
        return StoragePlan(mode, size, None, (job,))
    direct = mode == "direct"
    if size is None:
        size = int(threshold("bench-direct-size")) if direct else guide_file_size(ram if ram is not None else ram_bytes())
    runtime = runtime or int(threshold("bench-runtime"))
    seq_bs = format_bytes(DIRECT_SEQ_BLOCK, "fio") if direct else None  # buffered: fio's default 4 KiB like storage-benchmark
    wal_size = min(size, int(threshold("bench-fsync-size")))
    depth = int(threshold("bench-lat-depth"))
    lat_bs = str(int(threshold("bench-lat-block")))
    data = DATA_FILE
    jobs = (
        FioJob("seq-read", "seq-read", "read", size, bs=seq_bs, direct=direct, runtime=runtime, filename=data),
        FioJob("seq-write", "seq-write", "write", size, bs=seq_bs, direct=direct, runtime=runtime, filename=data,
               end_fsync=not direct),
        FioJob("rand-rw", "rand-rw", "randrw", size, direct=direct, runtime=runtime, rwmixread=80, filename=data),
        FioJob("fsync-write", "fsync-write", "write", wal_size, bs=str(int(threshold("bench-fsync-block"))),
               ioengine="sync", fdatasync=1, runtime=runtime, filename=WAL_FILE),
        FioJob("lat-qd1", "lat-qd1", "randread", size, bs=lat_bs, direct=True, ioengine="psync", iodepth=1,
               runtime=runtime, filename=data),
        FioJob("lat-qd16", "lat-qd16", "randread", size, bs=lat_bs, direct=True, ioengine=async_engine,
               iodepth=depth, runtime=runtime, filename=data),
    )
    return StoragePlan(mode, size, runtime, jobs)


def required_space(storage_plan: StoragePlan, fs_total: int) -> int:
    """Bytes that must be free: every test file plus the reserve left for running services."""
    return storage_plan.bytes_written() + int(fs_total * float(threshold("bench-free-reserve-fraction")))


def check_space(directory: str, storage_plan: StoragePlan, usage: tuple[int, int, int] | None = None) -> None:
    """Refuse (InputError) when ``directory``'s filesystem cannot hold the test files plus the reserve."""
    import shutil  # start-up: only when check_space runs

    try:
        total, _, free = usage or shutil.disk_usage(directory)
    except OSError as exc:
        raise InputError(f"{directory}: {exc.strerror}") from exc
    needed = required_space(storage_plan, total)
    if free < needed:
        reserve = needed - storage_plan.bytes_written()
        raise InputError(
            f"not enough free space in {directory}: the test needs {format_gib(needed)} "
            f"({format_gib(storage_plan.bytes_written())} of test files + {format_gib(reserve)} kept free), "
            f"{format_gib(free)} free; use a smaller --size or --direct"
        )


def check_directory(directory: str) -> None:
    if not os.path.isdir(directory):
        raise InputError(f"{directory}: not a directory")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{directory}: not writable (run as root or choose a directory you can write)")


@dataclass
class Workspace:
    """A new subdirectory that holds every file of one run, and forgets nothing it created."""

    parent: str
    path: str = ""
    names: set[str] = field(default_factory=set)
    left: list[str] = field(default_factory=list)  # directories that had to stay after cleanup

    def __enter__(self) -> Workspace:
        try:
            self.path = tempfile.mkdtemp(prefix="foretune-bench-", dir=self.parent)
        except OSError as exc:
            raise InputError(f"cannot create a test directory in {self.parent}: {exc.strerror}") from exc
        return self

    def file(self, name: str) -> str:
        self.names.add(name)
        return os.path.join(self.path, name)

    def __exit__(self, *exc: object) -> None:
        self.left = self.cleanup()

    def cleanup(self) -> list[str]:
        """Remove the files foretune named, then the directory; return what had to stay."""
        if not self.path:
            return []
        previous = _ignore_sigint()
        try:
            left = []
            for name in sorted(self.names):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(self.path, name))
            try:
                os.rmdir(self.path)
            except FileNotFoundError:
                pass
            except OSError:
                left.append(self.path)  # holds files foretune did not create: leave them alone
            self.path = ""
            return left
        finally:
            _restore_sigint(previous)


def _ignore_sigint() -> Any:
    try:
        return signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        return None


def _restore_sigint(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def interrupts_handled(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` until the block ends (handlers are left alone outside the main thread)."""
    try:
        saved = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for sig, previous in saved.items():
            signal.signal(sig, previous)


def interrupts_raise() -> contextlib.AbstractContextManager[None]:
    """SIGINT and SIGTERM raise KeyboardInterrupt, so cleanup code in ``finally`` runs."""

    def _raise(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    return interrupts_handled(_raise)


def _threshold_ref(key: str) -> dict[str, Any]:
    entry = threshold_entries()[key]
    return {"key": key, "value": entry["value"], "unit": entry["unit"], "citation": entry["citation"]}


def _ms(value: float) -> str:
    """Milliseconds with three significant digits: ``0.0123``, ``2.97``, ``12.5``."""
    return f"{value:.3g}"


def _p99_verdict(p99: float | None, key: str, missing: str, over: str, within: str) -> tuple[str, dict[str, Any] | None, str]:
    """warn when the 99th percentile ``p99`` (ms) is above threshold ``key``, else pass; info when fio gave none.
    ``over`` and ``within`` word the result with ``{p99}`` and ``{limit}``."""
    if p99 is None:
        return "info", None, missing
    limit = float(threshold(key))
    shown = {"p99": _ms(p99), "limit": f"{limit:g}"}
    return ("warn", _threshold_ref(key), over.format(**shown)) if p99 > limit else ("pass", _threshold_ref(key), within.format(**shown))


def _r(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def judge(job: str, run: FioRun | None, device: Device, mode: str) -> tuple[str, dict[str, Any] | None, str]:
    """(verdict, threshold reference, message) for one job's figures."""
    if run is None:
        return "info", None, "not measured"
    if device.fstype in MEMORY_FS:
        return "info", None, f"{device.fstype} keeps files in RAM: these figures do not describe a disk"
    read = run.read.mb_s
    if job in ("quick-seq-read", "seq-read"):
        if read is None:
            return "fail", None, "the read job completed no I/O"
        verdict, ref, message = _judge_read(job, read, device, mode)
        if device.nfs and verdict == "pass":
            verdict = "warn"
        if device.nfs:
            message += f"; on {device.fstype}: Pulp on NFS is not recommended [bench-perf-brief-nfs]"
        return verdict, ref, message
    if job == "fsync-write":
        return _p99_verdict(run.sync_p99_ms, "bench-fsync-p99-warn", "this fio does not report flush latency (fio >= 3.5 does)",
                            "99 % of WAL-like flushes take up to {p99} ms (above {limit} ms): slow commits",
                            "99 % of WAL-like flushes finish within {p99} ms (limit {limit} ms)")
    block = format_bytes(threshold("bench-lat-block"))
    if job == "lat-qd1":
        return _p99_verdict(run.read.lat_p99_ms, "bench-lat-qd1-p99-warn", "no read latency reported",
                            f"random {block} reads: 99th percentile {{p99}} ms (above {{limit}} ms)",
                            f"random {block} reads: 99th percentile {{p99}} ms (limit {{limit}} ms)")
    notes = {
        "seq-write": "sequential write; the guides set no threshold for writes",
        "rand-rw": "random 80/20 read/write; expected to be much slower than sequential reads",
        "lat-qd16": f"random {block} reads with {threshold('bench-lat-depth')} in flight; for comparison with queue depth 1",
    }
    return "info", None, notes.get(job, "")


def _judge_read(job: str, read: float, device: Device, mode: str) -> tuple[str, dict[str, Any] | None, str]:
    if job == "quick-seq-read":
        limit = float(threshold("bench-quick-read-min"))
        ref = _threshold_ref("bench-quick-read-min")
        if read < limit:
            return "fail", ref, (f"{read:.1f} MB/s direct 4 KiB reads, below the {limit:g} MB/s foreman-maintain expects; "
                                 "one 4 KiB read at a time measures latency more than throughput, so confirm "
                                 "with the full benchmark (without --quick)")
        return "pass", ref, f"{read:.1f} MB/s direct 4 KiB reads (foreman-maintain expects {limit:g} MB/s)"
    minimum = float(threshold("bench-seq-read-min"))
    expected = float(threshold("bench-seq-read-expected"))
    ssd = float(threshold("bench-seq-read-ssd"))
    hdd_high = float(threshold("bench-seq-read-hdd-high"))
    how = f"direct {format_bytes(DIRECT_SEQ_BLOCK)} reads" if mode == "direct" else "buffered reads"
    if read < minimum:
        return "fail", _threshold_ref("bench-seq-read-min"), (
            f"{read:.1f} MB/s sequential {how}: below the {minimum:g} MB/s the guides require")
    if read < expected:
        return "warn", _threshold_ref("bench-seq-read-expected"), (
            f"{read:.1f} MB/s sequential {how}: below the {expected:g} MB/s expected (at least {minimum:g} required)")
    if device.rotational is False and not device.nfs and read < ssd:
        return "warn", _threshold_ref("bench-seq-read-ssd"), (
            f"{read:.1f} MB/s sequential {how} on a non-rotational device: local SSDs should reach {ssd:g} MB/s")
    if device.rotational:
        return "pass", _threshold_ref("bench-seq-read-expected"), (
            f"{read:.1f} MB/s sequential {how} (spinning disks: {expected:g}-{hdd_high:g} MB/s expected)")
    return "pass", _threshold_ref("bench-seq-read-expected"), (
        f"{read:.1f} MB/s sequential {how} (at least {expected:g} MB/s expected)")


def result(directory: str, job: str, run: FioRun | None, device: Device, mode: str, error: str | None = None) -> dict[str, Any]:
    """One storage result in the foretune-bench/1 shape."""
    verdict, ref, message = judge(job, run, device, mode)
    if error:
        verdict, ref, message = "info", None, f"not measured: {error}"
    p50 = p99 = None
    if run is not None:
        if job == "fsync-write":
            p50, p99 = run.sync_p50_ms, run.sync_p99_ms
        elif run.read.ios:
            p50, p99 = run.read.lat_p50_ms, run.read.lat_p99_ms
        else:
            p50, p99 = run.write.lat_p50_ms, run.write.lat_p99_ms
    return {
        "directory": directory,
        "job": job,
        "read_mb_s": _r(run.read.mb_s) if run else None,
        "write_mb_s": _r(run.write.mb_s) if run else None,
        "read_iops": _r(run.read.iops, 0) if run and run.read.ios else None,
        "write_iops": _r(run.write.iops, 0) if run and run.write.ios else None,
        "lat_p50_ms": _r(p50, 3),
        "lat_p99_ms": _r(p99, 3),
        "verdict": verdict,
        "threshold": ref,
        "message": message,
        "device": device.as_dict(),
    }


def run_directory(
    fio: str,
    directory: str,
    storage_plan: StoragePlan,
    *,
    on_job: Callable[[int, FioJob], None] | None = None,
    on_status: Callable[[float, int], None] | None = None,
    on_error: Callable[[str], None] | None = None,
    results: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Run every job of the plan inside a new subdirectory of ``directory`` and judge the results.

    Results are appended to ``results`` as each job finishes (so an interrupted run keeps them).
    The subdirectory and the files foretune named in it are removed however this returns.
    """
    from foretune.bench import fio as fio_mod  # start-up: fio's module loads only for a storage run, not for bench db

    device = device_facts(directory)
    results = [] if results is None else results
    workspace = Workspace(directory)
    with workspace:
        for name in storage_plan.files():
            workspace.file(name)
        for index, job in enumerate(storage_plan.jobs):
            if on_job:
                on_job(index, job)
            json_path = workspace.file(f"{job.name}.json")
            try:
                run = fio_mod.run(fio, job, workspace.path, json_path, on_status=on_status)
            except InputError as exc:
                if on_error:
                    on_error(str(exc))
                results.append(result(directory, job.name, None, device, storage_plan.mode, error=str(exc)))
                continue
            results.append(result(directory, job.name, run, device, storage_plan.mode))
    if workspace.left and on_error:
        on_error(f"left {workspace.left[0]} in place: it holds files foretune did not create")
    return results


def async_engine(fio: str) -> str:
    """The best asynchronous engine this fio offers for the queue-depth job."""
    import subprocess  # start-up: only when async_engine runs

    done = subprocess.run([fio, "--enghelp"], capture_output=True, text=True, check=False)
    engines = set(done.stdout.split())
    for engine in ("libaio", "io_uring", "posixaio"):
        if engine in engines:
            return engine
    return "psync"


def exit_status(results: Sequence[dict[str, Any]]) -> ExitStatus:
    """1 when a verdict failed, 2 when no job measured anything, else 0."""
    if all(r["message"].startswith("not measured") for r in results):
        return ExitStatus.USAGE
    return ExitStatus.FINDINGS if any(r["verdict"] == "fail" for r in results) else ExitStatus.OK


def verdict_counts(results: Sequence[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(VERDICT_NAMES, 0)
    for item in results:
        counts[item["verdict"]] = counts.get(item["verdict"], 0) + 1
    return counts
