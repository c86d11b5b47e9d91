"""Shared helper for the qpid limits (katello-agent era)."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule


def nofile_check(rule: PlanRule, ctx: Context, key: str, daemon: str) -> Outcome:
    current = ctx.facts.value("qpid").get(key)
    if current is None:
        return rule.skipped(f"{daemon} LimitNOFILE unknown")
    t = rule.recommendation(ctx)
    if current >= t.foretune.value:
        return rule.passed(f"{daemon} LimitNOFILE={current}")
    return rule.failed(f"{daemon} LimitNOFILE={current}; recommended {t.foretune.value} ({t.foretune.reason}): "
                       "clients beyond it cannot connect", current=current, recommended=t.foretune.value,
                       evidence=ctx.evidence("qpid", "service_limits", about=f"{daemon}.service"), fixes=t.fixes)
