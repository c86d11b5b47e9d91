"""``foretune collect``: write a snapshot of this server's facts for a later audit or plan elsewhere."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from foretune.cli import new_parser
from foretune.commands._options import positive
from foretune.errors import InputError, UsageError

if TYPE_CHECKING:
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Read this server live and write a snapshot: every fact with its provenance, the raw "
                        "texts they came from and the last week's logs (secrets redacted), and metadata. `facts`, "
                        "`audit`, `plan --from` and `logs` accept the file. Run as root to include the database, limits and protected files.",
                        "foretune collect --output /tmp/satellite.json.gz")
    parser.add_argument("--output", "-o", metavar="FILE", help="snapshot file (.json or .json.gz); default: "
                        "foretune-snapshot-HOST-YYYYmmdd-HHMMSS.json.gz in the current directory")
    parser.add_argument("--out", dest="output", help=argparse.SUPPRESS)  # earlier name of --output
    parser.add_argument("--root", metavar="DIR", default="/",
                        help="read files below DIR instead of / (a copied tree or chroot); commands still run here")
    parser.add_argument("--hosts", type=positive, metavar="N", help="managed host count, when the database cannot be read")
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    import socket  # start-up: only for a `collect` run, not --help
    from datetime import datetime  # start-up: only for a `collect` run, not --help
    from pathlib import Path  # start-up: only for a `collect` run, not --help

    from foretune.facts.collect import collect  # start-up: only for a `collect` run, not --help

    if args.hosts is not None and args.hosts < 0:
        raise UsageError("--hosts must be zero or more")
    if args.output:
        out = Path(args.output)
    else:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        out = Path(f"foretune-snapshot-{socket.gethostname().split('.')[0]}-{stamp}.json.gz")
    if not out.name.endswith((".json", ".json.gz")):
        raise UsageError(f"--output {out}: the snapshot name must end in .json or .json.gz")
    if out.parent and not out.parent.exists():
        raise InputError(f"--output {out}: directory {out.parent} does not exist")
    if not os.path.isdir(args.root):
        raise InputError(f"--root {args.root}: not a directory")
    if os.geteuid() != 0:
        env.note("not running as root: the database, process limits and protected files are skipped (see the unknown facts)")
    path, problems = collect(out, hosts=args.hosts, environ=env.environ, root=args.root)
    for line in problems:
        env.warn(line)
    env.note(f"snapshot written to {path}")
    return 0
