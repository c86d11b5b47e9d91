"""Pulp 2 PULP_CONCURRENCY above min(CPUs, 8)."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class Pulp2ConcurrencyHigh(PlanRule):
    id = "pulp2-concurrency-high"
    title = "Pulp 2 workers at most min(CPUs, 8)"
    component = "pulp"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("pulp2_workers",)
    citations = ("pulp2-worker-defaults", "g62-pulp")
    tunable = "pulp2.concurrency"

    def check(self, ctx: Context) -> Outcome:
        workers = ctx.facts.value("pulp2_workers")
        t = self.recommendation(ctx)
        if workers <= t.foretune.value:
            return self.passed(f"PULP_CONCURRENCY={workers}")
        return self.failed(f"PULP_CONCURRENCY={workers} on {ctx.facts.value('cpu_logical')} CPUs: workers fight for CPU and MongoDB",
                           current=workers, recommended=t.foretune.value, evidence=ctx.evidence("pulp2_workers"), fixes=t.fixes)


RULE = Pulp2ConcurrencyHigh()
