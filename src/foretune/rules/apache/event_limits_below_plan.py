"""The event MPM allows fewer concurrent requests than the host count needs."""

from __future__ import annotations

from foretune.rules.apache._event import event_limits
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class EventLimitsBelowPlan(PlanRule):
    id = "apache-event-limits-low"
    title = "Apache event MPM limits fit the host count"
    component = "apache"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("http_503_burst", ()), ("queue_at_capacity", ("httpd",)))  # 503s; "server reached MaxRequestWorkers"
    uses_hosts = True
    roles = frozenset({"server"})
    needs = ("apache",)
    citations = ("gf-httpd-children", "fi-tuning-profiles", "httpd-event-defaults")
    tunable = "apache.max_request_workers"

    def check(self, ctx: Context) -> Outcome:
        apache = ctx.facts.value("apache")
        if apache.get("mpm") != "event":
            return self.skipped(f"Apache runs the {apache.get('mpm')} MPM")
        limit, threads, workers = event_limits(apache)
        effective = min(workers, limit * threads)
        t = self.recommendation(ctx)
        if effective >= t.foretune.value:
            return self.passed(f"{effective} request workers for {ctx.hosts} hosts")
        fixes = (*ctx.tunables["apache.server_limit"].fixes, *t.fixes)
        return self.failed(f"{effective} request workers; {ctx.hosts} hosts call for {t.foretune.value} ({t.foretune.reason})",
                           current=effective, recommended=t.foretune.value, evidence=ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers")), fixes=fixes)


RULE = EventLimitsBelowPlan()
