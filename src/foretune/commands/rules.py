"""``foretune rules``: list the audit rules or explain one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from foretune.cli import add_color_option, new_parser
from foretune.commands._options import add_output, emit, output_format
from foretune.errors import UsageError
from foretune.term import plural, render_to_text

if TYPE_CHECKING:
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "List the audit rules (id, component, severity, what each checks) or print one rule's "
                        "documentation.", "foretune rules explain pg-max-connections-below-budget")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    lst = sub.add_parser("list", help="every rule, grouped by component")
    lst.add_argument("--component", help="only this component")
    add_output(lst, ("text", "json"), "text")
    explain = sub.add_parser("explain", help="a rule's documentation: what, why, evidence, fix, references")
    explain.add_argument("rule_id", metavar="ID")
    add_color_option(lst, sub=True)
    add_color_option(explain, sub=True)
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.rules.registry import all_rules, get_rule  # start-up: only for a `rules` run, not --help

    if args.action == "explain":
        from foretune.rules.docs import doc_text  # start-up: only for a `rules` run, not --help

        doc = doc_text(get_rule(args.rule_id))
        if env.color or env.stdout_isatty or env.width:
            env.stdout.write(markdown_text(doc, color=env.color, width=env.width or 100))
        else:
            env.stdout.write(doc)  # piped: the Markdown source, for docs and tickets
        return 0
    rules = [r for r in all_rules() if args.component in (None, r.component)]
    if not rules:
        raise UsageError(f"no rules for component {args.component!r}")
    if output_format(args) == "json":
        import json  # start-up: json loads only for JSON input or output

        emit(args, env, json.dumps([{"id": r.id, "component": r.component, "severity": r.severity.label,
                                     "title": r.title, "roles": sorted(r.roles), "citations": list(r.citations)}
                                    for r in rules], indent=2) + "\n")
        return 0
    from rich.table import Table  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn


    table = Table(box=None, padding=(0, 2, 0, 0), pad_edge=False, show_header=False)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True)
    table.add_column(ratio=1)
    for r in rules:
        table.add_row(r.id, r.component, Text(r.severity.label, style=f"sev.{r.severity.label}"), r.title)
    emit(args, env, render_to_text(table, color=env.color and not args.output, width=None if args.output else env.width)
         + plural(len(rules), "rule") + "\n")
    return 0


def markdown_text(doc: str, *, color: bool, width: int) -> str:
    """A rule's Markdown documentation rendered for the terminal (headings, lists, code blocks)."""
    from rich.markdown import Markdown  # start-up: rich, only when this is drawn


    return render_to_text(Markdown(doc, code_theme="ansi_light" if color else "bw", hyperlinks=False, inline_code_lexer=None),
                          color=color, width=width)
