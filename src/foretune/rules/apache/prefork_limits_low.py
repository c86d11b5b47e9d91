"""prefork ServerLimit/MaxClients below what the workload needs (Satellite <= 6.11)."""

from __future__ import annotations

from foretune.rules.apache._prefork import prefork_clients
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PreforkLimitsLow(PlanRule):
    id = "apache-prefork-limits-low"
    title = "Apache prefork limits fit the workload"
    component = "apache"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("http_503_burst", ()), ("queue_at_capacity", ("httpd",)))  # 503s; "server reached MaxRequestWorkers"
    uses_hosts = True
    roles = frozenset({"server"})
    needs = ("apache",)
    citations = ("g69-apache", "fi-tuning-profiles", "apache-prefork-defaults")
    tunable = "apache.max_clients"

    def check(self, ctx: Context) -> Outcome:
        apache = ctx.facts.value("apache")
        if apache.get("mpm") != "prefork":
            return self.skipped(f"Apache runs the {apache.get('mpm')} MPM")
        limit, clients = prefork_clients(apache)
        effective = min(limit, clients)
        t = self.recommendation(ctx)
        if effective >= t.foretune.value:
            return self.passed(f"prefork serves {effective} concurrent requests")
        fixes = (*ctx.tunables["apache.server_limit"].fixes, *t.fixes)
        return self.failed(f"prefork serves {effective} concurrent requests (ServerLimit {limit}, MaxClients {clients}); "
                           f"recommended {t.foretune.value}: {t.foretune.reason}",
                           current=effective, recommended=t.foretune.value, evidence=ctx.evidence("apache", about=("ServerLimit", "MaxClients", "MaxRequestWorkers")), fixes=fixes)


RULE = PreforkLimitsLow()
