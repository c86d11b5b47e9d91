"""``foretune facts``: print what foretune reads from a live host, a sosreport or a snapshot."""

from __future__ import annotations

import argparse
import io
from typing import TYPE_CHECKING, Any, TextIO

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format, positive
from foretune.errors import UsageError
from foretune.term import clean_line, human_bytes, plural, render_to_text
from foretune.units import format_gib

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
    import json  # start-up: json loads only for JSON input or output

    from foretune.facts import read_source  # start-up: only for a `facts` run, not --help
    from foretune.facts.catalog import BY_NAME  # start-up: only for a `facts` run, not --help
    from foretune.facts.serialize import facts_to_dict  # start-up: only for a `facts` run, not --help

    if args.hosts is not None and args.hosts < 0:
        raise UsageError("--hosts must be zero or more")
    wanted = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
    for name in wanted or []:
        if name not in BY_NAME:
            raise UsageError(f"unknown fact {name!r} (see docs/cli-reference.md or `foretune facts --format json`)")
    source = None if args.source in (None, "live") else args.source
    with env.read_progress(source) as progress:
        facts = read_source(source, hosts=args.hosts, environ=env.environ, progress=progress)
    data = facts_to_dict(facts)
    if wanted:
        data["facts"] = {n: data["facts"][n] for n in wanted}
    for line in facts.problems:
        env.warn(line)
    out = io.StringIO()
    if output_format(args) == "json":
        print(json.dumps(data, indent=2), file=out)
    else:
        print_table(data, out, show_unknown=args.unknown or bool(wanted), color=env.color and not args.output,
                    width=None if args.output else env.width)
    emit(args, env, out.getvalue())
    return 0


BYTE_KEYS = {"maxmemory", "used_memory"}  # Redis (the catalogue says int bytes)


def _is_bytes(key: str) -> bool:
    return key.endswith("_bytes") or key in BYTE_KEYS


def _short(value: Any, width: int = 70) -> str:
    if isinstance(value, dict):
        text = ", ".join(f"{k}={human_bytes(v) if isinstance(v, int) and v and _is_bytes(str(k)) else _short(v, 30)}"
                         for k, v in value.items() if not isinstance(v, (dict, list)))
        nested = [k for k, v in value.items() if isinstance(v, (dict, list))]
        if nested:
            text += (", " if text else "") + ", ".join(f"{k}=…" for k in nested[:6]) + (" …" if len(nested) > 6 else "")
    elif isinstance(value, list):
        text = plural(len(value), "entry", "entries")
    elif value is None:
        text = "none"
    else:
        text = str(value).replace("\n", " ")
    text = clean_line(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def print_table(data: dict[str, Any], out: TextIO, *, show_unknown: bool, color: bool = False, width: int | None = None) -> None:
    """Facts as a table wrapped to the terminal: name, value, where it came from."""
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.table import Table  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn


    source = data["source"]
    table = Table.grid(padding=(0, 2, 0, 0))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    table.add_column(overflow="fold", style="muted")
    unknown = 0
    for name, entry in data["facts"].items():
        if entry.get("unknown"):
            unknown += 1
            if show_unknown:
                table.add_row(name, Text("unknown", style="sev.medium"), clean_line(entry["reason"]))
            continue
        value = entry["value"]
        if name == "ram_bytes" and isinstance(value, int):
            shown = format_gib(value)  # as plan and audit headers show RAM
        elif name.endswith("_bytes") and isinstance(value, int):
            shown = human_bytes(value)
        else:
            shown = _short(value)
        where = clean_line(entry["provenance"][0]["location"]) if entry["provenance"] else ""
        table.add_row(name, shown, where)
    parts: list[Any] = [Text(f"facts from {clean_line(source['label'])} ({source['kind']})", style="heading"), table]
    if unknown and not show_unknown:
        parts.append(Text(f"{plural(unknown, 'fact')} unknown (--unknown lists them with the reason)"))
    out.write(render_to_text(Group(*parts), color=color, width=width))
