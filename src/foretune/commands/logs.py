"""``foretune logs``: what the server's own logs say — latency per endpoint, 503s, exhaustion, before/after."""

from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format, positive
from foretune.env import ExitStatus
from foretune.errors import InputError, UsageError

if TYPE_CHECKING:
    from pathlib import Path

    from foretune.env import Environment
    from foretune.facts.model import FactSet
    from foretune.logs.timeutil import Window


def _window(text: str) -> tuple[str | None, str | None]:
    if ".." not in text:
        raise argparse.ArgumentTypeError(f"not a range: {text!r} (use 'SINCE..UNTIL', either side may be empty)")
    since, until = (part.strip() or None for part in text.split("..", 1))
    return since, until


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Read the server's own logs — Foreman production.log, Apache access/error, PostgreSQL, "
                        "Candlepin, system logs, a Capsule's mosquitto log and the task exports of a sosreport — and report latency "
                        "per endpoint, HTTP 503 bursts, connection and memory exhaustion, MQTT clients and refused "
                        "connections, concurrency against the Puma capacity, registration flows per host and task durations. Rotated .gz/.xz/-YYYYMMDD files are joined in time order. --compare sets two "
                        "sources (or two --window ranges of one) side by side. The report names the logs it looked for and did not find, and "
                        "its verdict covers only the logs it read. Exit 0 when it read a log of Foreman's (a task export "
                        "alone is one; on a Capsule, any log it writes), or 2 for usage or input errors (a source with "
                        "no Foreman log is one).",
                        "foretune logs sosreport-sat.example.com-2026-11-20.tar.xz --since 2026-11-19 --format html --output logs.html")
    parser.add_argument("sources", nargs="*", metavar="SOURCE",
                        help="sosreport directory or tarball, snapshot (the last week's logs it carries), log files or "
                             "directories of logs (default: this host's logs)")
    parser.add_argument("--since", metavar="WHEN", help="only lines at or after WHEN (YYYY-MM-DD or 'YYYY-MM-DD HH:MM', server time)")
    parser.add_argument("--until", metavar="WHEN", help="only lines before WHEN")
    parser.add_argument("--compare", action="store_true",
                        help="compare two SOURCEs (before, after), or one SOURCE over two --window ranges")
    parser.add_argument("--window", type=_window, action="append", default=[], metavar="SINCE..UNTIL",
                        help="with --compare and one SOURCE: the before and after ranges (give it twice)")
    parser.add_argument("--puma-capacity", type=positive, metavar="N",
                        help="Puma workers x threads, when the source does not say (log files given alone)")
    parser.add_argument("--jobs", type=positive, metavar="N", help="processes for large inputs (default: the CPU count)")
    parser.add_argument("--top", type=positive, default=15, metavar="N", help="rows per table in text and markdown (default: 15)")
    add_output(parser, ("text", "json", "html", "markdown"), "text")
    return parser


def _when(text: str | None, flag: str) -> int | None:
    from foretune.logs.timeutil import parse_when  # start-up: only for a `logs` run, not --help

    if text is None:
        return None
    try:
        return parse_when(text)
    except ValueError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def _range(since: str | None, until: str | None, flags: tuple[str, str]) -> Window:
    """The window from ``since`` to ``until``; one that ends before (or as) it starts is a usage error."""
    from foretune.logs.timeutil import Window  # start-up: only for a `logs` run, not --help

    window = Window(_when(since, flags[0]), _when(until, flags[1]))
    if window.since is not None and window.until is not None and window.since >= window.until:
        name = flags[0] if flags[0] == flags[1] else f"{flags[0]}/{flags[1]}"
        raise UsageError(f"{name}: {since} is not before {until}, so no line could be in the range")
    return window


# a Capsule's own logs: their presence (with no production.log) tells a Capsule whose sosreport names no role; the
# Smart Proxy's is named in the report, not analysed
CAPSULE_LOGS = {"/var/log/foreman-proxy/proxy.log*": "Smart Proxy log", "/var/log/mosquitto/mosquitto.log*": "mosquitto log"}
UNREAD = ("Smart Proxy log",)


def run(args: argparse.Namespace, env: Environment) -> int:
    if args.compare:
        if len(args.sources) == 2 and not args.window:
            windows = [_range(args.since, args.until, ("--since", "--until"))] * 2
            sources: list[list[str]] = [[args.sources[0]], [args.sources[1]]]
        elif len(args.sources) <= 1 and len(args.window) == 2:
            windows = [_range(a, b, ("--window", "--window")) for a, b in args.window]
            sources = [args.sources, args.sources]
        else:
            raise UsageError("--compare needs two SOURCEs, or one SOURCE (or none: this host) and --window given twice")
        before = analyze(sources[0], windows[0], args, env, label="before")
        after = analyze(sources[1], windows[1], args, env, label="after")
        from foretune.logs.compare import compare  # start-up: only for a `logs` run, not --help

        report = compare(before, after)
        hosts = (before.get("host"), after.get("host"))
        if all(hosts) and hosts[0] != hosts[1]:  # a migration may compare two servers on purpose: said, not refused
            env.warn(f"--compare: before is {hosts[0]}, after is {hosts[1]}: two different hosts, so the changes "
                     "below are between servers, not a before/after of one")
    else:
        if args.window:
            raise UsageError("--window is for --compare; use --since/--until for one range")
        report = analyze(args.sources, _range(args.since, args.until, ("--since", "--until")), args, env)
    from foretune.host.redact import redact_data  # start-up: only for a `logs` run, not --help

    report = redact_data(report)  # every text the logs hold (request lines, messages) may carry a secret
    from foretune.commands.audit import _generated, _paper  # start-up: only for a `logs` run, not --help

    text = render(report, output_format(args), color=env.color and not args.output, top=args.top,
                  width=None if args.output else env.width, generated=_generated(env),
                  paper=_paper(env))
    emit(args, env, text)
    return ExitStatus.OK


def analyze(sources: list[str], window: Window, args: argparse.Namespace, env: Environment, label: str = "") -> dict[str, Any]:
    """Read ``sources`` (none: this host) over ``window`` into a report."""
    from pathlib import Path  # start-up: only for a `logs` run, not --help

    from foretune.facts.extract import extract  # start-up: only for a `logs` run, not --help
    from foretune.logs.scan import Options, from_paths, read_files  # start-up: only for a `logs` run, not --help
    from foretune.logs.source import scan_source  # start-up: only for a `logs` run, not --help
    from foretune.logs.summary import build  # start-up: only for a `logs` run, not --help
    from foretune.report.logs_data import rendered  # start-up: only for a `logs` run, not --help

    progress = _progress(env, label)
    if not sources or sources == ["live"]:
        from foretune.host.sources.live import LiveHost  # start-up: only for a `logs` run, not --help

        src: Any = LiveHost(env.environ)
    elif len(sources) == 1 and _is_sosreport(sources[0]):
        path = Path(sources[0])
        if path.is_dir():
            from foretune.host.sources.sosreport import (
                SosreportDirectory,  # start-up: only for a `logs` run, not --help
            )

            src = SosreportDirectory(path)
        else:
            from foretune.logs.source import open_tarball  # start-up: only for a `logs` run, not --help

            src = open_tarball(path, Options(window=window), progress=progress)
    else:
        for s in sources:
            if not os.path.exists(s):
                raise InputError(f"{s}: no such file or directory")
            if _is_sosreport(s):
                raise UsageError(f"{s}: give a sosreport as the only SOURCE (or use --compare)")
            if s.lower().endswith((".json", ".json.gz")) and len(sources) == 1:
                return _snapshot(Path(s), window, args)
        problems: list[str] = []
        files = from_paths(sources, problems)
        if not files:
            raise InputError("no log foretune reads in " + ", ".join(sources) + (f" ({problems[0]})" if problems else ""))
        scan = read_files(files, Options(window=window), jobs=args.jobs, progress=progress)
        _done(progress)
        _require_foreman(scan, ", ".join(sources), named=True)
        capacity = args.puma_capacity
        return rendered(build(scan, source=", ".join(sources), capacity=capacity,
                              capacity_from="--puma-capacity" if capacity else None, problems=problems))
    found = scan_source(src, Options(window=window), jobs=args.jobs, progress=progress)
    _done(progress)
    facts = extract(src)
    capacity, where = _capacity(args, facts)
    capsule = _capsule_logs(src, facts, found)
    if found is None or not found.files:
        damage = getattr(src, "incomplete", None)  # a cut archive: the logs may be in the part that is missing
        looked = ("a Capsule, with no Apache, system or mosquitto log" if capsule is not None else
                  "no production.log, Apache, PostgreSQL, Candlepin, system log or task export found")
        raise InputError(f"{src.label}: {looked}"
                         + (f" (the archive is {damage}; the logs may be in the missing part)" if damage else "")
                         + (f"; its {', '.join(capsule)} is there, which foretune does not analyse" if capsule else ""))
    if capsule is None:
        _require_foreman(found, src.label)
    # the archive's own damage matters here (told in the header); unreadable configuration files do not
    problems = [p for p in facts.problems if ("truncated" in p or "corrupt" in p) and p not in found.problems
                and p != facts.damage]
    report = _with_host(rendered(build(found, source=src.label, capacity=capacity, capacity_from=where, problems=problems,
                                       capacity_unknown=None if capacity else _no_puma(facts)), _limits(facts)), facts)
    if facts.damage:  # the logs after the damage are lost to it, not absent
        report["damage"] = facts.damage.split(": facts lost to the damage: ", 1)[0]
        from foretune.logs.kinds import PATTERNS  # start-up: only for a damaged archive

        may_lose = getattr(src, "may_lose_matches", lambda pattern: False)
        report["lost"] = [k for k in report.get("not_found", []) if any(may_lose(p) for p, kind in PATTERNS if kind == k)]
        if facts.garbled:
            report["garbled"] = True
    if capsule is not None:
        return _as_capsule(report, capsule)
    return report


def _capsule_logs(src: Any, facts: FactSet, scan: Any) -> list[str] | None:
    """The Capsule logs of a source that is a Capsule (its role says so, or it has no production.log, Candlepin log or
    task export, which only a server writes, and has a Smart Proxy or mosquitto log), named with their paths, the
    ones foretune does not analyse first; None for a server."""
    from foretune.host.specs import Spec  # start-up: only for a `logs` run, not --help

    role = facts.value("role")
    server_logs = scan is not None and any(kind in ("candlepin", "tasks") for kind, _ in scan.parts)
    if role == "server" or (role != "capsule" and server_logs):
        return None
    found = [(name, path) for pattern, name in CAPSULE_LOGS.items()
             for path in src.glob_names(Spec("capsule_logs", paths=(pattern,), glob=True,
                                             collect=False))[:1]]
    production = src.glob_names(Spec("production_log", paths=("/var/log/foreman/production.log*",),
                                     glob=True, collect=False))
    if role != "capsule" and (production or not found):
        return None
    found.sort(key=lambda f: f[0] not in UNREAD)
    return [f"{name} ({path.lstrip('/')})" for name, path in found]


def _as_capsule(report: dict[str, Any], logs: list[str]) -> dict[str, Any]:
    """A Capsule's report: its role, and the Capsule logs that are there but not analysed (the Smart Proxy's)."""
    report["role"] = "capsule"
    report["not_found"] = [k for k in report.get("not_found", []) if k not in ("production", "candlepin", "tasks")]
    report["not_analysed"] = [log for log in logs if log.startswith(UNREAD)]
    return report


FOREMAN_KINDS = {"production": "production.log", "apache_access": "Apache access log", "apache_error": "Apache error log",
                 "candlepin": "Candlepin log", "tasks": "task export"}
OTHER_KINDS = {"postgresql": "PostgreSQL log", "system": "system log"}


def _require_foreman(scan: Any, label: str, *, named: bool = False) -> None:
    """Refuse, in one line, a host, sosreport or snapshot with no Foreman logs: a clean verdict on them would say
    nothing about a server. Logs ``named`` one by one (or their directories) may be PostgreSQL's alone; system logs
    alone are refused there too."""
    kinds = {kind for kind, _ in scan.parts}
    broker = any(kind == "system" and fam.startswith("mosquitto") for kind, fam in scan.parts)  # a Capsule's
    if kinds & FOREMAN_KINDS.keys() or (named and (kinds - {"system"} or broker)):
        return
    read = ", ".join(OTHER_KINDS.get(k, k) for k in sorted(kinds)) or "nothing"
    raise InputError(f"{label}: no Foreman logs found (no {', '.join(FOREMAN_KINDS.values())}; read only: {read}): "
                     "nothing to report on; is it a Foreman, Satellite, orcharhino or Capsule server, or a sosreport of one?")


def _snapshot(path: Path, window: Window, args: argparse.Namespace) -> dict[str, Any]:
    """The report of the logs a snapshot carries (collect and the collector ship the last week's)."""
    from foretune.facts import read_source  # start-up: only for a `logs` run, not --help
    from foretune.facts.snapshot import load_snapshot_logs  # start-up: only for a `logs` run, not --help
    from foretune.logs.scan import Options  # start-up: only for a `logs` run, not --help
    from foretune.logs.source import scan_shipped  # start-up: only for a `logs` run, not --help
    from foretune.logs.summary import build  # start-up: only for a `logs` run, not --help
    from foretune.report.logs_data import rendered  # start-up: only for a `logs` run, not --help

    label, logs = load_snapshot_logs(path)
    if logs is None or not logs["files"]:
        raise InputError(f"{path}: this snapshot carries no logs, only the incidents found when it was collected "
                         f"(foretune facts {path} --only log_incidents)")
    scan = scan_shipped(logs, Options(window=window))
    _require_foreman(scan, label)
    facts = read_source(str(path))
    capacity, where = _capacity(args, facts)
    return _with_host(rendered(build(scan, source=label, capacity=capacity, capacity_from=where, problems=[],
                                     capacity_unknown=None if capacity else _no_puma(facts)), _limits(facts)), facts)


# where the Puma capacity in force comes from (foretune.logs.source.puma_in_force), as the report names it
CAPACITY_FROM = {"puma_stats": "pumactl stats (workers x max_threads)",
                 "puma_loaded": "systemctl show foreman.service (workers x threads_max)",
                 "puma": "puma fact (workers x threads_max)"}


def _capacity(args: argparse.Namespace, facts: FactSet) -> tuple[int | None, str | None]:
    """The Puma capacity requests open at once are compared with, and where it comes from: --puma-capacity, else the
    workers x threads in force, as the audit's ``log_incidents`` fact counts them."""
    from foretune.logs.source import puma_in_force  # start-up: only for a `logs` run, not --help

    if args.puma_capacity:
        return args.puma_capacity, "--puma-capacity"
    run = puma_in_force(facts.value("puma_stats"), facts.value("puma_loaded"), facts.value("puma"))
    return (run[0] * run[1], CAPACITY_FROM[run[2]]) if run else (None, None)


def _limits(facts: FactSet) -> dict[str, int]:
    """The open-files limits in force the logs' fixes start from (mosquitto's), when the source says."""
    from foretune.rules.values import service_nofile  # start-up: only for a `logs` run, not --help

    current = service_nofile(facts.value("service_limits"), "mosquitto")
    return {"mosquitto": current} if current is not None else {}


def _with_host(report: dict[str, Any], facts: FactSet) -> dict[str, Any]:
    """The report with the host name, release and role the source names (a sosreport's, snapshot's or this host's),
    found as the audit finds them, for the report's header."""
    from foretune.plan.choose import choose_plan  # start-up: only for a `logs` run, not --help

    host = facts.value("hostname")
    if isinstance(host, str) and host:
        report["host"] = host
    report["source_kind"] = facts.source_kind  # live, sosreport or snapshot: the audit command of What next
    collected = facts.value("collected_at")
    if isinstance(collected, str) and collected:
        report["collected_at"] = collected
    choice = choose_plan(facts)
    report["release"] = choice.release.label if choice.release else None
    found = packaged_product(facts.value("product"), facts.value("product_version"))
    if choice.release is None and found:  # a release foretune has no table for: the header still names it
        report["product"] = found
    report["role"] = facts.value("role") or (choice.plan.input.role if choice.plan else None)
    if report["role"] == "capsule":  # a Capsule runs no Foreman, Candlepin or tasks: their logs are not missing there
        report["not_found"] = [k for k in report.get("not_found", []) if k not in ("production", "candlepin", "tasks")]
    return report


PRODUCTS = {"satellite": "Satellite", "orcharhino": "orcharhino", "foreman": "Foreman"}


def packaged_product(product: Any, version: Any) -> str | None:
    """The product and version the source's packages name, for a header when the release is not one foretune knows.

    >>> packaged_product("satellite", "6.16.1"), packaged_product(None, None)
    ('Satellite 6.16.1', None)
    """
    if not product or not version:
        return None
    return f"{PRODUCTS.get(str(product), str(product))} {version}"


def _no_puma(facts: FactSet) -> str | None:
    """Why there is no Puma capacity to compare with, when the source says Foreman runs without Puma (Passenger era)."""
    fact = facts["puma"]
    if fact.known or not (fact.unknown_reason or "").startswith("Passenger era"):
        return None
    pool = (facts.value("passenger") or {}).get("PassengerMaxPoolSize")
    return str(fact.unknown_reason) + (f"; PassengerMaxPoolSize {pool}, one request per process" if isinstance(pool, int) else "")


def _is_sosreport(path: str) -> bool:
    from foretune.host.sources.sosreport import is_sosreport_root  # start-up: only for a `logs` run, not --help
    from foretune.host.sources.tarball import SUFFIXES  # start-up: only for a `logs` run, not --help

    if os.path.isdir(path):
        try:
            return is_sosreport_root(set(os.listdir(path)))
        except OSError:
            return False
    return path.lower().endswith(SUFFIXES)


class _Bar:
    def __init__(self, env: Environment, label: str) -> None:
        from foretune.bench.progress import Progress  # start-up: the progress bar loads only on a terminal

        self.bar = Progress(env.stderr, 1, enabled=True, color=env.progress_color)
        self.label = f"reading logs{' (' + label + ')' if label else ''}"
        self.started = time.monotonic()
        self.bar.start(0, self.label, 0.0, None)

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.monotonic() - self.started
        eta = elapsed * (total - done) / done if done else None
        self.bar.update(100.0 * done / total if total else 100.0, eta, force=done >= total)


def _progress(env: Environment, label: str) -> _Bar | None:
    """A progress bar with ETA on a terminal, else nothing."""
    try:
        on_terminal = env.stderr.isatty()
    except (AttributeError, ValueError):
        on_terminal = False
    return _Bar(env, label) if on_terminal and env.environ.get("TERM") != "dumb" else None


def _done(progress: _Bar | None) -> None:
    if progress is not None:
        progress.bar.clear()


def render(report: dict[str, Any], fmt: str, *, color: bool, top: int, width: int | None = None, generated: str = "",
           paper: str | None = None) -> str:
    import json  # start-up: json loads only for JSON input or output

    if fmt == "json":  # who and when, beside what: the host (when the source names it) and the generation time
        from foretune.report.logs_data import closing  # start-up: the verdict and what next, for JSON only

        about = {"host": report.get("host"), "generated_at": generated or None}
        return json.dumps({**report, **about, **closing(report)}, indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        from foretune.report import logs_html  # start-up: each report format loads only when chosen

        return logs_html.render(report, generated=generated, paper=paper)
    if "metrics" in report:  # a comparison
        from foretune.report import logs_compare  # start-up: each report format loads only when chosen

        return logs_compare.render(report, markdown=fmt == "markdown", color=color, top=top, width=width)
    from foretune.report import logs_text  # start-up: each report format loads only when chosen

    return logs_text.render(report, markdown=fmt == "markdown", color=color, top=top, width=width)
