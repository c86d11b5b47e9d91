"""``foretune verify``: is the last applied change set in force on this host (or --root)? Pending, drift, exit codes."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format
from foretune.errors import ForetuneError

if TYPE_CHECKING:
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Read back each change of the last applied change set where it takes effect (SHOW, the "
                        "running process's soft limits, pumactl stats, sysctl, tuned, the files the installer renders) and where apply "
                        "wrote it. Lists what is pending (an installer run, a restart) and, on later runs, drift: values "
                        "that differ from the journal. A change foretune cannot read back where it takes effect is listed as not "
                        "verified, with why, and leaves the exit status alone. Exit status: 0 in force, 1 drift or pending, "
                        "2 error.",
                        "foretune verify --prometheus /var/lib/node_exporter/textfile_collector/foretune.prom")
    parser.add_argument("--root", metavar="DIR", help="verify the tree under DIR (a mounted image or a copy) instead of this host")
    parser.add_argument("--dsn", metavar="CONNINFO",
                        help="the PostgreSQL server to SHOW settings on (libpq conninfo, password from PGPASSWORD); "
                             "default: this host's as the postgres account, or, with --root, the tree's configuration files (a "
                             "setting PostgreSQL reads only at start stays pending until the tree's postmaster.pid "
                             "shows a start after the run; one it takes on a reload is not verified until then, since "
                             "a reload leaves no trace in the files)")
    parser.add_argument("--run", metavar="RUN", help="verify this run instead of the last one not rolled back")
    parser.add_argument("--prometheus", metavar="FILE",
                        help="also write the result for node_exporter's textfile collector to FILE (atomically; name it *.prom)")
    add_output(parser, ("text", "json"), "text")
    return parser


def _facts(root: str | None, env: Environment) -> Any:
    """A loader of the host's facts; a failure becomes the one line that says why (warned, and in each check it affects)."""

    def load() -> Any:
        from foretune.facts import read_source  # start-up: the facts layer loads only when a check needs it

        try:
            return read_source(root, environ=dict(env.environ), tree=root is not None)
        except ForetuneError as exc:
            env.warn(f"facts not readable: {exc}: the changes read back from them are not verified")
            return f"facts not readable: {exc}"

    return load


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.apply import report as output  # start-up: only for a `verify` run
    from foretune.apply.host import Host  # start-up: only for a `verify` run
    from foretune.apply.journal import load  # start-up: only for a `verify` run
    from foretune.apply.verify import verify  # start-up: only for a `verify` run

    fmt = output_format(args)
    try:
        host = Host(args.root, args.dsn, env.environ)
        directory, journal = load(host, args.run)
        result = verify(host, directory, journal, _facts(args.root, env))
    except ForetuneError:
        if args.prometheus:
            _write_prometheus(args.prometheus, "# HELP foretune_verify_exit_status verify's exit status: 0 in force, "
                              "1 drift or pending, 2 error.\n# TYPE foretune_verify_exit_status gauge\nforetune_verify_exit_status 2\n")
        raise
    if args.prometheus:
        _write_prometheus(args.prometheus, output.prometheus(result))
    emit(args, env, output.as_json(result) if fmt == "json" else output.text(result))
    return result.exit_status


def _write_prometheus(path: str, text: str) -> None:
    from pathlib import Path  # start-up: only for `verify --prometheus`

    from foretune.render.files import write_text  # start-up: only for `verify --prometheus`

    write_text(Path(path), text)
    import contextlib  # start-up: only for `verify --prometheus`
    import os  # start-up: only for `verify --prometheus`
    import stat  # start-up: only for `verify --prometheus`

    with contextlib.suppress(OSError):  # node_exporter runs as its own user: readable whatever root's umask (no secret)
        mode = os.lstat(path).st_mode
        if stat.S_ISREG(mode):  # a stream (a pipe, /dev/stdout) keeps its mode
            os.chmod(path, stat.S_IMODE(mode) | 0o444)
