"""More pulpcore API gunicorn workers than the installer's formula."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PulpcoreApiWorkersHigh(PlanRule):
    id = "pulpcore-api-workers-high"
    title = "pulpcore API workers at the installer's formula"
    component = "pulp"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("pulpcore",)
    citations = ("pulpcore-worker-defaults",)
    tunable = "pulp.api_workers"

    def check(self, ctx: Context) -> Outcome:
        api = ctx.facts.value("pulpcore").get("api_workers")
        if api is None:
            return self.skipped("pulpcore API worker count unknown")
        t = self.recommendation(ctx)
        if api <= t.foretune.value:
            return self.passed(f"{api} API workers")
        return self.failed(f"{api} pulpcore API workers, more than the installer's formula: each one costs memory and "
                           "database connections",
                           current=api, recommended=t.foretune.value, evidence=ctx.evidence("pulpcore", about="--workers"), fixes=t.fixes)


RULE = PulpcoreApiWorkersHigh()
