"""Discover rules: every module under ``foretune.rules.<component>`` that defines ``RULE``."""

from __future__ import annotations

import functools
import importlib
import pkgutil

import foretune.rules as package
from foretune.errors import DataError, UsageError
from foretune.rules.base import Rule

NOT_RULES = {"base", "registry", "docs", "values"}


@functools.lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    """All rules, sorted by component then id (zipapp-safe discovery via pkgutil)."""

    found: dict[str, Rule] = {}
    for component in pkgutil.iter_modules(package.__path__):
        if not component.ispkg:
            continue
        sub = importlib.import_module(f"foretune.rules.{component.name}")
        for info in pkgutil.iter_modules(sub.__path__):
            module = importlib.import_module(f"foretune.rules.{component.name}.{info.name}")
            rule = getattr(module, "RULE", None)
            if not isinstance(rule, Rule):
                continue
            if rule.id in found:
                raise DataError(f"rule id {rule.id!r} defined twice")
            if rule.component != component.name:
                raise DataError(f"rule {rule.id} says component {rule.component!r} but lives in {component.name}/")
            found[rule.id] = rule
    return tuple(sorted(found.values(), key=lambda r: (r.component, r.id)))


def rule_module_path(rule: Rule) -> str:
    """``<component>/<module name>`` of a rule (its doc is the sibling .md)."""
    return f"{rule.component}/{type(rule).__module__.rsplit('.', 1)[1]}"


def get_rule(rule_id: str) -> Rule:
    for rule in all_rules():
        if rule.id == rule_id:
            return rule
    raise UsageError(f"unknown rule {rule_id!r} (see: foretune rules list)")
