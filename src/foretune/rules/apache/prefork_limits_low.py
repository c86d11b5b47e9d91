"""prefork ServerLimit/MaxClients below what the workload needs (Satellite <= 6.11)."""

from __future__ import annotations

from typing import Any

from foretune.rules.apache._break_even import profile_held
from foretune.rules.apache._prefork import prefork_clients
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PreforkLimitsLow(PlanRule):
    id = "apache-prefork-limits-low"
    title = "Apache prefork limits fit the workload"
    component = "apache"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("http_503_burst", ()), ("http_503_share", ()), ("queue_at_capacity", ("httpd",)))  # 503s; "server reached MaxRequestWorkers"
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
        holds = self._holds(ctx, effective) if ctx.hosts_assumed else None
        if holds is not None:  # the verdict would rest on an assumed figure: say how many hosts the limit in force serves
            size, top = holds
            return self.failed(f"prefork serves {effective} concurrent requests (ServerLimit {limit}, MaxClients {clients}), "
                               f"what the {size} profile gives, which the guide sizes for up to {top} hosts; below {top} "
                               "hosts the limit in force is enough", current=effective, recommended=t.foretune.value,
                               evidence=ctx.evidence("apache", about=("ServerLimit", "MaxClients", "MaxRequestWorkers")),
                               fixes=fixes)
        return self.failed(f"prefork serves {effective} concurrent requests (ServerLimit {limit}, MaxClients {clients}); "
                           f"recommended {t.foretune.value}: {t.foretune.reason}",
                           current=effective, recommended=t.foretune.value, evidence=ctx.evidence("apache", about=("ServerLimit", "MaxClients", "MaxRequestWorkers")), fixes=fixes)

    @staticmethod
    def _holds(ctx: Context, effective: int) -> tuple[str, int] | None:
        """The largest size profile whose prefork limits (puppetlabs-apache's defaults where a size sets none) the
        limit in force reaches, and its break-even host count."""
        def workers(hiera: dict[str, Any]) -> int:
            key = "apache::mod::prefork::"
            return min(prefork_clients({"ServerLimit": hiera.get(key + "serverlimit"),
                                        "MaxClients": hiera.get(key + "maxclients")}))

        return profile_held(ctx, effective, workers)

RULE = PreforkLimitsLow()
