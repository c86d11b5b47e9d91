"""``foretune bench storage|db``: fio and pgbench with verdicts, safely."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from foretune.bench.progress import Progress, format_duration
from foretune.cli import add_color_option, new_parser
from foretune.commands._options import add_output, emit, output_format, positive
from foretune.env import Environment, ExitStatus
from foretune.errors import UsageError
from foretune.knowledge import threshold
from foretune.term import plural
from foretune.units import format_bytes, format_gib, parse_size

if TYPE_CHECKING:
    from foretune.bench.storage import StoragePlan

DESCRIPTION = """\
Benchmark storage with fio or the database with pgbench and judge the figures against the
thresholds in the Foreman/Satellite/orcharhino tuning guides. Needs the real fio (package fio)
and pgbench (package postgresql-contrib)."""

STORAGE_DESCRIPTION = """\
Benchmark the storage under each DIR with fio (default: /var/lib/pulp, the PostgreSQL directory
and, on old versions, /var/lib/mongodb - those that exist, one per device).

  --quick     foreman-maintain's check ({quick_size} sequential 4 KiB direct read), verdict against {quick_min} MB/s
  (default)   storage-benchmark's read, write and 80/20 random jobs on a file of {ram_factor} x RAM (buffered),
              each bounded by --runtime, plus WAL-like fdatasync writes and direct random-read
              latency at queue depth 1 and {depth}
  --direct    the same jobs with O_DIRECT on a {direct_size} file: minutes instead of an hour

Verdicts: sequential reads fail below {read_min} MB/s, warn below {read_expected} MB/s, and warn below
{read_ssd} MB/s on non-rotational local devices; network filesystems warn.
Safety: checks free space first (test files + {reserve:g} % of the filesystem), writes only inside a
new foretune-bench-* subdirectory and removes it on success, failure and Ctrl-C. Runs that write
{confirm_size} or more or may take {confirm_time} or more ask first; without a terminal they need --yes.
Exit status: 0 all verdicts pass/warn/info, 1 a verdict failed, 2 bad input or nothing measured, 3 an
internal error (a bug; `foretune --debug bench ...` shows the traceback).
MB/s are MiB per second, as foreman-maintain computes them."""

DB_DESCRIPTION = """\
Run pgbench (read-write and read-only, at a few client counts, for a bounded time each) in a new
temporary database foretune_bench_<random> and report TPS and latency (average and 95th
percentile). The database is dropped afterwards, also after a failure or Ctrl-C; foreman,
candlepin and pulpcore are never touched. Target: --dsn, else the libpq environment (PGHOST,
PGUSER, ...), else the local socket as user postgres."""


def _client_list(text: str) -> list[int]:
    """Comma-separated client counts, each a plausible whole number of at least 1."""

    values = [positive(part.strip()) for part in text.split(",") if part.strip()]
    if not values:
        raise argparse.ArgumentTypeError(f"expected comma-separated client counts, e.g. 1,4,16: {text[:40]!r}")
    return values


def _add_output(parser: argparse.ArgumentParser) -> None:
    add_output(parser, ("text", "json"), "text",
               help="text (the summary, default) or json (the foretune-bench/1 document `foretune audit --bench` reads); "
                    "--output writes JSON unless it ends in .txt, and the summary is still printed")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help=argparse.SUPPRESS)
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask before a long or large run")


def _gib(key: str) -> str:
    return format_bytes(int(threshold(key)), "GiB", places=None)


def _storage_description() -> str:
    return STORAGE_DESCRIPTION.format(
        quick_size=_gib("bench-quick-size"),
        quick_min=threshold("bench-quick-read-min"),
        ram_factor=threshold("bench-file-ram-factor"),
        depth=threshold("bench-lat-depth"),
        direct_size=_gib("bench-direct-size"),
        read_min=threshold("bench-seq-read-min"),
        read_expected=threshold("bench-seq-read-expected"),
        read_ssd=threshold("bench-seq-read-ssd"),
        reserve=float(threshold("bench-free-reserve-fraction")) * 100,
        confirm_size=_gib("bench-confirm-size"),
        confirm_time=format_duration(int(threshold("bench-confirm-seconds"))),
    )


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, DESCRIPTION, "foretune bench storage --quick /var/lib/pulp")
    sub = parser.add_subparsers(dest="what", metavar="{storage,db}")
    sub.required = True
    storage = sub.add_parser(
        "storage", help="fio jobs on the data directories, with verdicts", description=_storage_description(),
        epilog="example:\n  foretune bench storage --direct --runtime 30 --output bench.json /var/lib/pulp",
    )
    storage.add_argument("directories", nargs="*", metavar="DIR", help="directory to test (its filesystem is what is measured)")
    mode = storage.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="only foreman-maintain's quick read check")
    mode.add_argument("--direct", action="store_true", help="O_DIRECT jobs on a smaller file instead of buffered jobs on 2 x RAM")
    storage.add_argument("--size", metavar="SIZE", help=f"test file size, e.g. 8G (default: {_gib('bench-quick-size')} with --quick, "
                         f"{threshold('bench-file-ram-factor')} x RAM buffered, {_gib('bench-direct-size')} with --direct)")
    storage.add_argument("--runtime", metavar="SECONDS", type=positive, help=f"time bound per job (default {threshold('bench-runtime')}; not used by --quick)")
    _add_output(storage)
    db = sub.add_parser(
        "db", help="pgbench in a temporary database", description=DB_DESCRIPTION,
        epilog="example:\n  foretune bench db --clients 1,8 --time 30 --output db-bench.json",
    )
    db.add_argument("--dsn", metavar="CONNINFO", help="libpq conninfo or postgresql:// URI of the server (dbname is ignored)")
    db.add_argument("--scale", type=positive, metavar="N", help=f"pgbench scale factor (default {threshold('bench-db-scale')})")
    db.add_argument("--clients", type=_client_list, metavar="N,N,...", help=f"client counts (default {','.join(str(c) for c in threshold('bench-db-clients'))})")
    db.add_argument("--time", type=positive, metavar="SECONDS", help=f"seconds per pgbench run (default {threshold('bench-db-seconds')})")
    _add_output(db)
    add_color_option(storage, sub=True)
    add_color_option(db, sub=True)
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    if args.what == "storage":
        return run_storage(args, env)
    return run_db(args, env)


def confirm(env: Environment, what: str, yes: bool) -> None:
    """Ask on the terminal; refuse without one unless ``--yes``."""
    if yes:
        return
    if not env.stdin_isatty:
        raise UsageError(f"{what}; no terminal to ask on, so rerun with --yes to confirm")
    env.stderr.write(f"foretune: {what}. Continue? [y/N] ")
    env.stderr.flush()
    answer = env.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise UsageError("cancelled; nothing was written")


def _emit(doc: dict[str, Any], text: str, args: argparse.Namespace, env: Environment) -> None:
    """JSON or the summary to --output or standard output; a JSON file still leaves the summary on the terminal."""
    from foretune.bench import results  # start-up: loads only when a benchmark's results are written

    fmt = output_format(args)
    if args.output and not args.format and not args.output.lower().endswith(".txt"):
        fmt = "json"  # a results file is for `foretune audit --bench`, whatever its name
    if args.output and fmt == "json":
        results.write(doc, args.output)
        env.note(f"wrote {args.output}")
        if args.format != "json":  # --output x.json alone: the figures still show
            env.stdout.write(text)
        return

    emit(args, env, results.dumps(doc) if fmt == "json" else text)


def run_storage(args: argparse.Namespace, env: Environment) -> int:
    from foretune.bench import fio, results, storage, text  # start-up: loads only when `bench storage` runs

    if args.quick and args.runtime:
        raise UsageError("--runtime does not apply to --quick: foreman-maintain's check reads the whole file")
    mode = "quick" if args.quick else "direct" if args.direct else "buffered"
    size = parse_size(args.size) if args.size else None
    directories: list[str] = []
    for given in args.directories:  # each filesystem location once, in the order given
        if os.path.realpath(given) not in {os.path.realpath(d) for d in directories}:
            directories.append(os.path.abspath(given))
    if not directories:
        directories, notes = storage.default_directories()
        for note in notes:
            env.note(note)
        if not directories:
            raise UsageError("none of /var/lib/pulp, the PostgreSQL or MongoDB directories exists here; name a DIR to test")
    for directory in directories:
        storage.check_directory(directory)
    fio_bin = fio.fio_path(env.environ)
    engine = "psync" if mode == "quick" else storage.async_engine(fio_bin)
    plan = storage.plan(mode, size=size, runtime=args.runtime, async_engine=engine)
    if mode == "quick" and plan.size != int(threshold("bench-quick-size")):
        env.note(f"--size {args.size}: figures are comparable with foreman-maintain's only at {_gib('bench-quick-size')}")
    for directory in directories:
        storage.check_space(directory, plan)
    seconds = plan.estimated_seconds() * len(directories)
    big = plan.bytes_written() >= int(threshold("bench-confirm-size"))
    long = seconds >= int(threshold("bench-confirm-seconds"))
    if big or long:

        confirm(env, f"this writes {format_gib(plan.bytes_written())} in {', '.join(directories)} and may take up to "
                f"{format_duration(seconds)}", args.yes)
    progress = Progress(env.stderr, len(plan.jobs) * len(directories), enabled=_isatty(env.stderr),
                        color=env.progress_color)
    all_results: list[dict[str, Any]] = []
    try:
        with storage.interrupts_raise():
            for d_index, directory in enumerate(directories):
                _storage_directory(fio_bin, directory, plan, progress, d_index, len(directories), env, all_results)
    except KeyboardInterrupt:
        progress.clear()
        if all_results:  # what finished before the interrupt stays usable
            env.note(f"interrupted: showing the finished {plural(len(all_results), 'job')}")
            doc = results.document("storage", all_results, tool_version=fio.version(fio_bin), mode=mode)
            _emit(doc, text.storage_summary(doc, color=env.color), args, env)
        raise
    finally:
        progress.clear()
    doc = results.document("storage", all_results, tool_version=fio.version(fio_bin), mode=mode)
    _emit(doc, text.storage_summary(doc, color=env.color), args, env)
    return storage.exit_status(all_results)


def _storage_directory(fio_bin: str, directory: str, plan: StoragePlan, progress: Any, d_index: int, d_count: int,
                       env: Environment, into: list[dict[str, Any]]) -> None:
    from foretune.bench import storage  # start-up: loads only when `bench storage` runs

    jobs = len(plan.jobs)

    def on_job(index: int, job: Any) -> None:
        later = list(plan.jobs[index + 1:]) + list(plan.jobs) * (d_count - d_index - 1)
        unbounded = any(j.runtime is None for j in later)  # a job without a time bound has no ETA before it starts
        after = None if unbounded else float(sum(j.runtime or 0 for j in later))
        estimate = float(job.runtime) if job.runtime else None
        progress.start(d_index * jobs + index, f"{job.name} {directory}", after, estimate)

    def on_status(percent: float, eta: int) -> None:
        progress.update(percent, float(eta))

    def on_error(message: str) -> None:
        progress.clear()
        env.warn(message)

    storage.run_directory(fio_bin, directory, plan, on_job=on_job, on_status=on_status, on_error=on_error, results=into)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def run_db(args: argparse.Namespace, env: Environment) -> int:
    from foretune.bench import pgbench, pgclient, results, text  # start-up: loads only when `bench db` runs
    from foretune.bench.storage import interrupts_raise  # start-up: loads only when `bench db` runs

    target = pgclient.resolve(args.dsn, env.environ)
    scale = args.scale or int(threshold("bench-db-scale"))
    clients = args.clients or [int(c) for c in threshold("bench-db-clients")]
    seconds = args.time or int(threshold("bench-db-seconds"))
    tool = pgbench.version(target)
    total = seconds * len(clients) * len(pgbench.TESTS)
    if total >= int(threshold("bench-db-confirm-seconds")):
        confirm(env, f"this loads the database server for about {format_duration(total)}", args.yes)
    runs: list[pgbench.PgbenchRun] = []
    settings = f"scale {scale}, {seconds} s per run"
    progress = Progress(env.stderr, 1 + len(clients) * len(pgbench.TESTS), enabled=_isatty(env.stderr),
                        color=env.progress_color)

    def on_step(step: int, steps: int, label: str) -> None:
        progress.steps = steps
        progress.start(step, label, remaining_after=(steps - step - 1) * seconds, estimate=seconds)

    try:
        with interrupts_raise():
            pgbench.benchmark(target, scale=scale, clients=clients, seconds=seconds, on_step=on_step, runs=runs)
    except KeyboardInterrupt:
        progress.clear()
        if runs:  # what finished before the interrupt stays usable
            env.note(f"interrupted: showing the finished {plural(len(runs), 'run')}")
            doc = results.document("db", [r.as_dict() for r in runs], tool_version=tool, mode="pgbench")
            _emit(doc, text.db_summary(doc, settings=settings), args, env)
        raise
    progress.clear()
    doc = results.document("db", [r.as_dict() for r in runs], tool_version=tool, mode="pgbench")
    _emit(doc, text.db_summary(doc, settings=settings), args, env)
    return ExitStatus.OK
