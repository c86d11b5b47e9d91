"""Sidekiq concurrency above 5 threads per worker."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class SidekiqConcurrencyHigh(PlanRule):
    id = "sidekiq-concurrency-high"
    title = "Sidekiq concurrency at most 5"
    component = "dynflow"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("dynflow",)
    citations = ("gf-dynflow",)
    tunable = "dynflow.sidekiq_concurrency"

    def check(self, ctx: Context) -> Outcome:
        conc = ctx.facts.value("dynflow").get("concurrency")
        if conc is None:
            return self.skipped("Sidekiq concurrency unknown")
        t = self.recommendation(ctx)
        if conc <= t.foretune.value:
            return self.passed(f"concurrency {conc}")
        inst = ctx.tunables["dynflow.sidekiq_instances"]
        if ctx.release is not None and not ctx.release.features.dynflow_worker_options:  # one worker: no instances to add
            return self.failed(f"concurrency {conc}: Ruby threads gain little above 5; this installer runs one Sidekiq worker",
                               current=conc, recommended=t.foretune.value, evidence=ctx.evidence("dynflow", about="concurrency"), fixes=t.fixes)
        return self.failed(f"concurrency {conc}: Ruby threads gain little above 5; add worker instances instead",
                           current=conc, recommended=t.foretune.value, evidence=ctx.evidence("dynflow", about="concurrency"),
                           fixes=(*t.fixes, *inst.fixes))


RULE = SidekiqConcurrencyHigh()
