"""``foretune db-size``: the largest tables of the Foreman databases and the data directory size."""

from __future__ import annotations

import argparse

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format, positive
from foretune.env import Environment, ExitStatus
from foretune.errors import InputError
from foretune.knowledge import threshold

DESCRIPTION = """\
Read-only report of the largest tables (total, index, TOAST, table) of the foreman, candlepin and
pulpcore databases and the size of the PostgreSQL data directory, like satellite-support's
postgres-size-report. Sessions are read-only (default_transaction_read_only). Target: --dsn,
else the libpq environment (PGHOST, PGUSER, ...), else the local socket as user postgres."""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, DESCRIPTION, "foretune db-size --limit 10")
    parser.add_argument("--dsn", metavar="CONNINFO", help="libpq conninfo or postgresql:// URI of the server (dbname is ignored)")
    parser.add_argument("--database", "-d", action="append", metavar="NAME",
                        help="database to report (repeatable; default foreman, candlepin, pulpcore)")
    parser.add_argument("--limit", type=positive, metavar="N", help=f"tables per database (default {threshold('bench-dbsize-top')})")
    add_output(parser, ("text", "json"), "text", help="text (default) or json (schema foretune-dbsize/1)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help=argparse.SUPPRESS)
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    import json  # start-up: json loads only for JSON input or output

    from foretune.bench import dbsize, pgclient  # start-up: only for a `db-size` run, not --help

    target = pgclient.resolve(args.dsn, env.environ)
    limit = args.limit or int(threshold("bench-dbsize-top"))
    doc = dbsize.report(target, args.database or list(dbsize.DATABASES), limit)
    if not doc["databases"]:
        raise InputError(f"none of {', '.join(doc['missing'])} exists on {target.describe()}")
    emit(args, env, json.dumps(doc, indent=2) + "\n" if output_format(args) == "json" else dbsize.summary(doc, limit))
    return ExitStatus.OK
