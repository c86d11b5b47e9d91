"""PostgreSQL refused connections: the logs show max_connections already exhausted."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.postgresql._defaults import cited, pg_default
from foretune.rules.recommend import recommended, running_budget
from foretune.rules.values import pg_int


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

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "pg_connection_exhaustion")
        if not found:
            return self.passed("no 'too many clients' or reserved-slot refusals in the PostgreSQL logs")
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
                   "held beyond it (idle sessions, leaks, external clients)")
        return self.failed(f"PostgreSQL refused connections {incidents.span(found[0])}: {incidents.quote(found[0])}; {why}",
                           current=current, recommended=advice,
                           evidence=(*incidents.evidence(found), *ctx.evidence("postgresql", about="max_connections"),
                                     *(default.evidence(ctx) if default else ())),
                           fixes=rec.fixes if rec is not None and want > current else HELD, observed=True,
                           **cited(self, default))


# max_connections covers the budget, yet PostgreSQL refused connections: who holds them is the question, and the
# answer is the connections by user, application, client and state (PostgreSQL's pg_stat_activity view)
HELD = (Fix("command", "sudo -u postgres psql -c 'SELECT usename, application_name, client_addr, state, count(*) FROM "
                       "pg_stat_activity GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC'"),
        Fix("advice", "postgresql", "close what holds connections beyond the budget (sessions idle in transaction, a "
                                    "client that leaks them, a consumer outside Satellite), or add that consumer's "
                                    "connections to max_connections"))

RULE = PgConnectionExhaustion()
