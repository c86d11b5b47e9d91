"""PostgreSQL refused connections: the logs show max_connections already exhausted."""

from __future__ import annotations

from foretune.rules import incidents
from foretune.rules.base import Context, Outcome, Rule, Severity


class PgConnectionExhaustion(Rule):
    id = "pg-connection-exhaustion"
    title = "PostgreSQL never ran out of connection slots"
    component = "postgresql"
    severity = Severity.CRITICAL
    needs = ("log_incidents",)
    citations = ("gf-postgresql", "pf-db-pool")

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "pg_connection_exhaustion")
        if not found:
            return self.passed("no 'too many clients' or reserved-slot refusals in the PostgreSQL logs")
        current = (ctx.facts.value("postgresql") or {}).get("max_connections")
        t = ctx.plan.tunables.get("postgresql.max_connections") if ctx.plan else None
        recommended = t.foretune.value if t is not None and t.foretune.value is not None else f"more than {current}"
        return self.failed(f"PostgreSQL refused connections {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                           f"max_connections {current or 'default 100'} is already exhausted by the connections in force "
                           "(Puma workers x Rails pool, Sidekiq, Candlepin, Pulp)", current=current, recommended=recommended,
                           evidence=(*incidents.evidence(found), *ctx.evidence("postgresql", about="max_connections")),
                           fixes=t.fixes if t is not None else (), observed=True)


RULE = PgConnectionExhaustion()
