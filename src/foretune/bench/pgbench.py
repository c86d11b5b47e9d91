"""pgbench in a temporary database: create, initialise, run read-write and read-only, always drop.

The database is named ``foretune_bench_<random>``; any other name - above all foreman, candlepin
and pulpcore - is refused before a statement is sent.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from foretune.bench.pgclient import Target, program, psql
from foretune.errors import InputError, UsageError

PREFIX = "foretune_bench_"
PROTECTED = frozenset({"foreman", "candlepin", "pulpcore", "pulp", "pulp_database", "postgres", "template0", "template1"})
INSTALL_HINT = "install it (RHEL: dnf install postgresql-contrib; Debian/Ubuntu: apt-get install postgresql-contrib)"
TESTS = ("read-write", "read-only")


def temp_name() -> str:
    return PREFIX + secrets.token_hex(4)


def check_name(name: str) -> str:
    """Return ``name`` if foretune may create, fill and drop it; UsageError otherwise."""
    if name.lower() in PROTECTED or not re.fullmatch(PREFIX + r"[0-9a-f]{8}", name):
        raise UsageError(f"refusing to benchmark in database {name!r}: only {PREFIX}<random> databases are used")
    return name


@dataclass(frozen=True)
class PgbenchRun:
    test: str
    clients: int
    tps: float | None
    lat_avg_ms: float | None
    lat_p95_ms: float | None

    def as_dict(self) -> dict[str, object]:
        def r(value: float | None, digits: int) -> float | None:
            return None if value is None else round(value, digits)

        return {"test": self.test, "clients": self.clients, "tps": r(self.tps, 1),
                "lat_avg_ms": r(self.lat_avg_ms, 3), "lat_p95_ms": r(self.lat_p95_ms, 3)}


_TPS = re.compile(r"^tps = ([\d.]+) \((without initial connection time|excluding connections establishing)\)", re.MULTILINE)
_TPS_ANY = re.compile(r"^tps = ([\d.]+)", re.MULTILINE)
_LAT = re.compile(r"^latency average = ([\d.]+) ms", re.MULTILINE)


def parse_summary(text: str) -> tuple[float | None, float | None]:
    """(TPS without connection set-up, average latency ms) from pgbench's report (PostgreSQL 9.6-17).

    >>> parse_summary("latency average = 1.250 ms\\ntps = 800.1 (without initial connection time)\\n")
    (800.1, 1.25)
    >>> parse_summary("tps = 701.0 (including connections establishing)\\ntps = 710.5 (excluding connections establishing)\\n")
    (710.5, None)
    """
    match = _TPS.search(text) or _TPS_ANY.search(text)
    lat = _LAT.search(text)
    return (float(match.group(1)) if match else None, float(lat.group(1)) if lat else None)


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Nearest-rank percentile.

    >>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 95)
    5.0
    >>> percentile(list(range(1, 101)), 95)
    95
    """
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)]


def log_latencies_ms(log_dir: str) -> list[float]:
    """Per-transaction latencies from pgbench ``--log`` files (third field, microseconds)."""
    out: list[float] = []
    for path in sorted(Path(log_dir).iterdir()):
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                fields = line.split()
                if len(fields) >= 3 and fields[2].isdigit():
                    out.append(int(fields[2]) / 1000.0)
    return out


class Session:
    """One benchmark database on ``target``; use as a context manager so it is always dropped."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.pgbench = program("pgbench", target, INSTALL_HINT)
        self.name = check_name(temp_name())
        self.created = False

    def __enter__(self) -> Session:
        # an interrupt waits until CREATE DATABASE is over: the server finishes it even when psql is killed
        seen: list[int] = []
        try:
            with _interrupts_deferred(seen):
                psql(self.target, self.target.default_db, f'CREATE DATABASE "{self.name}"', read_only=False)
                self.created = True
        except InputError:
            if not seen:
                raise
        if seen:  # psql may have been cancelled by the same Ctrl-C: report the interrupt, not the cancel
            self.drop()
            raise KeyboardInterrupt
        return self

    def __exit__(self, *exc: object) -> None:
        self.drop()

    def drop(self) -> None:
        """Drop the database (terminating its sessions first); safe to call twice."""
        if not self.created:
            return
        name = check_name(self.name)
        with _sigint_ignored():
            with contextlib.suppress(InputError):
                psql(self.target, self.target.default_db,
                     f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}' AND pid <> pg_backend_pid()",
                     read_only=False)
            psql(self.target, self.target.default_db, f'DROP DATABASE IF EXISTS "{name}"', read_only=False)
            self.created = False

    def _run(self, args: Sequence[str], what: str, timeout: float) -> str:
        argv = self.target.argv(self.pgbench, *args, self.target.dsn(self.name))
        try:
            done = subprocess.run(argv, capture_output=True, text=True, env=self.target.child_env(), timeout=timeout,
                                  check=False, cwd="/")
        except subprocess.TimeoutExpired as exc:
            raise InputError(f"pgbench {what} did not finish within {timeout:.0f}s") from exc
        if done.returncode != 0:
            lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()] or [f"exit status {done.returncode}"]
            raise InputError(f"pgbench {what} failed: {lines[-1].strip()}")
        return done.stdout + done.stderr

    def initialise(self, scale: int) -> None:
        self._run(["-i", "-q", "-s", str(scale)], "initialisation", timeout=3600)

    def run(self, test: str, clients: int, seconds: int) -> PgbenchRun:
        threads = max(1, min(clients, os.cpu_count() or 1))
        with self._log_dir() as log_dir:
            args = ["-n", "-c", str(clients), "-j", str(threads), "-T", str(seconds), "-l", f"--log-prefix={log_dir}/tx"]
            if test == "read-only":
                args.append("-S")
            text = self._run(args, f"{test} with {clients} clients", timeout=seconds * 3 + 60)
            latencies = log_latencies_ms(log_dir)
        tps, avg = parse_summary(text)
        return PgbenchRun(test, clients, tps, avg, percentile(latencies, 95))

    @contextlib.contextmanager
    def _log_dir(self) -> Iterator[str]:
        path = tempfile.mkdtemp(prefix="foretune-pgbench-")
        try:
            if self.target.run_as:
                import pwd  # start-up: only when _log_dir runs

                os.chown(path, pwd.getpwnam(self.target.run_as).pw_uid, -1)
            yield path
        finally:
            shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    import signal  # start-up: signal loads only while pgbench runs

    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _interrupts_deferred(seen: list[int]) -> contextlib.AbstractContextManager[None]:
    """SIGINT and SIGTERM are appended to ``seen`` instead of acting until the block ends."""
    from foretune.bench.storage import interrupts_handled  # start-up: only when _interrupts_deferred runs

    return interrupts_handled(lambda signum, frame: seen.append(signum))


def benchmark(
    target: Target,
    *,
    scale: int,
    clients: Sequence[int],
    seconds: int,
    on_step: Callable[[int, int, str], None] | None = None,
    runs: list[PgbenchRun] | None = None,
) -> list[PgbenchRun]:
    """Every test at every client count in one temporary database, dropped however this ends.

    Runs are appended to ``runs`` as they finish, so an interrupted benchmark keeps them.
    """
    runs = [] if runs is None else runs
    steps = 1 + len(TESTS) * len(clients)
    with Session(target) as session:
        if on_step:
            on_step(0, steps, f"initialising scale {scale}")
        session.initialise(scale)
        step = 1
        for test in TESTS:
            for count in clients:
                if on_step:
                    on_step(step, steps, f"{test}, {count} clients")
                runs.append(session.run(test, count, seconds))
                step += 1
    return runs


def version(target: Target) -> str:
    pgbench = program("pgbench", target, INSTALL_HINT)
    done = subprocess.run([pgbench, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "pgbench"
