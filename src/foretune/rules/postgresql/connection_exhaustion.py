"""PostgreSQL refused connections: the logs show max_connections already exhausted."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.distinct import SERVER_LIMIT
from foretune.rules.postgresql._defaults import cited, pg_default
from foretune.rules.recommend import recommended, running_budget
from foretune.rules.values import pg_int

# a refusal the budget does not explain: who holds the slots decides the fix (end them, or cap that client), and the
# query that shows them is the step that takes effect first; no max_connections figure is guessed
HOLDERS = Fix("advice", "pg_stat_activity",
              "find who holds the connections, then end the idle ones or cap that client (ALTER ROLE ... CONNECTION "
              "LIMIT n): sudo -u postgres psql -c 'SELECT usename, application_name, client_addr, state, count(*) FROM "
              "pg_stat_activity GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC;'")


class PgConnectionExhaustion(Rule):
    id = "pg-connection-exhaustion"
    title = "PostgreSQL never ran out of connection slots"
    component = "postgresql"
    severity = Severity.CRITICAL
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("log_incidents",)
    citations = ("gf-postgresql", "pf-db-pool", "pg-conf-sample-90", "pg-conf-defaults")
    symptom_of = ("pg-max-connections-below-budget",)
    distinct_from = (("foreman-db-pool-too-small", SERVER_LIMIT), ("foreman-db-pool-timeout", SERVER_LIMIT))

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "pg_connection_exhaustion")
        if not found:
            return self.passed("no 'too many clients' or reserved-slot refusals in the PostgreSQL logs")
        pg = ctx.facts["postgresql"]
        if pg.lost:  # a damaged archive: the setting in force is unknown, not PostgreSQL's default
            return self.failed(f"PostgreSQL refused connections {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                               f"max_connections unknown: postgresql.conf {pg.unknown_reason}",
                               current="unknown", recommended="find who holds the connections (pg_stat_activity), "
                               "then weigh max_connections against the budget", evidence=incidents.evidence(found),
                               fixes=(HOLDERS,), observed=True, **cited(self, None))
        current = pg_int((ctx.facts.value("postgresql") or {}).get("max_connections"))
        default = None
        if current is None:
            default = pg_default(ctx, "max_connections")
            current = int(default.value)
        unset = "" if default is None else f" (unset: {default.origin})"
        rec = recommended(ctx, "postgresql.max_connections")
        need = running_budget(ctx)[0] if ctx.plan is not None and ctx.plan.input.role == "server" else 0
        want = int(rec.value) if rec is not None and rec.value else 0
        if want > current:
            advice: object = want
            why = (f"max_connections {current}{unset} is below what the services in force may open ({need}, "
                   "see pg-max-connections-below-budget)" if need > current else
                   f"max_connections {current}{unset} is below the {want} recommended for this box ({rec.why if rec else ''})")
        else:
            advice = "find who holds the connections (pg_stat_activity): the budget fits"
            why = (f"max_connections {current}{unset} covers the budget of the services in force ({need}): connections are "
                   "held beyond it (idle sessions, leaks, external clients)" if need else
                   f"max_connections {current}{unset}: the source gives no budget of the services to weigh it against")
        fixes = rec.fixes if rec is not None and want > current else (HOLDERS,)
        return self.failed(f"PostgreSQL refused connections {incidents.span(found[0])}: {incidents.quote(found[0])}; {why}",
                           current=current, recommended=advice,
                           evidence=(*incidents.evidence(found), *ctx.evidence("postgresql", about="max_connections"),
                                     *(default.evidence(ctx) if default else ())),
                           fixes=fixes, observed=True,
                           **cited(self, default))


RULE = PgConnectionExhaustion()
