"""Apache admits more concurrent requests than PostgreSQL accepts connections (Passenger era)."""

from __future__ import annotations

from foretune.rules.apache._prefork import prefork_clients
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.passenger._passenger import passenger_era
from foretune.rules.postgresql._defaults import cited, pg_default
from foretune.rules.values import pg_int


class PreforkClientsOverConnections(Rule):
    id = "prefork-clients-over-connections"
    title = "PostgreSQL connections cover the registrations Apache admits"
    component = "apache"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("apache", "postgresql")
    citations = ("g62-postgresql", "apache-prefork-defaults", "pg-conf-sample-90", "pg-conf-defaults")

    def applies(self, ctx: Context) -> str | None:
        if ctx.release is not None and ctx.release.features.passenger and ctx.release.features.size_profiles:
            # the profiles' own medium pair (MaxClients 1024, max_connections 1000) would fail this 6.2-brief check on a
            # correctly tuned box; the connections Foreman really opens are pg-max-connections-below-budget's finding
            return (f"{ctx.release.label}'s --tuning profiles size MaxClients and max_connections together; "
                    "pg-max-connections-below-budget judges the connections the services open")
        return passenger_era(ctx)

    def check(self, ctx: Context) -> Outcome:
        clients = min(prefork_clients(ctx.facts.value("apache")))
        current = pg_int(ctx.facts.value("postgresql").get("max_connections"))
        default = None
        if current is None:
            default = pg_default(ctx, "max_connections")
            current = int(default.value)
        unset = "" if default is None else f" (unset: {default.origin})"
        cites = cited(self, default)
        if current >= clients:
            return self.passed(f"max_connections {current}{unset} >= the {clients} requests Apache admits at once", **cites)
        return self.failed(f"Apache admits {clients} concurrent requests (MaxClients/ServerLimit) but max_connections is "
                           f"{current}{unset}: a registration burst that fills Apache runs PostgreSQL out of connections",
                           current=current, recommended=clients,
                           evidence=(*ctx.evidence("apache", about=("MaxClients", "ServerLimit", "MaxRequestWorkers")),
                                     *ctx.evidence("postgresql", about="max_connections"),
                                     *(default.evidence(ctx) if default else ())), **cites)


RULE = PreforkClientsOverConnections()
