"""Run rules against a context: gates in order, exceptions become ERROR outcomes."""

from __future__ import annotations

from collections.abc import Iterable

from foretune.audit.model import Finding
from foretune.rules.base import Context, Outcome, Rule, Status


def run_rule(rule: Rule, ctx: Context) -> Outcome:
    """Role gate, then ``applies()``, then ``needs``, then ``check()``; never raises."""
    try:
        if ctx.role is not None and ctx.role not in rule.roles:
            return Outcome(Status.SKIP, f"not applicable to a {ctx.role}")
        reason = rule.applies(ctx)
        if reason:
            return Outcome(Status.SKIP, reason)
        for name in rule.needs:
            fact = ctx.facts[name]
            if not fact.known:
                return Outcome(Status.SKIP, f"fact unknown: {name} ({fact.unknown_reason})")
        return rule.check(ctx)
    except Exception as exc:  # a rule bug must not end the audit
        return Outcome(Status.ERROR, f"rule failed: {type(exc).__name__}: {exc}")


def finding(rule: Rule, outcome: Outcome) -> Finding:
    from foretune.knowledge import citation
    from foretune.render.snippets import render_fix

    cites = tuple((c.id, c.title, c.where) for c in (citation(cid) for cid in rule.citations))
    return Finding(rule_id=rule.id, title=rule.title, component=rule.component,
                   severity=outcome.severity if outcome.severity is not None else rule.severity,
                   status=outcome.status, message=outcome.message, current=outcome.current,
                   recommended=outcome.recommended, evidence=outcome.evidence,
                   fixes=tuple(render_fix(fix) for fix in outcome.fixes), citations=cites, unit=rule.unit)


def select_rules(rules: Iterable[Rule], select: list[str], ignore: list[str]) -> list[Rule]:
    """Rules whose id or component is selected (all when ``select`` is empty) and not ignored."""
    from foretune.errors import UsageError

    rules = list(rules)
    names = {r.id for r in rules} | {r.component for r in rules}
    unknown = [n for n in (*select, *ignore) if n not in names]
    if unknown:
        raise UsageError(f"unknown rule or component: {', '.join(unknown)} (see: foretune rules list)")
    chosen = [r for r in rules if not select or r.id in select or r.component in select]
    return [r for r in chosen if r.id not in ignore and r.component not in ignore]


def run_all(rules: Iterable[Rule], ctx: Context) -> list[Finding]:
    return [finding(rule, run_rule(rule, ctx)) for rule in rules]
