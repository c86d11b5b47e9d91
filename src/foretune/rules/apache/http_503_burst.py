"""The web server answered bursts of HTTP 503: requests found every worker and queue slot taken."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from foretune.knowledge import threshold
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity

# what limits a Capsule's own httpd (it runs no Puma): the guide's 5.3.2 (MaxRequestWorkers and ServerLimit make httpd
# answer 503 once every child is busy; g62-capsule: the server's Apache advice applies to a Capsule) and its open files
CAPSULE_HTTPD = ("this Capsule's httpd: MaxRequestWorkers with ServerLimit (Foreman tuning guide 5.3.2; no rule reads "
                 "them on a Capsule, so compare them with the busy workers yourself) and its open files (httpd-nofile-low)")


def upstream(found: Sequence[dict[str, Any]]) -> bool:
    """Whether the 503s are requests a Capsule passes on to its Satellite server: the reverse proxy's log
    (katello-reverse-proxy) or /rhsm and API paths, which the Capsule's Apache forwards to the server's Puma and
    Candlepin (knowledge: load-and-model.md 2.3)."""
    return any("reverse-proxy" in str(i.get("path", "")) or any(f" {p}" in str(i.get("line", "")) for p in ("/rhsm", "/api/"))
               for i in found)


def capsule_pointer(found: Sequence[dict[str, Any]]) -> str:
    """What a Capsule's 503s point at: the Satellite server's Puma for the requests it forwards (audited on the
    server's sosreport, not here), and the Capsule's own httpd limits; its content workers for downloads."""
    if upstream(found):
        return ("the Satellite server this Capsule's reverse proxy passes them to (its Puma and Candlepin answer them: "
                "audit the server's sosreport, where puma-pool-saturated and apache-workers-over-limit judge them), and "
                f"{CAPSULE_HTTPD}")
    return f"{CAPSULE_HTTPD}, and the pulpcore-content workers that serve downloads"


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
        spread = incidents.incidents(ctx, "http_503_share")
        if not found and not spread:
            return self.passed("no bursts of HTTP 503, no vhost answering a share of its requests 503 and no full Passenger "
                               "request queue in the logs (httpd reaching MaxRequestWorkers is judged by "
                               "apache-event-limits-low / apache-prefork-limits-low)")
        era = ctx.release.features if ctx.release else None
        where = ("PassengerMaxRequestQueueSize and PassengerMaxPoolSize (passenger-queue-saturated)"
                 if era is not None and era.passenger else
                 # a Capsule runs no Puma, and the server's rules are not applicable to it: name what is
                 capsule_pointer(found or spread) if ctx.role == "capsule" else
                 "Puma workers and backlog (puma-pool-saturated), MaxRequestWorkers")
        # measured failure of the request path: critical, quoted; the section of this release's guide, not the 6.2 brief's
        # Passenger advice on a Puma box
        cites = self.citations if era is not None and era.passenger else ("gf-httpd-children",)
        if not found:
            # below the burst rate, but a share of one vhost's requests within the window the knowledge data names
            # (logs_503_share_*): each a client (a Puppet run, a registration) that failed
            worst = spread[0]
            count, requests = int(worst.get("count") or 0), int(worst.get("requests") or 0)
            return self.failed(f"clients got HTTP 503 on {count} of {requests} requests ({count / max(requests, 1):.0%}) of "
                               f"{worst.get('path')} within {int(threshold('logs_503_share_window_seconds')) // 60} minutes, {incidents.span(worst)}: {incidents.quote(worst)}; below the burst "
                               f"rate, but a queue that fills: look at {where}", current=f"{count} HTTP 503 responses",
                               recommended="none", evidence=incidents.evidence(spread), observed=True,
                               severity=Severity.CRITICAL, citations=cites)
        count = sum(int(i.get("count") or 0) for i in found)
        return self.failed(f"clients got HTTP 503 {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                           f"the request path was full: look at {where}", current=f"{count} HTTP 503 responses",
                           recommended="none", evidence=incidents.evidence(found), observed=True,
                           severity=Severity.CRITICAL, citations=cites)


RULE = Http503Burst()
