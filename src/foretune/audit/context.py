"""Build the rule context from facts: release, role, host count, plan and bench results."""

from __future__ import annotations

import dataclasses
from typing import Any

from foretune.errors import UsageError
from foretune.facts.model import FactSet
from foretune.rules.base import Context


def build_context(facts: FactSet, *, hosts: int | None = None, bench: list[dict[str, Any]] | None = None) -> tuple[Context, list[str]]:
    """The context and notes on what could not be derived (e.g. why there is no plan)."""
    from foretune.knowledge.releases import resolve_release
    from foretune.plan import input_from_facts, make_plan

    notes: list[str] = []
    release = None
    product, version = facts.value("product"), facts.value("product_version")
    if product and version:
        try:
            release = resolve_release(product, version, foreman_version=facts.value("foreman_version"))
        except UsageError as exc:
            notes.append(f"release unknown: {exc}")
    else:
        notes.append("release unknown: no Foreman, Satellite, orcharhino or Capsule packages found in the source")
    host_count = hosts if hosts is not None else facts.value("managed_hosts")
    plan = None
    if release is not None:
        try:
            # Without a client census, every managed host counts as a katello-agent client on qpid
            # releases: the limits then cover the worst case, as `plan --katello-agent-hosts` would.
            extra = {"katello_agent_hosts": host_count} if release.features.qpid and host_count else {}
            plan = make_plan(input_from_facts(facts, hosts=host_count, **extra))
        except UsageError as exc:
            notes.append(f"plan unavailable: {exc}")
    role = facts.value("role") or (plan.input.role if plan else None)
    ctx = Context(facts=facts, release=release, role=role, hosts=host_count, plan=plan, bench=list(bench or []))
    if plan is None and notes:  # the specific reason beats the generic default
        ctx = dataclasses.replace(ctx, no_plan_reason=notes[-1])
    return ctx, notes
