"""Transparent huge pages are on."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class ThpEnabled(PlanRule):
    id = "thp-enabled"
    title = "Transparent huge pages disabled"
    component = "os"
    severity = Severity.MEDIUM
    needs = ("thp",)
    citations = ("gf-hardware", "gf-redis")
    tunable = "os.thp"

    def check(self, ctx: Context) -> Outcome:
        enabled = ctx.facts.value("thp").get("enabled")
        t = self.recommendation(ctx)
        if enabled == "never":
            return self.passed("THP enabled = never")
        return self.failed(f"THP enabled = {enabled}; PostgreSQL and Redis suffer latency spikes with huge pages",
                           current=enabled, recommended=t.foretune.value, evidence=ctx.evidence("thp"), fixes=t.fixes)


RULE = ThpEnabled()
