"""The event MPM allows fewer concurrent requests than the host count needs."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import threshold
from foretune.rules import incidents
from foretune.rules.apache._break_even import profile_held
from foretune.rules.apache._event import event_limits
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class EventLimitsBelowPlan(PlanRule):
    id = "apache-event-limits-low"
    title = "Apache event MPM limits fit the host count"
    component = "apache"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("http_503_burst", ()), ("http_503_share", ()), ("queue_at_capacity", ("httpd",)))  # 503s; "server reached MaxRequestWorkers"
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
            source, cites = "the guide raises", tuple(self.citations)
            if want <= effective:  # already at the guide's 64 / 1024: a step beyond it (a foretune estimate)
                step = float(threshold("apache_event_reached_step"))
                want_limit = limit + max(1, round(limit * step))
                want = want_limit * threads
                source = f"beyond the guide's {want_limit - round(limit * step)} / {effective}, foretune's estimate raises by {step:.0%}:"
                cites = (*cites, "foretune-estimate")
            fixes = (ctx.hiera_fix("apache::mod::event::serverlimit", want_limit),
                     ctx.hiera_fix("apache::mod::event::maxrequestworkers", want))
            return self.failed(f"{effective} request workers (ServerLimit {limit} x ThreadsPerChild {threads}), and httpd "
                               f"reached them: {incidents.quote(reached[0])}, {incidents.span(reached[0])}; {source} "
                               f"ServerLimit to {want_limit} and MaxRequestWorkers to {want}", current=effective,
                               recommended=want, severity=Severity.CRITICAL, observed=True, citations=cites,
                               evidence=(*incidents.evidence(reached),
                                         *ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers"))),
                               fixes=fixes)
        if effective >= t.foretune.value:
            return self.passed(f"{effective} request workers for {ctx.hosts} hosts")
        fixes = (*ctx.tunables["apache.server_limit"].fixes, *t.fixes)
        holds = self._holds(ctx, effective) if ctx.hosts_assumed else None
        if holds is not None:  # the verdict would rest on an assumed figure: say how many hosts the limit in force serves
            size, top = holds
            return self.failed(f"{effective} request workers are what the {size} profile gives, which the guide sizes for up "
                               f"to {top} hosts; below {top} hosts the limit in force is enough", current=effective,
                               recommended=t.foretune.value, fixes=fixes,
                               evidence=ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers")))
        return self.failed(f"{effective} request workers; {ctx.hosts} hosts call for {t.foretune.value} ({t.foretune.reason})",
                           current=effective, recommended=t.foretune.value, evidence=ctx.evidence("apache", about=("ServerLimit", "ThreadsPerChild", "MaxRequestWorkers")), fixes=fixes)


    @staticmethod
    def _holds(ctx: Context, effective: int) -> tuple[str, int] | None:
        """The largest size profile whose request workers the limit in force reaches, and its break-even host count."""
        def workers(hiera: dict[str, Any]) -> int:
            key = "apache::mod::event::"
            limit, threads, most = event_limits({"ServerLimit": hiera.get(key + "serverlimit"),
                                                 "ThreadsPerChild": hiera.get(key + "threadsperchild"),
                                                 "MaxRequestWorkers": hiera.get(key + "maxrequestworkers")})
            return min(most, limit * threads)

        return profile_held(ctx, effective, workers)

RULE = EventLimitsBelowPlan()
