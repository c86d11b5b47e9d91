"""Transparent huge pages are on."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class ThpEnabled(PlanRule):
    id = "thp-enabled"
    title = "Transparent huge pages disabled"
    component = "os"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    needs = ("thp",)
    citations = ("gf-hardware", "gf-redis", "g69-thp")
    tunable = "os.thp"

    def check(self, ctx: Context) -> Outcome:
        enabled = ctx.facts.value("thp").get("enabled")
        t = self.recommendation(ctx)
        if enabled == "never":
            return self.passed("THP enabled = never")
        mongodb = ctx.release is not None and ctx.release.features.mongodb
        redis = ctx.release is not None and ctx.release.features.redis
        cites = t.foretune.citations
        if enabled == "madvise" and not mongodb:
            return self.failed("THP enabled = madvise: only programs that ask get huge pages (PostgreSQL and Redis do not); "
                               "the guide still says disable it", current=enabled, recommended=t.foretune.value,
                               evidence=ctx.evidence("thp", about="enabled"), fixes=t.fixes, severity=Severity.LOW,
                               citations=cites)
        services = "PostgreSQL and Redis" if redis and not mongodb else "PostgreSQL, MongoDB and Redis" if redis else "PostgreSQL and MongoDB"
        return self.failed(f"THP enabled = {enabled}; {services} suffer latency spikes with huge pages",
                           current=enabled, recommended=t.foretune.value, evidence=ctx.evidence("thp", about="enabled"),
                           fixes=t.fixes, citations=cites)


RULE = ThpEnabled()
