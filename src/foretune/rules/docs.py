"""Rule documentation: each rule's sibling .md, checked for required sections, rendered to docs/rules/."""

from __future__ import annotations

import re
from importlib import resources

from foretune.rules.base import Rule

SECTIONS = ("What it checks", "Why it matters", "Evidence", "Example", "Fix", "Fix safety", "References")


def doc_text(rule: Rule) -> str:
    """The rule's markdown doc (``<module>.md`` beside the rule module)."""
    from foretune.rules.registry import rule_module_path

    component, name = rule_module_path(rule).split("/")
    return resources.files(f"foretune.rules.{component}").joinpath(f"{name}.md").read_text(encoding="utf-8")


def doc_problems(rule: Rule) -> list[str]:
    """What is wrong with a rule's doc; empty when it is complete."""
    from foretune.knowledge import citations

    try:
        text = doc_text(rule)
    except FileNotFoundError:
        return [f"{rule.id}: no doc"]
    problems = []
    if not text.startswith(f"# {rule.id}\n"):
        problems.append(f"{rule.id}: doc must start with '# {rule.id}'")
    headings = re.findall(r"^## (.+)$", text, re.M)
    if tuple(headings) != SECTIONS:
        problems.append(f"{rule.id}: sections {headings} should be {list(SECTIONS)}")
    refs = text.split("## References", 1)[-1]
    cited = re.findall(r"`([a-z0-9][a-z0-9.-]*)`", refs)
    if not cited:
        problems.append(f"{rule.id}: References cite nothing")
    problems += [f"{rule.id}: unknown citation {c}" for c in cited if c not in citations()]
    if not rule.citations:
        problems.append(f"{rule.id}: the rule class lists no citations")
    missing = [c for c in rule.citations if c not in cited]
    problems += [f"{rule.id}: citation {c} of the rule is not in its References" for c in missing]
    if f"- Severity: {rule.severity.label}" not in text:
        problems.append(f"{rule.id}: doc must say '- Severity: {rule.severity.label}'")
    return problems


def render_all() -> dict[str, str]:
    """File name -> markdown for docs/rules/: one page per rule plus index.md."""
    from foretune.rules.registry import all_rules

    pages = {}
    index = ["# Audit rules", "", "Generated from the rule docs by `python3 dev.py docs`; a test fails when it drifts.",
             "See also [not-checkable.md](not-checkable.md) for guide recommendations no rule can verify.", ""]
    component = None
    for rule in all_rules():
        if rule.component != component:
            component = rule.component
            index += ["", f"## {component}", "", "| rule | severity | checks |", "|---|---|---|"]
        index.append(f"| [{rule.id}]({rule.id}.md) | {rule.severity.label} | {rule.title} |")
        pages[f"{rule.id}.md"] = doc_text(rule)
    pages["index.md"] = "\n".join(index) + "\n"
    pages["not-checkable.md"] = resources.files("foretune.rules").joinpath("not-checkable.md").read_text(encoding="utf-8")
    return pages
