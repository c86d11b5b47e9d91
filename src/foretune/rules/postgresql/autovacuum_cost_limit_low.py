"""autovacuum cannot keep up with Foreman's churn."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.postgresql._defaults import absent, cited, pg_default, setting_evidence
from foretune.rules.values import pg_int


class AutovacuumCostLimitLow(PlanRule):
    id = "pg-autovacuum-cost-limit-low"
    title = "autovacuum_vacuum_cost_limit raised"
    component = "postgresql"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("gf-postgresql", "pg-conf-sample-90", "pg-conf-defaults")
    tunable = "postgresql.autovacuum_vacuum_cost_limit"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("postgresql").get("autovacuum_vacuum_cost_limit")
        current = pg_int(raw)
        t = self.recommendation(ctx)
        if current is not None and (current >= t.foretune.value):
            return self.passed(f"autovacuum_vacuum_cost_limit {current}")
        if current is not None and current >= 0:
            return self.failed(f"autovacuum_vacuum_cost_limit {current}: bloat grows on the facts, tasks and audits tables",
                               current=current, recommended=t.foretune.value, evidence=ctx.evidence("postgresql"), fixes=t.fixes)
        # -1 or unset: autovacuum uses vacuum_cost_limit
        own = pg_int(ctx.facts.value("postgresql").get("vacuum_cost_limit"))
        default = pg_default(ctx, "vacuum_cost_limit") if own is None else None
        shown = own if default is None else default.shown
        if own is not None and own >= t.foretune.value:
            return self.passed(f"autovacuum_vacuum_cost_limit -1, so vacuum_cost_limit {own}")
        return self.failed(f"autovacuum_vacuum_cost_limit -1, so vacuum_cost_limit {shown}: bloat grows on the facts, tasks "
                           "and audits tables",
                           current=current, recommended=t.foretune.value,
                           evidence=(*(absent(ctx, "autovacuum_vacuum_cost_limit", "vacuum_cost_limit applies in its place") if raw is None
                                       else ctx.evidence("postgresql")),
                                     *setting_evidence(ctx, "vacuum_cost_limit", default)), fixes=t.fixes,
                           **cited(self, default))


RULE = AutovacuumCostLimitLow()
