"""Command-line entry point.

Start-up stays lean: the root parser knows only command names and one-line summaries;
a command's module (and everything heavy it needs) is imported only when that command runs.
Each module in ``foretune.commands`` provides ``build_parser(prog) -> ArgumentParser`` and
``run(args, env) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from contextlib import redirect_stderr, redirect_stdout
from typing import TYPE_CHECKING, NoReturn, Protocol, cast

from foretune import __version__
from foretune.env import Environment, ExitStatus
from foretune.errors import ForetuneError, UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

# name -> (module in foretune.commands, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "plan": ("plan", "compute the tuning profile and every tunable for a box and workload"),
    "render": ("render", "merge a plan into an existing custom-hiera.yaml (diff first, --write to apply)"),
    "profiles": ("profiles", "list, show and compare the installer's --tuning profiles per version"),
    "facts": ("facts", "print what foretune reads from a live host, sosreport or snapshot"),
    "collect": ("collect", "write a snapshot of this server's facts for later audit or plan"),
    "audit": ("audit", "check a live server, sosreport or snapshot and report findings with fixes"),
    "rules": ("rules", "list the audit rules or explain one"),
    "bench": ("bench", "benchmark storage (fio) or the database (pgbench) with verdicts"),
    "db-size": ("db_size", "report the largest tables of the foreman, candlepin and pulpcore databases"),
}

EPILOG = """\
examples:
  foretune plan --product satellite --version 6.15 --hosts 12000 --cpus 16 --ram 64G
  foretune audit examples/sosreport-satellite-6.15
  foretune COMMAND --help
"""


class CommandModule(Protocol):
    def build_parser(self, prog: str) -> argparse.ArgumentParser: ...

    def run(self, args: argparse.Namespace, env: Environment) -> int: ...


def load_command(name: str) -> CommandModule:
    """Import the module implementing command ``name``."""
    module_name, _ = COMMANDS[name]
    return cast("CommandModule", importlib.import_module(f"foretune.commands.{module_name}"))


def build_root_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="foretune",
        description="Size, tune and audit Foreman/Katello, Red Hat Satellite and orcharhino "
        "servers and their Smart Proxies/Capsules.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"foretune {__version__}")
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
    root = build_root_parser()
    if not argv or argv[0] not in COMMANDS:
        try:
            with redirect_stdout(env.stdout), redirect_stderr(env.stderr):
                root.parse_args(argv)  # prints help/version/usage errors and exits
        except SystemExit as exc:
            return int(exc.code or 0)
        root.print_help(env.stdout)
        return ExitStatus.OK
    name, rest = argv[0], argv[1:]
    try:
        command = load_command(name)
        parser = command.build_parser(f"foretune {name}")
        try:
            with redirect_stdout(env.stdout), redirect_stderr(env.stderr):
                args = parser.parse_args(rest)
        except SystemExit as exc:
            return int(exc.code or 0)
        env.color_choice = getattr(args, "color", None) or "auto"
        return int(command.run(args, env))
    except ForetuneError as exc:
        print(f"foretune: error: {exc}", file=env.stderr)
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
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=env.stderr)
    from foretune.facts.redact import redact_text

    detail = redact_text(" ".join(str(exc).split()))[:200]
    hint = "" if debug else " (run `foretune --debug ...` for the traceback)"
    print(f"foretune: internal error: {type(exc).__name__}{': ' + detail if detail else ''}{hint}", file=env.stderr)
    return ExitStatus.INTERNAL


class Parser(argparse.ArgumentParser):
    """ArgumentParser whose errors are one line (via UsageError) on the command's error stream."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> object:
        # argparse drops a lone "--" value and hands the option an empty list instead of a string
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            self.error(f"argument {'/'.join(action.option_strings)}: expected one argument")
        return super()._get_values(action, arg_strings)


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
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_color_option(parser)
    return parser


def _zipapp_main() -> None:
    """Entry point of the single-file zipapp."""
    sys.exit(main())
