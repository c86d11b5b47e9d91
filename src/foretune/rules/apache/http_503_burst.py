"""The web server answered bursts of HTTP 503: requests found every worker and queue slot taken."""

from __future__ import annotations

from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity


class Http503Burst(Rule):
    id = "http-503-burst"
    title = "No bursts of HTTP 503 in the access logs, no full Passenger queue"
    component = "apache"
    severity = Severity.HIGH
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("log_incidents",)
    citations = ("g62-passenger", "gf-httpd-children")
    symptom_of = ("passenger-queue-too-small", "apache-event-limits-low", "apache-prefork-limits-low")

    def check(self, ctx: Context) -> Outcome:
        full = incidents.incidents(ctx, "queue_at_capacity", services=("passenger",))
        found = incidents.incidents(ctx, "http_503_burst")
        if full:
            # Passenger's "Request queue is full": it answered those requests 503, measured failure whatever
            # rate of 503s the access logs show (a Puppet or Capsule vhost logs elsewhere, or below the burst rate)
            worst = full[0]
            return self.failed(f"Passenger's request queue was full {incidents.span(worst)}: {incidents.quote(worst)}; "
                               f"those requests were answered 503" + (f", and clients got HTTP 503 {incidents.span(found[0])}" if found else ""),
                               current=f"{max(sum(int(i.get('count') or 0) for i in full), sum(int(i.get('count') or 0) for i in found))} requests refused",
                               recommended="none",
                               evidence=incidents.evidence([*full, *found]), severity=Severity.CRITICAL, observed=True)
        if not found:
            return self.passed("no bursts of HTTP 503 and no full Passenger request queue in the logs (httpd reaching "
                               "MaxRequestWorkers is judged by apache-event-limits-low / apache-prefork-limits-low)")
        era = ctx.release.features if ctx.release else None
        where = ("PassengerMaxRequestQueueSize and PassengerMaxPoolSize (passenger-queue-saturated)"
                 if era is not None and era.passenger else "Puma workers and backlog (puma-pool-saturated), MaxRequestWorkers")
        count = sum(int(i.get("count") or 0) for i in found)
        # measured failure of the request path: critical, quoted; the section of this release's guide, not the 6.2 brief's
        # Passenger advice on a Puma box
        cites = self.citations if era is not None and era.passenger else ("gf-httpd-children",)
        return self.failed(f"clients got HTTP 503 {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                           f"the request path was full: look at {where}", current=f"{count} HTTP 503 responses",
                           recommended="none", evidence=incidents.evidence(found), observed=True,
                           severity=Severity.CRITICAL, citations=cites)


RULE = Http503Burst()
