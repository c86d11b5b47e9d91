"""Too few dynflowd executors for the RAM (Satellite 6.7 and older)."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class DynflowdExecutorsLow(PlanRule):
    id = "dynflowd-executors-low"
    title = "dynflowd EXECUTORS_COUNT fits the RAM"
    component = "dynflow"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("dynflow",)
    citations = ("ss-tuning-profiles",)
    tunable = "dynflow.executors"

    def check(self, ctx: Context) -> Outcome:
        executors = ctx.facts.value("dynflow").get("executors") or 1
        t = self.recommendation(ctx)
        if executors >= t.foretune.value:
            return self.passed(f"EXECUTORS_COUNT={executors}")
        return self.failed(f"EXECUTORS_COUNT={executors}: one executor serialises tasks on a box with room for {t.foretune.value}",
                           current=executors, recommended=t.foretune.value, evidence=ctx.evidence("dynflow"), fixes=t.fixes)


RULE = DynflowdExecutorsLow()
