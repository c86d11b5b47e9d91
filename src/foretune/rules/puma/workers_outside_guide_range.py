"""Puma workers outside the guide's range for the profile."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PumaWorkersOutsideRange(PlanRule):
    id = "puma-workers-outside-range"
    title = "Puma workers in the guide's range for the profile"
    component = "puma"
    severity = Severity.MEDIUM
    roles = frozenset({"server"})
    needs = ("puma",)
    citations = ("gf-puma-recommendations",)
    tunable = "puma.workers"

    def check(self, ctx: Context) -> Outcome:
        workers = ctx.facts.value("puma").get("workers")
        if workers is None:
            return self.skipped("Puma worker count unknown")
        assert ctx.plan is not None
        low, high = hardware.puma_worker_range(ctx.plan.profile)
        t = self.recommendation(ctx)
        if low <= workers <= high or workers == t.foretune.value:
            return self.passed(f"{workers} workers, guide {low}-{high} for {ctx.plan.profile}")
        side = "more" if workers > high else "fewer"
        plan_note = "" if low <= t.foretune.value <= high else f"; the plan gives {t.foretune.value} for this box ({t.foretune.reason})"
        return self.failed(f"{workers} workers; the guide measured {low}-{high} best for {ctx.plan.profile} "
                           f"({side} was slower or unstable under registration load){plan_note}",
                           current=workers, recommended=t.foretune.value, evidence=ctx.evidence("puma"), fixes=t.fixes)


RULE = PumaWorkersOutsideRange()
