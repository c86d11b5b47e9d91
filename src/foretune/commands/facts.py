"""``foretune facts``: print what foretune reads from a live host, a sosreport or a snapshot."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format, positive

if TYPE_CHECKING:
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Print every fact foretune reads, with where it came from. Without SOURCE, read this "
                        "host live (run as root for the database, limits and protected files).",
                        "foretune facts examples/sosreport-satellite-6.15-mistuned")
    parser.add_argument("source", nargs="?", metavar="SOURCE",
                        help="sosreport directory or tarball (.tar, .tar.gz, .tar.xz, .tar.bz2), or a snapshot from "
                        "`foretune collect` (.json, .json.gz); default (or `live`): this host")
    parser.add_argument("--hosts", type=positive, metavar="N", help="managed host count, when the source lacks it")
    add_output(parser, ("table", "json"), "table")
    parser.add_argument("--only", metavar="NAME[,NAME...]", help="print only these facts")
    parser.add_argument("--unknown", action="store_true", help="table: also list unknown facts with the reason")
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    import io
    import json

    from foretune.errors import UsageError
    from foretune.facts import read_source
    from foretune.facts.catalog import BY_NAME
    from foretune.facts.serialize import facts_to_dict

    if args.hosts is not None and args.hosts < 0:
        raise UsageError("--hosts must be zero or more")
    wanted = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    for name in wanted or []:
        if name not in BY_NAME:
            raise UsageError(f"unknown fact {name!r} (see docs/cli-reference.md or `foretune facts --format json`)")
    source = None if args.source in (None, "live") else args.source
    facts = read_source(source, hosts=args.hosts, environ=env.environ)
    data = facts_to_dict(facts)
    if wanted:
        data["facts"] = {n: data["facts"][n] for n in wanted}
    for line in facts.problems:
        env.warn(line)
    out = io.StringIO()
    if output_format(args) == "json":
        print(json.dumps(data, indent=2), file=out)
    else:
        print_table(data, out, show_unknown=args.unknown or bool(wanted))
    emit(args, env, out.getvalue())
    return 0


def _short(value: Any, width: int = 70) -> str:
    from foretune.units import format_gib

    if isinstance(value, dict):
        text = ", ".join(f"{k}={_short(v, 30) if not (isinstance(v, int) and k.endswith('_bytes')) else format_gib(v)}"
                         for k, v in value.items() if not isinstance(v, (dict, list)))
        nested = [k for k, v in value.items() if isinstance(v, (dict, list))]
        if nested:
            text += (", " if text else "") + ", ".join(f"{k}=…" for k in nested[:6]) + (" …" if len(nested) > 6 else "")
    elif isinstance(value, list):
        text = f"{len(value)} entries"
    elif value is None:
        text = "none"
    else:
        text = str(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def print_table(data: dict[str, Any], out: TextIO, *, show_unknown: bool) -> None:
    from foretune.units import format_gib

    source = data["source"]
    print(f"facts from {source['label']} ({source['kind']})", file=out)
    rows = []
    unknown = 0
    for name, entry in data["facts"].items():
        if entry.get("unknown"):
            unknown += 1
            if show_unknown:
                rows.append((name, "unknown", entry["reason"]))
            continue
        value = entry["value"]
        shown = format_gib(value) if name == "ram_bytes" and isinstance(value, int) else _short(value)
        where = entry["provenance"][0]["location"] if entry["provenance"] else ""
        rows.append((name, shown, where))
    width = max((len(r[0]) for r in rows), default=4)
    vwidth = min(72, max((len(r[1]) for r in rows), default=5))
    for name, value, where in rows:
        print(f"  {name:<{width}}  {value:<{vwidth}}  {where}", file=out)
    if unknown and not show_unknown:
        print(f"{unknown} facts unknown (--unknown lists them with the reason)", file=out)
