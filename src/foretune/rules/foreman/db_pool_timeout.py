"""Foreman's Rails connection pool timed out: more threads wait for a connection than the pool holds."""

from __future__ import annotations

from foretune.rules import incidents
from foretune.rules.base import Context, Outcome, Rule, Severity


class ForemanDbPoolTimeout(Rule):
    id = "foreman-db-pool-timeout"
    title = "Foreman never waited for a database connection"
    component = "foreman"
    severity = Severity.CRITICAL
    roles = frozenset({"server"})
    needs = ("log_incidents",)
    citations = ("gf-db-pool", "pf-db-pool")

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "db_pool_timeout")
        if not found:
            return self.passed("no 'could not obtain a connection from the pool' errors in production.log")
        current = ctx.facts.value("foreman_db_pool")
        t = ctx.plan.tunables.get("foreman.db_pool") if ctx.plan else None
        recommended = t.foretune.value if t is not None and t.foretune.value is not None else f"more than {current}"
        threads = (ctx.facts.value("puma") or {}).get("threads_max")
        demand = f" for {threads} Puma threads per worker" if threads else ""
        return self.failed(f"Rails waited in vain for a database connection {incidents.span(found[0])}: "
                           f"{incidents.quote(found[0])}; pool {current}{demand}", current=current, recommended=recommended,
                           evidence=(*incidents.evidence(found), *ctx.evidence("foreman_db_pool", "puma")),
                           fixes=t.fixes if t is not None else (), observed=True)


RULE = ForemanDbPoolTimeout()
