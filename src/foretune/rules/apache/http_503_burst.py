"""The web server answered bursts of HTTP 503: requests found every worker and queue slot taken."""

from __future__ import annotations

from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity


class Http503Burst(Rule):
    id = "http-503-burst"
    title = "No bursts of HTTP 503 in the access logs"
    component = "apache"
    severity = Severity.HIGH
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("log_incidents",)
    citations = ("g62-passenger", "gf-httpd-children")

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "http_503_burst")
        if not found:
            return self.passed("no bursts of HTTP 503 in the logs")
        era = ctx.release.features if ctx.release else None
        where = ("PassengerMaxRequestQueueSize and PassengerMaxPoolSize (passenger-queue-saturated)"
                 if era is not None and era.passenger else "Puma workers and backlog (puma-pool-saturated), MaxRequestWorkers")
        return self.failed(f"clients got HTTP 503 {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                           f"the request path was full: look at {where}", current=sum(int(i.get("count") or 0) for i in found),
                           recommended=0, evidence=incidents.evidence(found), observed=True)


RULE = Http503Burst()
