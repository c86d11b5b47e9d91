"""``foretune collector``: print the stdlib-only collector script for Python 2.7 and 3.6 servers."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from foretune.cli import new_parser
from foretune.commands._options import emit, output_file

if TYPE_CHECKING:
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Print one Python file that collects a snapshot on a server whose Python is too old for "
                        "foretune (RHEL 7: 2.7, RHEL 8: platform-python 3.6). It needs only the standard library, reads "
                        "the same files (the last week's logs too) and commands as `foretune collect`, redacts the same "
                        "secrets, and writes a snapshot that `facts`, `plan --from`, `audit` and `logs` accept. Run it as root to include the database "
                        "(through psql), limits and protected files.",
                        "foretune collector > foretune-collect.py && scp foretune-collect.py sat:  "
                        "# then on sat: python foretune-collect.py")
    parser.add_argument("--output", "-o", metavar="FILE", type=output_file,
                        help="write the script to FILE instead of standard output ('-' is standard output)")
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.facts.collector import generate  # start-up: only for a `collector` run, not --help

    emit(args, env, generate())
    return 0
