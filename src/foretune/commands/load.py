"""``foretune load``: registrations, content, API and pull-REX load on a server, measured per step and level."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, number, output_format, positive
from foretune.term import plural

if TYPE_CHECKING:
    from foretune.env import Environment
    from foretune.load.options import Options

CREDENTIAL_NAMES = ("FORETUNE_LOAD_JWT", "FORETUNE_LOAD_USER", "FORETUNE_LOAD_TOKEN")
LOOPBACK_ONLY = "FORETUNE_LOAD_LOOPBACK_ONLY"


_seconds = number("a number of seconds", 7 * 86400, "at most a week")
_rate = number("a rate", 100_000, "at most 100000 per second")


def _port(text: str) -> int:
    """A TCP port: the one whole-number type (ASCII digits, at least 1), at most 65535."""
    try:
        value = positive(text)
    except argparse.ArgumentTypeError:
        value = 0
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"not a TCP port: {text[:40]!r}")
    return value


_noise_percent = number("a percentage", 100, "below 100 (percent)", below=True)


def _percent(text: str) -> float:
    return _noise_percent(text) / 100


def build_parser(prog: str) -> argparse.ArgumentParser:
    from foretune.load.plan import SCENARIOS  # start-up: only for a `load` run, not --help

    parser = new_parser(
        prog,
        "Put protocol-level load on a Foreman/Katello server (or Capsule) the way the vendor's performance team does: "
        "global registrations, dnf-like content downloads, the API mix hammer and the UI make, and pull-REX MQTT "
        "clients. Closed ramps (--users, --step, --levels, stopping at the first level with failures) or open "
        "arrivals (--arrival-rate), always bounded by --time-limit and --max-requests. Reports per step and level: "
        "count, failures by kind (503, timeout, tls, refused, ...), p50/p95/p99 latency and requests/s. Nothing is "
        "sent without --target and a confirmation (--yes); --dry-run prints the request plan. Credentials come from "
        "FORETUNE_LOAD_JWT (registration token), FORETUNE_LOAD_USER and FORETUNE_LOAD_TOKEN (personal access token) "
        "or --credentials FILE, and are never printed. Hosts it creates are named foretune-load-RUN-N; --cleanup RUN "
        "removes exactly those. Exit 0, 1 when requests failed, 2 for usage or input errors (also when a pre-flight "
        "request finds the target unreachable or the credentials refused), 130 when interrupted (Ctrl-C; the partial "
        "report is still written, also on a second Ctrl-C).",
        "foretune load registration --target https://satellite.example.com --ca /etc/rhsm/ca/katello-server-ca.pem "
        "--activation-key load-test --organization Default_Organization --users 20 --step 20 --levels 5 --duration 60 --yes")
    parser.add_argument("scenario", nargs="?", choices=SCENARIOS, metavar="SCENARIO",
                        help=f"one of {', '.join(SCENARIOS)}")
    parser.add_argument("--target", metavar="URL", help="the server, e.g. https://satellite.example.com (required to send anything)")
    parser.add_argument("--users", type=positive, default=10, metavar="N",
                        help="concurrent users (hosts) of the first level, or the most in flight with --arrival-rate (default: 10)")
    parser.add_argument("--duration", type=_seconds, default=60.0, metavar="SECONDS", help="seconds per level (default: 60)")
    parser.add_argument("--step", type=positive, metavar="N", help="closed ramp: users added per level (default: --users)")
    parser.add_argument("--levels", type=positive, default=1, metavar="N", help="closed ramp: number of levels (default: 1)")
    parser.add_argument("--max", dest="max_users", type=positive, metavar="N", help="closed ramp: no level above N users")
    parser.add_argument("--keep-going", action="store_true", help="closed ramp: go on after a level with failures")
    parser.add_argument("--arrival-rate", type=_rate, metavar="PER_SECOND",
                        help="open model: start iterations (hosts) at this Poisson rate instead of a closed ramp")
    parser.add_argument("--time-limit", type=_seconds, metavar="SECONDS",
                        help="hard limit for the whole run (default: levels x duration + 60)")
    parser.add_argument("--max-requests", type=positive, default=100_000, metavar="N", help="stop after N requests (default: 100000)")
    parser.add_argument("--timeout", type=_seconds, default=180.0, metavar="SECONDS",
                        help="per request, as subscription-manager's server_timeout (default: 180)")
    parser.add_argument("--organization", default="Default_Organization", metavar="LABEL",
                        help="registration: organization label, the owner of POST /rhsm/consumers (default: Default_Organization)")
    parser.add_argument("--organization-id", type=positive, metavar="ID",
                        help="registration: the organization's numeric id, sent as organization_id to GET /register as the "
                             "generated registration command does (default: not sent)")
    parser.add_argument("--activation-key", default="", metavar="KEY", help="registration: activation key name")
    parser.add_argument("--rhel", type=int, choices=(8, 9, 10), default=9, help="registration: client release (10 does not poll compliance)")
    parser.add_argument("--profile-packages", type=positive, default=1000, metavar="N", help="registration: packages in the profile (default: 1000)")
    parser.add_argument("--repo", metavar="PATH", help="content: URL path of the repository, e.g. /pulp/content/ORG/Library/custom/PRODUCT/REPO")
    parser.add_argument("--packages", type=positive, default=5, metavar="N", help="content: packages per download iteration (default: 5)")
    parser.add_argument("--mqtt", metavar="HOST:PORT", help="rex-pull: the MQTT broker (default: the target's host, port 1883)")
    parser.add_argument("--ca", metavar="FILE", help="CA bundle to verify the server's TLS certificate")
    parser.add_argument("--insecure", action="store_true", help="do not verify the server's TLS certificate")
    parser.add_argument("--cert", metavar="FILE", help="client certificate (PEM) for content over mTLS")
    parser.add_argument("--key", metavar="FILE", help="its private key (PEM)")
    parser.add_argument("--credentials", metavar="FILE", help="KEY=VALUE lines for " + ", ".join(CREDENTIAL_NAMES))
    parser.add_argument("--master", action="store_true",
                        help="distributed (Locust's own mode): run the levels, keep the results and let --expect-workers "
                             "worker processes send the requests; closed ramps of registration, content and api only")
    parser.add_argument("--master-bind-host", default="127.0.0.1", metavar="ADDRESS",
                        help="with --master: the address workers connect to (default: 127.0.0.1; 0.0.0.0 for other machines)")
    parser.add_argument("--master-bind-port", type=_port, default=5557, metavar="PORT", help="with --master: its port (default: 5557)")
    parser.add_argument("--expect-workers", type=positive, default=1, metavar="N",
                        help="with --master: wait (up to 60 s) for N workers before the first level (default: 1)")
    parser.add_argument("--worker", action="store_true",
                        help="distributed: send the requests a master directs, to this worker's own --target with its own "
                             "credentials and options, and forward every result to the master; ends when the master does")
    parser.add_argument("--master-host", metavar="HOST", help="with --worker: the master's address (required)")
    parser.add_argument("--master-port", type=_port, default=5557, metavar="PORT", help="with --worker: the master's port (default: 5557)")
    parser.add_argument("--run", metavar="ID", help="run id used in host names (default: random)")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation (scripts)")
    parser.add_argument("--dry-run", action="store_true", help="print the request plan and send nothing")
    parser.add_argument("--cleanup", metavar="RUN", help="remove the hosts run RUN created (foretune-load-RUN-*) through the API")
    parser.add_argument("--server-logs", metavar="SOURCE",
                        help="after the run, read SOURCE's logs (as foretune logs does) over the run's window and put "
                             "its incidents, 503 bursts and busiest actions beside the client's figures")
    parser.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="compare two JSON results of the same scenario")
    parser.add_argument("--noise", type=_percent, metavar="PERCENT", help="with --compare: changes under PERCENT are noise (default: as logs --compare)")
    add_output(parser, ("text", "json", "html", "markdown"), "text")
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.errors import UsageError  # start-up: only for a `load` run, not --help

    if args.compare:
        return _compare(args, env)
    if args.cleanup:
        return _cleanup(args, env)
    if not args.scenario:
        raise UsageError("name a scenario (registration, content, api, rex-pull), or use --compare or --cleanup")
    opts = _options(args, env)
    if args.dry_run:
        emit(args, env, _plan_text(opts))
        return 0
    if not args.yes and opts.worker:
        _confirm(env, f"about to send requests to {opts.target} as the master at {opts.worker[0]}:{opts.worker[1]} "
                      f"directs (run {opts.run}" + (f", creating hosts foretune-load-{opts.run}-*)"
                                                     if opts.scenario == "registration" else ")"))
    elif not args.yes:
        _confirm(env, f"about to send up to {opts.max_requests} requests for up to {opts.time_limit:.0f} s to "
                      f"{opts.target} (run {opts.run}" + (f", creating hosts foretune-load-{opts.run}-*)"
                                                          if opts.scenario == "registration" else ")")
                      + (f" through {opts.expect_workers} workers" if opts.master else ""))
    return _load(args, env, opts)


def _target(url: str | None, env: Environment, flag: str = "--target") -> str:
    import ipaddress  # start-up: only when _target runs
    import socket  # start-up: only when _target runs
    from urllib.parse import urlsplit  # start-up: only when _target runs

    from foretune.errors import UsageError  # start-up: only when _target runs

    if not url:
        raise UsageError("--target URL is required: foretune load never picks a server by itself")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"{flag}: expected http(s)://HOST[:PORT], got {url[:80]!r}")
    if parts.username or parts.password:
        raise UsageError(f"{flag}: no credentials in the URL; use FORETUNE_LOAD_* or --credentials FILE")
    if env.environ.get(LOOPBACK_ONLY):
        try:
            addresses = {str(info[4][0]) for info in socket.getaddrinfo(parts.hostname, None)}
        except OSError:
            addresses = set()
        if not addresses or not all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses):
            raise UsageError(f"{flag}: {parts.hostname} is not a loopback address and {LOOPBACK_ONLY} is set")
    return f"{parts.scheme}://{parts.netloc}"


def _credentials(args: argparse.Namespace, env: Environment) -> dict[str, str]:
    from foretune.errors import InputError  # start-up: only when _credentials runs
    from foretune.safeio import read_text  # start-up: only when _credentials runs

    found = {name: env.environ[name] for name in CREDENTIAL_NAMES if env.environ.get(name)}
    if args.credentials:
        try:
            text = read_text(args.credentials)
        except OSError as exc:
            raise InputError(f"--credentials: cannot read {args.credentials}: {exc.strerror or exc}") from None
        for number, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            if not sep or key.strip() not in CREDENTIAL_NAMES:
                raise InputError(f"--credentials: line {number} is not one of {', '.join(n + '=...' for n in CREDENTIAL_NAMES)}")
            found.setdefault(key.strip(), value.strip().strip("'\""))
    return found


def _options(args: argparse.Namespace, env: Environment) -> Options:
    import os  # start-up: only when _options runs
    import re  # start-up: only when _options runs
    import secrets  # start-up: only when _options runs
    from urllib.parse import urlsplit  # start-up: only when _options runs

    from foretune.errors import UsageError  # start-up: only when _options runs
    from foretune.load.options import Options  # start-up: only when _options runs

    target = _target(args.target, env)
    creds = _credentials(args, env)
    if args.insecure and args.ca:
        raise UsageError("--ca and --insecure contradict each other")
    if bool(args.cert) != bool(args.key):
        raise UsageError("--cert and --key go together")
    for flag, path in (("--ca", args.ca), ("--cert", args.cert), ("--key", args.key)):
        if path:
            from foretune.safeio import read_bytes  # start-up: only when _options runs

            try:
                read_bytes(path, limit=1)
            except OSError as exc:
                raise UsageError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from None
    _check_tls_files(args)
    needed = {"registration": "FORETUNE_LOAD_JWT", "api": "FORETUNE_LOAD_TOKEN"}.get(args.scenario)
    if needed and needed not in creds and not args.dry_run:
        raise UsageError(f"{args.scenario} needs {needed} (environment variable or --credentials FILE)")
    if args.scenario == "registration" and not args.activation_key:
        raise UsageError("registration needs --activation-key")
    if args.scenario == "content" and not args.repo:
        raise UsageError("content needs --repo PATH (the repository's URL path)")
    if args.server_logs and not os.path.exists(args.server_logs):
        raise UsageError(f"--server-logs: {args.server_logs}: no such file or directory")
    if not args.dry_run:
        _check_output(args)
    run_id = args.run or secrets.token_hex(4)
    if not re.fullmatch(r"[A-Za-z0-9-]{1,32}", run_id):
        raise UsageError(f"--run: letters, digits and dashes only, at most 32: {run_id[:40]!r}")
    mqtt = None
    if args.scenario == "rex-pull":
        host, _, port = (args.mqtt or f"{urlsplit(target).hostname}:1883").rpartition(":")
        if not host or not port.isdigit():
            raise UsageError(f"--mqtt: expected HOST:PORT, got {args.mqtt!r}")
        if not 0 < int(port) < 65536:
            raise UsageError(f"--mqtt: port out of range (1-65535): {port[:20]}")
        _target(f"http://{host}", env)  # the same loopback rule
        mqtt = (host.strip("[]"), int(port))
    master, worker = _distributed(args, env)
    step = args.step or (args.users if args.levels > 1 else 0)
    opts = Options(scenario=args.scenario, target=target, run=run_id, users=args.users, duration=args.duration,
                   step=step, levels=args.levels, max_users=args.max_users, arrival_rate=args.arrival_rate,
                   max_requests=args.max_requests, timeout=args.timeout, stop_on_failure=not args.keep_going,
                   organization=args.organization, organization_id=args.organization_id, activation_key=args.activation_key, repo=args.repo or "",
                   packages=args.packages, profile_packages=args.profile_packages, rhel=args.rhel, mqtt=mqtt,
                   ca=args.ca, insecure=args.insecure, client_cert=args.cert, client_key=args.key, credentials=creds,
                   master=master, expect_workers=args.expect_workers, worker=worker)
    if args.max_users is not None and args.max_users < args.users and not args.arrival_rate:
        raise UsageError(f"--max {args.max_users} is below --users {args.users}: the first level would not run")
    levels = 1 if args.arrival_rate else len(opts.level_users())
    if levels * args.duration > WEEK_S:
        raise UsageError(f"--levels x --duration: {levels} levels of {args.duration:g} s is "
                         f"{levels * args.duration / 86400:.0f} days; at most a week")
    opts.time_limit = args.time_limit or (WORKER_TIME_LIMIT_S if worker else levels * args.duration + 60)
    if args.time_limit and not worker and args.time_limit < levels * args.duration:
        opts.notes.append(f"--time-limit {args.time_limit:g} s ends the run before its {plural(levels, 'level')} of "
                          f"{args.duration:g} s ({levels * args.duration:g} s)")
    return opts


WEEK_S = 7 * 86400  # the most --duration, and the ramp as a whole, may take


def _check_tls_files(args: argparse.Namespace) -> None:
    """``--ca`` must hold a certificate and ``--cert``/``--key`` must be a matching pair, before anything is sent."""
    import ssl  # start-up: only when _check_tls_files runs

    from foretune.errors import UsageError  # start-up: only when _check_tls_files runs

    if args.ca:
        try:
            ssl.create_default_context(cafile=args.ca)
        except (ssl.SSLError, ValueError):
            raise UsageError(f"--ca: no certificate in {args.ca}") from None
        except OSError as exc:
            raise UsageError(f"--ca: cannot read {args.ca}: {exc.strerror or exc}") from None
    if args.cert and args.key:
        try:
            ssl.create_default_context().load_cert_chain(args.cert, args.key)
        except (ssl.SSLError, ValueError):
            raise UsageError(f"--cert/--key: {args.cert} and {args.key} are not a PEM certificate and its private key") from None
        except OSError as exc:
            raise UsageError(f"--cert/--key: cannot read them: {exc.strerror or exc}") from None


def _check_output(args: argparse.Namespace) -> None:
    """Refuse an ``--output`` the report could not be written to, before anything is sent (not after the run)."""
    import os  # start-up: only when _check_output runs
    import stat  # start-up: only when _check_output runs

    from foretune.errors import UsageError  # start-up: only when _check_output runs

    output_format(args)  # an extension that names no format of this command
    if not args.output:
        return
    directory = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(directory):
        raise UsageError(f"--output {args.output}: directory {directory} does not exist")
    try:
        mode = os.stat(args.output).st_mode
    except FileNotFoundError:
        if not os.access(directory, os.W_OK | os.X_OK):
            raise UsageError(f"--output {args.output}: directory {directory} is not writable") from None
        return
    except OSError as exc:
        raise UsageError(f"--output {args.output}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"--output {args.output}: is a directory")
    if stat.S_ISREG(mode) and not os.access(args.output, os.W_OK):
        raise UsageError(f"--output {args.output}: not writable")


WORKER_TIME_LIMIT_S = 7 * 86400  # a worker without --time-limit runs until its master ends (or is gone 60 s)


def _distributed(args: argparse.Namespace, env: Environment) -> tuple[tuple[str, int] | None, tuple[str, int] | None]:
    """``(master bind address, None)``, ``(None, master to connect to)`` or neither, checked."""
    from foretune.errors import UsageError  # start-up: only when _distributed runs

    if args.master and args.worker:
        raise UsageError("--master and --worker contradict each other")
    if args.master_host and not args.worker:
        raise UsageError("--master-host goes with --worker")
    if not (args.master or args.worker):
        return None, None
    flag = "--master" if args.master else "--worker"
    if args.scenario == "rex-pull":
        raise UsageError(f"{flag}: rex-pull runs its MQTT clients in one process; distributed runs are for "
                         "registration, content and api")
    if args.arrival_rate:
        raise UsageError(f"{flag}: open arrivals (--arrival-rate) run in one process; distributed runs are closed ramps")
    if args.master:
        _target(f"http://{_bracket(args.master_bind_host)}", env, "--master-bind-host")  # the same loopback rule
        return (args.master_bind_host, args.master_bind_port), None
    if not args.master_host:
        raise UsageError("--worker needs --master-host HOST")
    _target(f"http://{_bracket(args.master_host)}", env, "--master-host")
    return None, (args.master_host, args.master_port)


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _plan_text(opts: Options) -> str:
    from foretune.load import plan  # start-up: only when _plan_text runs

    shape = (f"open arrivals at {opts.arrival_rate}/s for {opts.duration:.0f} s, at most {opts.users} in flight"
             if opts.arrival_rate else
             f"closed levels of {', '.join(str(u) for u in opts.level_users())} "
             f"user{'' if opts.level_users() == [1] else 's'}, {opts.duration:.0f} s each"
             + (", stopping after the first level with failures" if opts.stop_on_failure else ""))
    lines = [f"foretune load {opts.scenario}: request plan (dry run, nothing sent)", f"target: {opts.target}",
             f"shape: {shape}", f"limits: {opts.time_limit:.0f} s, {opts.max_requests} requests, {opts.timeout:.0f} s per request",
             f"TLS: {'not verified (--insecure)' if opts.insecure else 'verified against ' + (opts.ca or 'the system CA store')}"
             if opts.target.startswith("https") else "TLS: none (http)"]
    lines += [f"note: {note}" for note in opts.notes]
    if opts.master:
        lines.append(f"distributed: master on {opts.master[0]}:{opts.master[1]}, waiting for {opts.expect_workers} workers; "
                     "each sends to its own --target")
    if opts.worker:
        lines.append(f"distributed: worker of the master at {opts.worker[0]}:{opts.worker[1]}, which sets the users and levels")
    if opts.scenario == "registration":
        lines.append(f"hosts: {plan.host_name(opts.run, 1)}, {plan.host_name(opts.run, 2)}, ... (--cleanup {opts.run} removes them)")
    per = "per 100 requests" if opts.scenario == "api" else "per iteration"
    lines += ["", f"calls {per}:"]
    for call in plan.calls(opts.scenario, packages=opts.packages, rhel=opts.rhel):
        path = call.path.replace("{org}", opts.organization).replace("{key}", opts.activation_key).replace("{repo}", opts.repo)
        path = (path.replace("&organization_id={org_id}", "") if opts.organization_id is None
                else path.replace("{org_id}", str(opts.organization_id)))
        lines.append(f"  {call.count:>3} x {call.method:<9} {path}" + (f"  ({call.note.replace('{packages}', str(opts.profile_packages))})"
                                                                      if call.note else ""))
    return "\n".join(lines) + "\n"


def _confirm(env: Environment, what: str) -> None:
    from foretune.errors import UsageError  # start-up: only when _confirm runs

    if not env.stdin_isatty:
        raise UsageError(f"{what}; no terminal to ask on, so rerun with --yes to confirm")
    env.stderr.write(f"foretune: {what}. Continue? [y/N] ")
    env.stderr.flush()
    if env.stdin.readline().strip().lower() not in ("y", "yes"):
        raise UsageError("cancelled; nothing was sent")


def _load(args: argparse.Namespace, env: Environment, opts: Options) -> int:
    from foretune.errors import InputError, UsageError  # start-up: only when _load runs

    for note in opts.notes:
        env.warn(note)
    preflight_note = ""
    if not opts.master:  # a master sends nothing itself; each worker checks its own target
        from foretune.load import preflight  # start-up: only when _load runs

        try:
            preflight_note = preflight.check(opts)
        except preflight.Unfit as exc:
            raise UsageError(f"{exc}; nothing else was sent") from None
    try:
        if opts.scenario != "rex-pull":
            from foretune.load import engine  # imports Locust, which patches the standard library for gevent
        else:
            import paho.mqtt.client  # noqa: F401  # start-up: paho-mqtt loads only when _load runs
    except ImportError as exc:
        raise UsageError(f"foretune load needs Locust and paho-mqtt ({exc.name} is missing): "
                         "pip install 'foretune[load]'") from None
    from foretune.load.results import Recorder  # start-up: only when _load runs

    shape = {"users": opts.users, "duration_s": opts.duration, "arrival_rate": opts.arrival_rate,
             "levels": [] if opts.arrival_rate else opts.level_users(), "time_limit_s": opts.time_limit,
             "max_requests": opts.max_requests, "timeout_s": opts.timeout}
    if opts.worker:
        return _work(env, opts)
    rec = Recorder(opts.scenario, opts.target, opts.run, shape, _secret_forms(opts.credentials))
    rec.notes.extend(opts.notes)
    guard = _InterruptGuard(env, rec)
    guard.install()  # the run's own handlers replace it while it runs
    if opts.scenario == "rex-pull":
        from foretune.load import mqtt  # start-up: only when _load runs

        mqtt.run(opts, rec)
    else:
        from foretune.load.distributed import WorkersMissing  # start-up: only when _load runs

        try:
            engine.run(opts, rec)
        except WorkersMissing as exc:
            raise UsageError(f"--master: {exc}") from None
    guard.install()  # gevent's signal watchers leave SIGINT at its default (kill) when they stop
    if preflight_note:
        rec.notes.append(preflight_note)
    doc = rec.document()
    if args.server_logs:
        ended = rec.started_wall + doc["duration_s"]
        try:
            doc["server_logs"] = _server_logs(args.server_logs, rec.started_wall, ended, env)
        except (UsageError, InputError) as exc:  # the client's figures are still worth having
            doc["notes"].append(f"--server-logs: {exc}")
    _emit(args, env, doc)
    guard.ignore()  # written: a Ctrl-C from here on must not turn the exit status into a kill by signal
    if doc["interrupted"] or guard.fired:
        env.warn("interrupted: the report covers what ran until then")
        return 130
    return 1 if any(step["failures_total"] for step in doc["steps"]) else 0


class _InterruptGuard:
    """SIGINT/SIGTERM outside the run's own handlers: the run is marked interrupted and the report still written."""

    def __init__(self, env: Environment, rec: Any) -> None:
        self.env, self.rec, self.fired = env, rec, False

    def install(self) -> None:
        import signal  # start-up: only when a run starts

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._handle)

    def ignore(self) -> None:
        import signal  # start-up: only when a run ends

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)

    def _handle(self, _signum: int, _frame: object) -> None:
        self.rec.interrupted = True  # a run not yet started stops at once
        if not self.fired:
            self.fired = True
            self.env.stderr.write("foretune: interrupted: writing the partial report first\n")
            self.env.stderr.flush()


def _work(env: Environment, opts: Options) -> int:
    """``--worker``: send as the master directs until it ends; the results are the master's."""
    from foretune.load import engine  # imports Locust, which patches the standard library for gevent
    from foretune.load.distributed import Forwarder  # start-up: only when _work runs

    assert opts.worker
    fwd = Forwarder(opts, _secret_forms(opts.credentials))
    env.stderr.write(f"foretune load: worker of the master at {opts.worker[0]}:{opts.worker[1]}, sending to {opts.target}"
                     + (f" as run {opts.run}" if opts.scenario == "registration" else "") + "\n")
    engine.run(opts, fwd)
    env.stderr.write(f"foretune load: worker done, {fwd.requests} requests sent; the results are the master's\n")
    return 0


def _server_logs(source: str, started: float, ended: float, env: Environment) -> dict[str, Any]:
    """The logs report's incidents, 503 bursts and busiest ``Controller#action`` rows for ``source`` over the run.

    The window is the run's start and end to the second, in this machine's local time zone (the server's logs
    carry local time without a zone): from the second the run started up to and including the second it ended.
    """
    import math  # start-up: only when _server_logs runs
    import time  # start-up: only when _server_logs runs

    from foretune.commands.logs import _range, analyze  # start-up: only when _server_logs runs

    def when(epoch: float) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))

    since, until = when(math.floor(started)), when(math.floor(ended) + 1)  # [since, until): the end's second is in
    args = argparse.Namespace(jobs=1, puma_capacity=None)
    report = analyze([source], _range(since, until, ("--server-logs", "--server-logs")), args, env)
    actions = [{k: a.get(k) for k in ("action", "count", "p50", "p95", "p99", "status")}
               for log in report.get("production") or [] for a in (log.get("actions") or [])[:10]]
    return {"source": report.get("source", source), "since": since, "until": until,
            "incidents": report.get("incidents", []), "bursts": report.get("bursts", []), "actions": actions}


def _secret_forms(creds: dict[str, str]) -> tuple[str, ...]:
    """Every form a credential can come back in (an echoed header): as given, and Basic auth's base64."""
    import base64  # start-up: only when _secret_forms runs

    token = creds.get("FORETUNE_LOAD_TOKEN", "")
    basic = base64.b64encode(f"{creds.get('FORETUNE_LOAD_USER', 'admin')}:{token}".encode()).decode() if token else ""
    return tuple(v for v in (*creds.values(), basic) if v and len(v) >= 4)


def _emit(args: argparse.Namespace, env: Environment, doc: dict[str, Any]) -> None:
    import json  # start-up: only when _emit runs

    from foretune.load import report  # start-up: only when _emit runs

    fmt = output_format(args)
    if fmt == "html":
        from foretune.load import html  # start-up: only when _emit runs

        emit(args, env, html.render(doc))
        return
    text = (json.dumps(doc, indent=2) + "\n" if fmt == "json" else
            report.markdown(doc) if fmt == "markdown" else report.text(doc))
    if doc.get("server_logs") and fmt != "json":
        from foretune.load import serverlogs  # start-up: only when _emit runs

        text += "\n" + "\n".join(serverlogs.text(doc["server_logs"])) + "\n"
    emit(args, env, text)


def _read_result(path: str) -> dict[str, Any]:
    import json  # start-up: only when _read_result runs

    from foretune.errors import InputError  # start-up: only when _read_result runs
    from foretune.load.results import SCHEMA  # start-up: only when _read_result runs
    from foretune.safeio import read_text  # start-up: only when _read_result runs

    try:
        doc = json.loads(read_text(path))
    except OSError as exc:
        raise InputError(f"--compare: cannot read {path}: {exc.strerror or exc}") from None
    except ValueError:
        raise InputError(f"--compare: {path} is not JSON (write results with --format json)") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(f"--compare: {path} is not a foretune load result ({SCHEMA})")
    from foretune.load.validate import problem  # start-up: only when _read_result runs

    found = problem(doc)
    if found:
        raise InputError(f"--compare: {path} is not a valid {SCHEMA} result: {found}")
    return doc


def _compare(args: argparse.Namespace, env: Environment) -> int:
    import json  # start-up: only when _compare runs

    from foretune.errors import InputError, UsageError  # start-up: only when _compare runs
    from foretune.knowledge import threshold  # start-up: only when _compare runs
    from foretune.load import report  # start-up: only when _compare runs

    fmt = output_format(args)
    if fmt not in ("text", "json"):
        raise UsageError(f"--compare writes text or json, not {fmt}")
    before, after = (_read_result(p) for p in args.compare)
    if before["scenario"] != after["scenario"]:
        raise InputError(f"--compare: {before['scenario']} and {after['scenario']} results are not comparable")
    noise = args.noise if args.noise is not None else float(threshold("logs_compare_noise_fraction"))
    diff = report.compare(before, after, noise)
    emit(args, env, json.dumps(diff, indent=2) + "\n" if fmt == "json" else report.compare_text(diff))
    return 0


def _cleanup(args: argparse.Namespace, env: Environment) -> int:
    import re  # start-up: only when _cleanup runs

    from foretune.errors import UsageError  # start-up: only when _cleanup runs
    from foretune.load import cleanup  # start-up: only when _cleanup runs

    target = _target(args.target, env)
    creds = _credentials(args, env)
    if "FORETUNE_LOAD_TOKEN" not in creds:
        raise UsageError("--cleanup needs FORETUNE_LOAD_TOKEN (environment variable or --credentials FILE)")
    if not re.fullmatch(r"[A-Za-z0-9-]{1,32}", args.cleanup):
        raise UsageError(f"--cleanup: not a run id: {args.cleanup[:40]!r}")
    hosts = cleanup.find(target, creds, args.cleanup, ca=args.ca, insecure=args.insecure)
    if args.dry_run or not hosts:
        env.stdout.write(f"{len(hosts)} hosts of run {args.cleanup}" + (" would be removed:\n" if hosts else "\n")
                         + "".join(f"  {name}\n" for _, name in hosts))
        return 0
    if not args.yes:
        _confirm(env, f"about to remove {len(hosts)} hosts named foretune-load-{args.cleanup}-* from {target}")
    removed = cleanup.remove(target, creds, hosts, ca=args.ca, insecure=args.insecure)
    env.stdout.write(f"removed {removed} of {len(hosts)} hosts of run {args.cleanup}\n")
    return 0 if removed == len(hosts) else 1
