"""fio: build a job's command line, run it, and parse its JSON output across fio versions.

JSON differences handled (see tests/fixtures/fio/README.md for the recorded samples):

- fio 3.x reports latencies in nanoseconds (``clat_ns``, ``lat_ns``), ``io_bytes`` in bytes and
  adds ``bw_bytes``; fdatasync/fsync latencies appear under ``sync`` (fio >= 3.5).
- fio 2.x reports latencies in microseconds (``clat``, ``lat``) and ``io_bytes`` in KiB.
- Both report ``bw`` in KiB/s and omit ``percentile`` when a direction saw no I/O.
- Warnings may precede the JSON document on stdout ("note: ...", "fio: ...").

Throughput is reported the way foreman-maintain reports it: KiB/s divided by 1024, shown as MB/s
(binary multiples, as everywhere in foretune).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

from foretune.errors import InputError
from foretune.units import MIB, format_bytes

INSTALL_HINT = "install it (RHEL: dnf install fio; Debian/Ubuntu: apt-get install fio)"


@dataclass(frozen=True)
class FioJob:
    """One fio job as foretune runs it; ``name`` is foretune's job id, ``fio_name`` fio's --name."""

    name: str
    fio_name: str
    rw: str
    size: int
    bs: str | None = None
    direct: bool = False
    ioengine: str | None = None
    iodepth: int | None = None
    runtime: int | None = None
    rwmixread: int | None = None
    fdatasync: int | None = None
    end_fsync: bool = False  # flush at the end so buffered writes are timed to the disk
    filename: str | None = None
    unlink: bool = False

    def data_file(self) -> str:
        """The file fio creates in the directory (fio's default name is ``<name>.0.0``)."""
        return self.filename or f"{self.fio_name}.0.0"


def fio_path(environ: Mapping[str, str] | None = None) -> str:
    """The fio executable, or an InputError naming the package to install."""
    path = shutil.which("fio", path=(environ or os.environ).get("PATH"))
    if not path:
        raise InputError(f"fio not found: {INSTALL_HINT}")
    return path


def size_arg(size: int) -> str:
    """fio's size syntax: ``1g`` for whole GiB (as foreman-maintain writes it), else ``Nm``/``Nk``/bytes."""
    return format_bytes(size, "fio")


def job_args(job: FioJob, directory: str) -> list[str]:
    """The job's fio options, in foreman-maintain's order for the options it uses."""
    args = [f"--name={job.fio_name}", f"--rw={job.rw}", f"--size={size_arg(job.size)}", "--output-format=json"]
    args.append(f"--directory={directory}")
    if job.filename:
        args.append(f"--filename={job.filename}")
    if job.bs:
        args.append(f"--bs={job.bs}")
    if job.direct:
        args.append("--direct=1")
    if job.ioengine:
        args.append(f"--ioengine={job.ioengine}")
    if job.iodepth:
        args.append(f"--iodepth={job.iodepth}")
    if job.rwmixread is not None:
        args.append(f"--rwmixread={job.rwmixread}")
    if job.fdatasync:
        args.append(f"--fdatasync={job.fdatasync}")
    if job.end_fsync:
        args.append("--end_fsync=1")
    if job.runtime:
        args.append(f"--runtime={job.runtime}")
    if job.unlink:
        args.append("--unlink=1")
    return args


@dataclass(frozen=True)
class DirectionStats:
    """One I/O direction (read or write) of a fio run; latencies are completion latencies."""

    ios: int
    bw_bytes: float  # bytes per second
    iops: float
    lat_p50_ms: float | None
    lat_p99_ms: float | None

    @property
    def mb_s(self) -> float | None:
        return self.bw_bytes / MIB if self.ios else None


@dataclass(frozen=True)
class FioRun:
    """Parsed fio output, summed over the jobs in it."""

    version: str
    read: DirectionStats
    write: DirectionStats
    sync_p50_ms: float | None = None
    sync_p99_ms: float | None = None


def extract_json(text: str) -> dict[str, Any]:
    """The JSON document in fio's output, skipping warning lines printed before it."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"^\{", text, re.MULTILINE):
        try:
            doc, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict) and "jobs" in doc:
            return doc
    raise InputError("fio output holds no JSON result (is this fio --output-format=json output?)")


def _percentile(block: Mapping[str, Any], wanted: float) -> float | None:
    table = block.get("percentile")
    if not isinstance(table, dict):
        return None
    for key, value in table.items():
        try:
            if abs(float(key) - wanted) < 1e-6:
                return float(value)
        except (TypeError, ValueError):
            continue
    return None


def _latency_block(direction: Mapping[str, Any]) -> tuple[Mapping[str, Any], float]:
    """The completion-latency block and the factor that turns its unit into milliseconds."""
    if isinstance(direction.get("clat_ns"), dict):
        return direction["clat_ns"], 1e-6
    if isinstance(direction.get("clat"), dict):  # fio 2.x: microseconds
        return direction["clat"], 1e-3
    return {}, 1.0


def _direction(jobs: Sequence[Mapping[str, Any]], key: str) -> DirectionStats:
    ios, bw, iops = 0, 0.0, 0.0
    p50: list[float] = []
    p99: list[float] = []
    for job in jobs:
        block = job.get(key) or {}
        if not isinstance(block, dict):
            continue
        count = int(block.get("total_ios") or 0)
        if not count and block.get("io_bytes"):  # fio 2.1 and older lack total_ios
            count = max(1, round(float(block.get("iops") or 0) * float(block.get("runtime") or 0) / 1000))
        if not count:
            continue
        ios += count
        bw += float(block["bw_bytes"]) if "bw_bytes" in block else float(block.get("bw") or 0) * 1024
        iops += float(block.get("iops") or 0)
        lat, factor = _latency_block(block)
        for wanted, out in ((50.0, p50), (99.0, p99)):
            value = _percentile(lat, wanted)
            if value is not None:
                out.append(value * factor)
    return DirectionStats(ios, bw, iops, max(p50) if p50 else None, max(p99) if p99 else None)


def parse(text: str) -> FioRun:
    """Parse fio ``--output-format=json`` output (fio 2.x or 3.x)."""
    doc = extract_json(text)
    jobs = [j for j in doc.get("jobs") or [] if isinstance(j, dict)]
    if not jobs:
        raise InputError("fio output lists no jobs")
    for job in jobs:
        if job.get("error"):
            raise InputError(f"fio job {job.get('jobname', '?')} failed with error {job['error']}")
    sync50: list[float] = []
    sync99: list[float] = []
    for job in jobs:
        sync = job.get("sync")
        if isinstance(sync, dict) and isinstance(sync.get("lat_ns"), dict):  # total_ios stays 0 here
            for wanted, out in ((50.0, sync50), (99.0, sync99)):
                value = _percentile(sync["lat_ns"], wanted)
                if value is not None:
                    out.append(value * 1e-6)
    return FioRun(
        version=str(doc.get("fio version", "fio")),
        read=_direction(jobs, "read"),
        write=_direction(jobs, "write"),
        sync_p50_ms=max(sync50) if sync50 else None,
        sync_p99_ms=max(sync99) if sync99 else None,
    )


_ETA = re.compile(r"\[(\d+(?:\.\d+)?)%\].*\[eta (?:(\d+)d:)?(?:(\d+)h:)?(\d+)m:(\d+)s\]")


def parse_eta(line: str) -> tuple[float, int] | None:
    """Percent done and seconds left from one fio status line, or None.

    >>> parse_eta("Jobs: 1 (f=1): [R(1)][30.0%][r=26.8MiB/s][r=6870 IOPS][eta 00m:07s]")
    (30.0, 7)
    >>> parse_eta("Jobs: 1 (f=1): [W(1)][2.1%][w=1MiB/s][eta 01h:02m:03s]")
    (2.1, 3723)
    """
    match = _ETA.search(line)
    if not match:
        return None
    days, hours, minutes, seconds = (int(g) if g else 0 for g in match.groups()[1:])
    return float(match.group(1)), ((days * 24 + hours) * 60 + minutes) * 60 + seconds


def version(fio: str) -> str:
    """``fio --version`` output, e.g. ``fio-3.33``."""
    done = subprocess.run([fio, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "fio"


def run(
    fio: str,
    job: FioJob,
    directory: str,
    json_path: str,
    *,
    on_status: Callable[[float, int], None] | None = None,
) -> FioRun:
    """Run one job writing its JSON to ``json_path``; report (percent, seconds left) while it runs.

    The fio process never outlives this call: on any exception (including KeyboardInterrupt)
    it is terminated and reaped before the exception propagates.
    """
    argv = [fio, *job_args(job, directory), f"--output={json_path}"]
    if on_status:
        argv += ["--eta=always", "--eta-newline=1"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    messages: list[str] = []
    try:
        assert proc.stdout is not None
        pending = b""
        while True:
            chunk = os.read(proc.stdout.fileno(), 4096)
            if not chunk:
                break
            pending += chunk
            *lines, pending = re.split(rb"[\r\n]", pending)
            for raw in lines:
                line = raw.decode("utf-8", "replace").strip()
                status = parse_eta(line)
                if status is not None:
                    if on_status:
                        on_status(*status)
                elif line and not line.startswith("Jobs:"):
                    messages.append(line)
        returncode = proc.wait()
    finally:
        _reap(proc)
    if returncode != 0:
        detail = messages[-1] if messages else f"exit status {returncode}"
        raise InputError(f"fio {job.name} failed: {detail}")
    try:
        with open(json_path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as exc:
        raise InputError(f"fio {job.name} wrote no result: {exc.strerror}") from exc
    return parse(text)


def _reap(proc: subprocess.Popen[bytes]) -> None:
    import signal  # start-up: signal loads only to stop a running fio

    try:  # a second Ctrl-C must not leave fio running while its files are removed
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        previous = None
    try:
        _stop(proc)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout:
        proc.stdout.close()
