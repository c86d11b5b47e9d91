"""MaxRequestWorkers is larger than ServerLimit x ThreadsPerChild can run."""

from __future__ import annotations

from foretune.rules.apache._event import event_limits
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class EventWorkersOverLimit(PlanRule):
    id = "apache-workers-over-limit"
    title = "MaxRequestWorkers fits ServerLimit x ThreadsPerChild"
    component = "apache"
    severity = Severity.HIGH
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("apache",)
    citations = ("gf-httpd-children", "apache-module-defaults", "httpd-event-defaults")
    tunable = "apache.max_request_workers"

    def check(self, ctx: Context) -> Outcome:
        apache = ctx.facts.value("apache")
        if apache.get("mpm") != "event":
            return self.skipped(f"Apache runs the {apache.get('mpm')} MPM")
        limit, threads, workers = event_limits(apache)
        if workers <= limit * threads:
            return self.passed(f"MaxRequestWorkers {workers} <= {limit} x {threads}")
        t = ctx.tunables
        fixes = (*t["apache.server_limit"].fixes, *t["apache.max_request_workers"].fixes)
        return self.failed(f"MaxRequestWorkers {workers} but only {limit} x {threads} = {limit * threads} threads can run: "
                           "httpd silently caps it and requests queue (HTTP 503 under load)",
                           current=workers, recommended=limit * threads, evidence=ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers")), fixes=fixes)


RULE = EventWorkersOverLimit()
