"""Build the rule context from facts: release, role, host figure, tuning profile, plan and bench results.

The plan, its release, profile and host figure are chosen by :func:`foretune.plan.choose.choose_plan`,
as ``plan --from`` chooses them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from foretune.facts.model import FactSet
from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.plan.choose import ProfileMove, choose_plan, move_reason
from foretune.plan.refused import accepted_profile
from foretune.rules.base import Context
from foretune.rules.recommend import profile_now


def build_context(facts: FactSet, *, hosts: int | None = None, bench: list[dict[str, Any]] | None = None) -> tuple[Context, list[str]]:
    """The context and notes on what could not be derived (e.g. why there is no plan)."""
    choice = choose_plan(facts, hosts=hosts)
    notes = list(choice.notes)
    plan = choice.plan
    role = facts.value("role") or (plan.input.role if plan else None)
    ctx = Context(facts=facts, release=choice.release, role=role, hosts=choice.figure.count, plan=plan,
                  bench=list(bench or []), host_figure=choice.figure, profile_reason=choice.profile_reason)
    if plan is None and notes:  # the specific reason beats the generic default
        ctx = dataclasses.replace(ctx, no_plan_reason=notes[-1])
    change = profile_now(ctx) if plan is not None else None
    if plan is not None and change is not None and change.now is not None and change.now != plan.profile:
        # the profile the audit asks for: every recommended value and the change set come from its plan
        fixed = choose_plan(facts, hosts=hosts, profile=change.now).plan
        if fixed is not None and ctx.hosts:  # why it moves (not "forced with --profile": the audit asks for it)
            fixed = fixed._replace(profile_reason=move_reason(ProfileMove(*change[:4]), ctx.hosts))
        ctx = dataclasses.replace(ctx, fix_plan=fixed)
    elif plan is not None and (accepted := accepted_profile(plan)) is not None:
        # a declared profile the installer's hardware check refuses: nothing sized for it takes effect, so the values
        # and the change set are those of the largest profile it accepts (as plan --from and apply build them)
        fixed = choose_plan(facts, hosts=hosts, profile=accepted).plan
        if fixed is not None:  # why it moves (not "forced with --profile": the hardware check refuses the declared one)
            fixed = fixed._replace(profile_reason=f"the largest profile the installer's hardware check accepts on this "
                                                  f"box: it refuses the declared {plan.profile}")
        ctx = dataclasses.replace(ctx, fix_plan=fixed)
    if choice.figure.lost and hosts is None:
        # the host count was lost to the damage: the contexts of the fewest hosts there may be (one, or the lower bound
        # counted) and of the most the profiles size for
        fewest = choice.figure.count if choice.figure.source == "lower bound" else 1
        extremes = (fewest, hardware.host_range(SIZES[-1])[0])
        ctx = dataclasses.replace(ctx, host_variants=tuple(build_context(facts, hosts=n, bench=bench)[0] for n in extremes))
    return ctx, notes
