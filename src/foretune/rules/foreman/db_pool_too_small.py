"""Foreman's database pool is smaller than the threads that share it."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class DbPoolTooSmall(PlanRule):
    id = "foreman-db-pool-too-small"
    title = "Foreman DB pool covers the Puma threads"
    component = "foreman"
    severity = Severity.HIGH
    demand_based = True
    roles = frozenset({"server"})
    needs = ("foreman_db_pool",)
    citations = ("pf-db-pool", "gf-db-pool")
    tunable = "foreman.db_pool"

    def check(self, ctx: Context) -> Outcome:
        pool = ctx.facts.value("foreman_db_pool")
        puma = ctx.facts.value("puma") or {}
        threads = puma.get("threads_max") or 5
        if pool >= threads + 4:
            return self.passed(f"pool {pool} >= {threads} threads + 4")
        t = self.recommendation(ctx)
        plan_threads = ctx.plan.tunables["puma.threads_max"]  # type: ignore[union-attr]
        fixes = t.fixes if threads == plan_threads.foretune.value else (*plan_threads.fixes, *t.fixes)
        return self.failed(f"pool {pool} for {threads} Puma threads plus 4 Katello listeners: expect "
                           "'could not obtain a connection from the pool' errors", current=pool, recommended=t.foretune.value,
                           evidence=ctx.evidence("foreman_db_pool", "puma"), fixes=fixes)


RULE = DbPoolTooSmall()
