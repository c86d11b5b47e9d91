"""Puma workers outside the guide's range for the profile."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.recommend import profile_now, puma_evidence, puma_in_force, puma_source_note, recommended

WORKER_WORDS = ("FOREMAN_PUMA_WORKERS", "workers")


class PumaWorkersOutsideRange(PlanRule):
    id = "puma-workers-outside-range"
    title = "Puma workers in the guide's range for the profile"
    component = "puma"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    # more workers than the guide's range and more than the RAM holds: one setting, one fix, under the RAM finding
    # workers a hand-made foreman.service drop-in sets are that file's problem (puma-dropin-override): listed under it
    symptom_of = ("puma-workers-over-ram-budget", "puma-dropin-override")
    symptom_facts = (("puma-dropin-override", ("puma",)),)
    roles = frozenset({"server"})
    needs = ("puma",)
    citations = ("gf-puma-recommendations",)
    tunable = "puma.workers"

    def check(self, ctx: Context) -> Outcome:
        # the workers that run: pumactl stats, else what systemd loaded, else the drop-in or Foreman's defaults
        run = puma_in_force(ctx)
        workers = run.workers if run is not None else ctx.facts.value("puma").get("workers")
        if workers is None:
            return self.skipped("Puma worker count unknown")
        source, evidence = puma_source_note(run), puma_evidence(ctx, run, about=WORKER_WORDS)
        assert ctx.plan is not None
        low, high = hardware.puma_worker_range(ctx.plan.profile)
        change = profile_now(ctx)
        if change is not None and change.now is not None and workers > high:
            # more workers than the declared profile's range, on a box whose hosts need a larger profile
            # (profile-too-small-for-hosts): judged by the profile the audit asks for, never cut back to the declared one's
            nlow, nhigh = hardware.puma_worker_range(change.now)
            why = (f"the profile {ctx.hosts} hosts need" if change.now == change.needed else
                   f"the largest profile the installer accepts here ({ctx.hosts} hosts need {change.needed})")
            why += f" ({ctx.plan.profile} is declared: see profile-too-small-for-hosts)"
            if workers <= nhigh:
                return self.passed(f"{workers} workers, guide {nlow}-{nhigh} for {change.now}, {why}")
            rec = recommended(ctx, self.tunable)
            assert rec is not None
            return self.failed(f"{workers} workers{source}; the guide measured {nlow}-{nhigh} best for {change.now}, {why} "
                               "(more was slower or unstable under registration load)", current=workers, recommended=rec.value,
                               evidence=evidence, fixes=rec.fixes)
        t = self.recommendation(ctx)
        if low <= workers <= high or workers == t.foretune.value:
            return self.passed(f"{workers} workers, guide {low}-{high} for {ctx.plan.profile}")
        side = "more" if workers > high else "fewer"
        plan_note = "" if low <= t.foretune.value <= high else f"; the plan gives {t.foretune.value} for this box ({t.foretune.reason})"
        return self.failed(f"{workers} workers{source}; the guide measured {low}-{high} best for {ctx.plan.profile} "
                           f"({side} was slower or unstable under registration load){plan_note}",
                           current=workers, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes)


RULE = PumaWorkersOutsideRange()
