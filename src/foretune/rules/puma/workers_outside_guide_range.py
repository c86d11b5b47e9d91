"""Puma workers outside the guide's range for the profile."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.rules.base import Context, Outcome, PlanRule, Severity


class PumaWorkersOutsideRange(PlanRule):
    id = "puma-workers-outside-range"
    title = "Puma workers in the guide's range for the profile"
    component = "puma"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
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
        needed = _needed_profile(ctx)
        if needed is not None and workers > high:
            # more workers than the declared profile's range, on a box whose hosts need a larger profile
            # (profile-too-small-for-hosts): judged by that profile's range, never cut back to the declared one's
            nlow, nhigh = hardware.puma_worker_range(needed)
            why = f"the profile {ctx.hosts} hosts need ({ctx.plan.profile} is declared: see profile-too-small-for-hosts)"
            if workers <= nhigh:
                return self.passed(f"{workers} workers, guide {nlow}-{nhigh} for {needed}, {why}")
            return self.failed(f"{workers} workers; the guide measured {nlow}-{nhigh} best for {needed}, {why} "
                               "(more was slower or unstable under registration load)", current=workers, recommended=nhigh,
                               evidence=ctx.evidence("puma"), fixes=(ctx.hiera_fix("foreman::foreman_service_puma_workers", nhigh),))
        t = self.recommendation(ctx)
        if low <= workers <= high or workers == t.foretune.value:
            return self.passed(f"{workers} workers, guide {low}-{high} for {ctx.plan.profile}")
        side = "more" if workers > high else "fewer"
        plan_note = "" if low <= t.foretune.value <= high else f"; the plan gives {t.foretune.value} for this box ({t.foretune.reason})"
        return self.failed(f"{workers} workers; the guide measured {low}-{high} best for {ctx.plan.profile} "
                           f"({side} was slower or unstable under registration load){plan_note}",
                           current=workers, recommended=t.foretune.value, evidence=ctx.evidence("puma"), fixes=t.fixes)


def _needed_profile(ctx: Context) -> str | None:
    """The size a counted host figure needs, as far as the hardware carries it, when that is larger than the
    profile the box is judged at; else None."""
    from foretune.knowledge.model import SIZES  # start-up: only when _needed_profile runs

    if ctx.plan is None or ctx.hosts is None or ctx.hosts_assumed or ctx.plan.profile not in SIZES:
        return None
    carried = hardware.largest_supported(ctx.plan.input.cpus, ctx.plan.input.ram_bytes) or "default"
    needed = min(hardware.profile_for_hosts(ctx.hosts), carried, key=SIZES.index)
    return needed if SIZES.index(needed) > SIZES.index(ctx.plan.profile) else None


RULE = PumaWorkersOutsideRange()
