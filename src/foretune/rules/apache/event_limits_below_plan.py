"""The event MPM allows fewer concurrent requests than the host count needs."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules import incidents
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
        reached = incidents.incidents(ctx, "queue_at_capacity", services=("httpd",))
        if effective >= t.foretune.value and reached:
            # the plan's figure is met, but httpd logged that it reached the limit: measured failure of this limit,
            # whatever the host figure; the guide's answer is the medium profile's ServerLimit 64 / MaxRequestWorkers 1024
            want_limit = max(limit, int(threshold("apache_event_reached_server_limit")))
            want = max(effective, int(threshold("apache_event_reached_max_request_workers")))
            if want <= effective:
                want_limit, want = limit + max(1, limit // 4), effective + max(threads, effective // 4)
            fixes = (ctx.hiera_fix("apache::mod::event::serverlimit", want_limit),
                     ctx.hiera_fix("apache::mod::event::maxrequestworkers", want))
            return self.failed(f"{effective} request workers (ServerLimit {limit} x ThreadsPerChild {threads}), and httpd "
                               f"reached them: {incidents.quote(reached[0])}, {incidents.span(reached[0])}; the guide raises "
                               f"ServerLimit to {want_limit} and MaxRequestWorkers to {want}", current=effective,
                               recommended=want, severity=Severity.CRITICAL, observed=True,
                               evidence=(*incidents.evidence(reached),
                                         *ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers"))),
                               fixes=fixes)
        if effective >= t.foretune.value:
            return self.passed(f"{effective} request workers for {ctx.hosts} hosts")
        fixes = (*ctx.tunables["apache.server_limit"].fixes, *t.fixes)
        return self.failed(f"{effective} request workers; {ctx.hosts} hosts call for {t.foretune.value} ({t.foretune.reason})",
                           current=effective, recommended=t.foretune.value, evidence=ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers")), fixes=fixes)


RULE = EventLimitsBelowPlan()
