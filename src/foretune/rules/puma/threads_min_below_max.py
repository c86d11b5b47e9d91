"""Puma threads_min below threads_max."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PumaThreadsMinBelowMax(PlanRule):
    id = "puma-threads-min-below-max"
    title = "Puma threads_min equals threads_max"
    component = "puma"
    severity = Severity.LOW
    roles = frozenset({"server"})
    needs = ("puma",)
    citations = ("gf-puma-threads",)
    tunable = "puma.threads_min"

    def check(self, ctx: Context) -> Outcome:
        puma = ctx.facts.value("puma")
        tmin, tmax = puma.get("threads_min"), puma.get("threads_max")
        if tmin is None or tmax is None:
            return self.skipped("Puma thread counts unknown")
        if tmin >= tmax:
            return self.passed(f"threads {tmin}/{tmax}")
        tmax_plan = ctx.plan.tunables["puma.threads_max"]  # type: ignore[union-attr]
        want = self.recommendation(ctx).foretune.value
        return self.failed(f"threads {tmin}-{tmax}: min below max costs memory and thread churn",
                           current=f"{tmin}-{tmax}", recommended=f"{want}-{tmax_plan.foretune.value}",
                           evidence=ctx.evidence("puma"), fixes=(*self.recommendation(ctx).fixes, *tmax_plan.fixes))


RULE = PumaThreadsMinBelowMax()
