"""``foretune rules``: list the audit rules or explain one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from foretune.cli import add_color_option, new_parser

if TYPE_CHECKING:
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "List the audit rules (id, component, severity, what each checks) or print one rule's "
                        "documentation.", "foretune rules explain pg-max-connections-below-budget")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    lst = sub.add_parser("list", help="every rule, grouped by component")
    lst.add_argument("--component", help="only this component")
    lst.add_argument("--format", choices=("text", "json"), default="text")
    explain = sub.add_parser("explain", help="a rule's documentation: what, why, evidence, fix, references")
    explain.add_argument("rule_id", metavar="ID")
    add_color_option(lst, sub=True)
    add_color_option(explain, sub=True)
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.errors import UsageError
    from foretune.rules.registry import all_rules, get_rule

    if args.action == "explain":
        from foretune.rules.docs import doc_text

        env.stdout.write(doc_text(get_rule(args.rule_id)))
        return 0
    rules = [r for r in all_rules() if args.component in (None, r.component)]
    if not rules:
        raise UsageError(f"no rules for component {args.component!r}")
    if args.format == "json":
        import json

        env.stdout.write(json.dumps([{"id": r.id, "component": r.component, "severity": r.severity.label,
                                      "title": r.title, "roles": sorted(r.roles), "citations": list(r.citations)}
                                     for r in rules], indent=2) + "\n")
        return 0
    width = max(len(r.id) for r in rules)
    for r in rules:
        env.stdout.write(f"{r.id:<{width}}  {r.component:<10} {r.severity.label:<8} {r.title}\n")
    env.stdout.write(f"{len(rules)} rules\n")
    return 0
