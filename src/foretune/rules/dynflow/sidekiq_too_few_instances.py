"""Too few Sidekiq worker instances for the host count."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.term import plural


class SidekiqTooFewInstances(PlanRule):
    id = "sidekiq-too-few-instances"
    title = "Enough Dynflow Sidekiq workers for the host count"
    component = "dynflow"
    severity = Severity.LOW
    version_added = "0.1.0"
    uses_hosts = True
    roles = frozenset({"server"})
    needs = ("dynflow",)
    citations = ("gf-dynflow",)
    tunable = "dynflow.sidekiq_instances"

    def check(self, ctx: Context) -> Outcome:
        workers = ctx.facts.value("dynflow").get("workers")
        if workers is None:
            return self.skipped("Sidekiq worker count unknown")
        t = self.recommendation(ctx)
        # the instances themselves (their units), not the concurrency of each
        evidence = tuple(e for e in ctx.evidence("dynflow") if "dynflow-sidekiq@" in e.excerpt) or ctx.evidence("dynflow")
        if workers >= t.foretune.value:
            return self.passed(f"{workers} Sidekiq workers")
        if ctx.hosts_assumed:  # the verdict would rest on an assumed figure: say how many hosts the workers in force cover
            covered = max((int(bound) for bound, n in const("sidekiq_instances_by_hosts") if bound is not None and n <= workers), default=0)
            return self.failed(f"{plural(workers, 'Sidekiq worker')} {'covers' if workers == 1 else 'cover'} up to {covered} hosts (the guide's Dynflow tuning, "
                               f"stepped by the profiles' host ranges); beyond {covered} hosts the plan gives {t.foretune.value}",
                               current=workers, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes)
        return self.failed(f"{plural(workers, 'Sidekiq worker')} for {ctx.hosts} hosts: remote execution and content tasks queue",
                           current=workers, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes)


RULE = SidekiqTooFewInstances()
