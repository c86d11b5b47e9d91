"""A size profile the installer's hardware check refuses: the profile, and the plan, that can take effect instead."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.plan.model import Plan
from foretune.plan.planner import make_plan

REFUSAL = ("installer-will-refuse", "hardware-below-profile")  # the plan problems that say the box cannot take it


def tuning_applies(plan: Plan) -> bool:
    """The installer takes --tuning here: a Katello server of a release with size profiles (Capsules have none)."""
    return plan.input.role == "server" and plan.release.features.size_profiles and plan.input.katello


def accepted_profile(plan: Plan) -> str | None:
    """The largest size profile the installer's hardware check accepts on the plan's box, when it refuses the plan's
    own (None when it accepts the plan's profile, or none at all)."""
    if not tuning_applies(plan) or plan.profile not in SIZES or not any(p.code == REFUSAL[0] for p in plan.problems):
        return None
    inp = plan.input
    return hardware.largest_accepted(inp.cpus, inp.ram_bytes, plan.release.foreman_version, below=plan.profile)


def applicable_plan(plan: Plan) -> Plan:
    """The plan whose values can take effect: ``plan`` itself or, when the installer refuses its profile, the plan at
    the largest profile it accepts. That one keeps the refusal among its problems (the hosts still need the refused
    profile: add hardware); its own "profile too small" problem is the same problem and goes."""
    accepted = accepted_profile(plan)
    if accepted is None:
        return plan
    moved = make_plan(plan.input._replace(profile=accepted))
    problems = (*(p for p in plan.problems if p.code in REFUSAL),
                *(p for p in moved.problems if p.code != "profile-too-small"))
    return moved._replace(problems=problems, profile_reason=(
        f"the largest profile the installer's hardware check accepts on this box; it refuses {plan.profile}: "
        f"{plan.profile_reason}"))
