"""Command-line entry point.

Start-up stays lean: the root parser knows only command names and one-line summaries;
a command's module (and everything heavy it needs) is imported only when that command runs.
Each module in ``foretune.commands`` provides ``build_parser(prog) -> ArgumentParser`` and
``run(args, env) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from typing import TYPE_CHECKING, Any, NoReturn, Protocol, cast

from foretune import __version__
from foretune.env import Environment, ExitStatus
from foretune.errors import ForetuneError, UsageError
from foretune.term import terminal_width

if TYPE_CHECKING:
    from collections.abc import Sequence

# name -> (module in foretune.commands, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "plan": ("plan", "compute the tuning profile and every tunable for a box and workload"),
    "render": ("render", "merge a plan into an existing custom-hiera.yaml (diff first, --write to apply)"),
    "apply": ("apply", "show the change set as a diff against the host; --write applies it with backups and a journal"),
    "verify": ("verify", "check that the last applied change set is in force: pending, drift (exit 1), for monitoring"),
    "profiles": ("profiles", "list, show and compare the installer's --tuning profiles per version"),
    "facts": ("facts", "print what foretune reads from a live host, sosreport or snapshot"),
    "collect": ("collect", "write a snapshot of this server's facts for later audit or plan"),
    "audit": ("audit", "check a live server, sosreport or snapshot and report findings with fixes"),
    "rules": ("rules", "list the audit rules or explain one"),
    "bench": ("bench", "benchmark storage (fio) or the database (pgbench) with verdicts"),
    "logs": ("logs", "read the server's logs: latency per endpoint, 503 bursts, exhaustion, before/after tuning"),
    "model": ("model", "simulate a workload on a box: throughput, success, bottleneck, knee, what-ifs"),
    "load": ("load", "put registration, content, API or pull-REX load on a server and measure it per step"),
    "db-size": ("db_size", "report the largest tables of the foreman, candlepin and pulpcore databases"),
    "collector": ("collector", "print a one-file collector for servers with only Python 2.7 or 3.6 (RHEL 7/8)"),
    "completion": ("completion", "print a bash, zsh or fish completion script"),
}

EPILOG = """\
examples:
  foretune plan --product foreman --version 3.9 --hosts 8000 --cpus 8 --ram 32G
  foretune audit examples/sosreport-satellite-6.15-mistuned
  foretune plan --help

environment:
  NO_COLOR, TERM=dumb   no colour in terminal output
  COLUMNS               wrap text reports to this width; output to a pipe or file is
                        not wrapped (one line per item, for grep and scripts, as git does)
  FORETUNE_PG_CONNINFO  live facts: libpq conninfo of the database
                        (default: from /etc/foreman/database.yml)
  FORETUNE_REDIS_URL    live facts: redis://HOST:PORT or unix:///PATH of Redis
  PGHOST, PGPORT, PGUSER, PGDATABASE, PGSERVICE, PGPASSWORD
                        bench db, db-size: the server when --dsn is not given
  PATH                  where fio, pgbench, psql and the facts' commands are, and xz
                        and pigz, which decode .tar.xz/.tar.gz sosreports (without pigz,
                        foretune decodes .tar.gz itself)
  FORETUNE_DECODER=python
                        decode archives in foretune itself, never with xz/pigz
  FORETUNE_LOAD_JWT, FORETUNE_LOAD_USER, FORETUNE_LOAD_TOKEN
                        load: registration token, API user and personal access token (never printed)
  FORETUNE_LOAD_LOOPBACK_ONLY=1
                        load: refuse any target that is not a loopback address (tests)
  FORETUNE_DEBUG=1      show the traceback of an internal error (as --debug)

exit status: 0 fine, 1 findings or failed verdicts at or above --fail-on,
2 usage or input error, 3 internal error, 130 interrupted.
"""


class CommandModule(Protocol):
    def build_parser(self, prog: str) -> argparse.ArgumentParser: ...

    def run(self, args: argparse.Namespace, env: Environment) -> int: ...


def load_command(name: str) -> CommandModule:
    """Import the module implementing command ``name``."""
    module_name, _ = COMMANDS[name]
    return cast("CommandModule", importlib.import_module(f"foretune.commands.{module_name}"))


def build_root_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="foretune",
        description="Size, tune and audit Foreman/Katello, Red Hat Satellite and orcharhino servers\n"
        "and their Smart Proxies/Capsules.",
        epilog=EPILOG,
    )
    parser.add_argument("--debug", action="store_true",
                        help="before COMMAND: show the traceback of an internal error (also FORETUNE_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, summary) in COMMANDS.items():
        sub.add_parser(name, help=summary, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None, env: Environment | None = None) -> int:
    """Run foretune; return the exit status."""
    env = env or Environment()
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = env.environ.get("FORETUNE_DEBUG", "") not in ("", "0")
    while argv[:1] == ["--debug"]:
        debug = True
        argv.pop(0)
    if not argv:  # bare `foretune`: show what there is, but it is not a successful run
        build_root_parser().print_help(env.stderr)
        return ExitStatus.USAGE
    name = argv[0].lower() if argv[0].lower() in COMMANDS else argv[0]
    rest = argv[1:]
    try:
        if name not in COMMANDS:
            with redirect_stdout(env.stdout), redirect_stderr(env.stderr):
                try:
                    build_root_parser().parse_args(argv)  # help, version, or a one-line usage error
                except SystemExit as exc:
                    return int(exc.code or 0)
            build_root_parser().print_help(env.stderr)  # options only, no command
            return ExitStatus.USAGE
        command = load_command(name)
        parser = command.build_parser(f"foretune {name}")
        try:
            with redirect_stdout(env.stdout), redirect_stderr(env.stderr):
                args = parser.parse_args(rest)
        except SystemExit as exc:
            return int(exc.code or 0)
        env.color_choice = getattr(args, "color", None) or "auto"
        from foretune.commands._options import check_outputs  # start-up: only when main runs

        check_outputs(args)
        return int(command.run(args, env))
    except ForetuneError as exc:
        print(f"{exc.prog}: error: {exc}", file=env.stderr)
        return exc.exit_status
    except KeyboardInterrupt:
        print("foretune: interrupted", file=env.stderr)
        return ExitStatus.INTERRUPTED
    except BrokenPipeError:
        return ExitStatus.OK
    except OSError as exc:  # a path the user named cannot be read or written
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"foretune: error: {where}{exc.strerror or exc}", file=env.stderr)
        return ExitStatus.USAGE
    except Exception as exc:  # a bug: never exit 1, which audit uses for findings
        return internal_error(exc, env, debug=debug)


def internal_error(exc: BaseException, env: Environment, *, debug: bool) -> int:
    """Report an unexpected exception in one line (the traceback too with ``--debug``); exit status 3."""
    if debug:
        import traceback  # start-up: traceback loads only to report a bug

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=env.stderr)
    from foretune.host.redact import redact_text  # start-up: host.redact loads only to report a bug

    detail = redact_text(" ".join(str(exc).split()))[:200]
    hint = "" if debug else " (run `foretune --debug ...` for the traceback)"
    print(f"foretune: internal error: {type(exc).__name__}{': ' + detail if detail else ''}{hint}", file=env.stderr)
    return ExitStatus.INTERNAL


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, sized without importing shutil (argparse builds one per option it adds)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None) -> None:
        if width is None:


            width = (terminal_width(sys.__stdout__, os.environ) or 80) - 2  # COLUMNS, the terminal, else 80
        super().__init__(prog, indent_increment, max_help_position, width)


class Parser(argparse.ArgumentParser):
    """ArgumentParser with foretune's conventions.

    Errors are one line (via UsageError) with a "did you mean" for misspelt commands, options
    and choices; choices match case-insensitively (``--product Satellite``); every parser and
    subparser answers ``--version``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("conflict_handler", "resolve")  # a command's own --version replaces the default one
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)
        if self.add_help:
            self.add_argument("--version", action="version", version=f"foretune {__version__}",
                              help="print foretune's version and exit")

    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments:"):
            message += _suggest_options(self, message.split(":", 1)[1].split())
        error = UsageError(message)
        error.prog = self.prog  # one prefix: "foretune plan: error: ...", as argparse itself words it
        raise error

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        value = super()._get_value(action, arg_string)
        if action.choices is not None and isinstance(value, str) and value not in action.choices:
            folded = {str(choice).lower(): choice for choice in action.choices}
            return folded.get(value.lower(), value)
        return value

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> object:
        # argparse drops a lone "--" value and hands the option an empty list instead of a string
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            self.error(f"argument {'/'.join(action.option_strings)}: expected one argument")
        return super()._get_values(action, arg_strings)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        import difflib  # start-up: difflib loads only to suggest a near miss

        choices = [str(choice) for choice in action.choices]
        close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise argparse.ArgumentError(action, f"invalid choice: {value!r} (choose from {', '.join(choices)}){hint}")


def _suggest_options(parser: argparse.ArgumentParser, unknown: list[str]) -> str:
    import difflib  # start-up: difflib loads only to suggest a near miss

    known = [opt for opt in parser._option_string_actions if opt.startswith("--")]
    hints = {}
    for word in unknown:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.6)
            if close:
                hints[word] = close[0]
    if len(hints) == 1:
        return f"; did you mean {next(iter(hints.values()))}?"
    return "".join(f"; {word}: did you mean {option}?" for word, option in hints.items())


COLOR_HELP = "colour: auto (default: on a terminal, unless NO_COLOR is set or FORCE_COLOR forces it), always or never"


def add_color_option(parser: argparse.ArgumentParser, *, sub: bool = False) -> None:
    """``--color auto|always|never``; on a sub-command it does not reset a value given before it."""
    parser.add_argument("--color", choices=("auto", "always", "never"), metavar="WHEN", help=COLOR_HELP,
                        default=argparse.SUPPRESS if sub else None)


def new_parser(prog: str, description: str, example: str) -> argparse.ArgumentParser:
    """A command parser whose help ends with an ``example:`` block (every command has one)."""
    parser = Parser(
        prog=prog,
        description=description,
        epilog=f"example:\n  {example}",
    )
    add_color_option(parser)
    return parser


def _zipapp_main() -> None:
    """Entry point of the single-file zipapp."""
    sys.exit(main())
