"""More pulpcore workers than min(8, CPUs)."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PulpcoreWorkersHigh(PlanRule):
    id = "pulpcore-workers-high"
    title = "pulpcore workers at most min(8, CPUs)"
    component = "pulp"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    needs = ("pulpcore",)
    citations = ("pulpcore-worker-defaults",)
    tunable = "pulp.workers"

    def check(self, ctx: Context) -> Outcome:
        workers = ctx.facts.value("pulpcore").get("workers")
        if workers is None:
            return self.skipped("pulpcore worker count unknown")
        t = self.recommendation(ctx)
        if workers <= t.foretune.value:
            return self.passed(f"{workers} pulpcore workers")
        return self.failed(f"{workers} pulpcore workers (pulpcore-worker@ units): more than {module_default('pulpcore', 'workers_cap')} (or than CPUs) degrade through I/O blocking and "
                           "load PostgreSQL", current=workers, recommended=t.foretune.value,
                           evidence=ctx.evidence("pulpcore")[:1], fixes=t.fixes)


RULE = PulpcoreWorkersHigh()
