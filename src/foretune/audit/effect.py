"""Fixes that take effect: a fix that lands below a place of higher precedence for the same key (the table in
``foretune.knowledge.precedence``) also removes what shadows it, and the finding names that place as the cause."""

from __future__ import annotations

import dataclasses

from foretune.knowledge.precedence import postgresql_shadow
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix
from foretune.rules.base import Context, Evidence, Outcome, Rule, Status


def take_effect(rule: Rule, ctx: Context, outcome: Outcome) -> Outcome:
    """``outcome`` with every PostgreSQL custom-hiera fix preceded by what removes a postgresql.auto.conf line
    (ALTER SYSTEM) that sets the same setting: that line wins over every postgresql.conf the installer writes."""
    if outcome.status != Status.FAIL or not outcome.fixes:
        return outcome
    fact = ctx.facts["postgresql"]
    if not fact.known:
        return outcome
    files = [(p.location, p.excerpt) for p in fact.provenance]
    undo: list[Fix] = []
    evidence: list[Evidence] = []
    causes: list[str] = []
    cites = list(outcome.citations or rule.citations)
    for fix in outcome.fixes:
        if fix.kind != "hiera" or not fix.target.startswith(PG + "/"):
            continue
        shadow = postgresql_shadow(fix.target.split("/", 1)[1], files)
        if shadow is None or any(f.target == shadow.undo for f in (*outcome.fixes, *undo)):
            continue
        undo.append(Fix("command", shadow.undo))
        if not any(e.location == shadow.location and shadow.line in e.excerpt for e in outcome.evidence):
            evidence.append(Evidence("postgresql", shadow.location, shadow.line))
        causes.append(f"{shadow.location} sets {shadow.line} (ALTER SYSTEM), which wins over postgresql.conf: "
                      f"{shadow.reset} first, or the installer's value never takes effect")
        cites += [c for c in shadow.citations if c not in cites]
    if not undo:
        return outcome
    return dataclasses.replace(outcome, message=f"{outcome.message}; {'; '.join(causes)}",
                               fixes=(*undo, *outcome.fixes), evidence=(*outcome.evidence, *evidence), citations=tuple(cites))
