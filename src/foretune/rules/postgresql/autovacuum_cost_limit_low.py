"""autovacuum cannot keep up with Foreman's churn."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import pg_int


class AutovacuumCostLimitLow(PlanRule):
    id = "pg-autovacuum-cost-limit-low"
    title = "autovacuum_vacuum_cost_limit raised"
    component = "postgresql"
    severity = Severity.LOW
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("gf-postgresql", "pg-conf-defaults")
    tunable = "postgresql.autovacuum_vacuum_cost_limit"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("postgresql").get("autovacuum_vacuum_cost_limit")
        current = pg_int(raw)
        t = self.recommendation(ctx)
        if current is not None and (current >= t.foretune.value):
            return self.passed(f"autovacuum_vacuum_cost_limit {current}")
        shown = (current if current is not None and current >= 0
                 else f"-1 (vacuum_cost_limit, default {module_default('postgresql', 'vacuum_cost_limit')})")
        return self.failed(f"autovacuum_vacuum_cost_limit {shown}: bloat grows on the facts, tasks and audits tables",
                           current=current, recommended=t.foretune.value, evidence=ctx.evidence("postgresql"), fixes=t.fixes)


RULE = AutovacuumCostLimitLow()
