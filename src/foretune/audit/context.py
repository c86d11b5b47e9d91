"""Build the rule context from facts: release, role, host figure, tuning profile, plan and bench results.

The plan is built even when the source does not say how many hosts the box manages: rules that do not
depend on the host count must always run. The host figure is, in order, ``--hosts``, a count found in
the source, or an assumption from the profile's host range; the profile is the declared one (the box is
judged against what the admin chose), else the largest one the hardware meets.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from foretune.errors import UsageError
from foretune.facts.model import FactSet
from foretune.rules.base import Context, HostFigure

if TYPE_CHECKING:
    from foretune.knowledge.model import Release


def declared_profile(facts: FactSet, release: Release | None) -> str | None:
    """The installer's ``tuning`` fact, when this release has profiles and the box is a server."""
    from foretune.knowledge.profiles import profiles_for

    profile = facts.value("tuning_profile")
    if release is None or profile is None or (facts.value("role") or "server") != "server":
        return None
    return str(profile) if profile in profiles_for(release) else None


def hardware_profile(facts: FactSet) -> str:
    """The largest size profile whose recommended hardware the box meets ("default" when none)."""
    from foretune.knowledge import hardware

    cpus, ram = facts.value("cpu_logical"), facts.value("ram_bytes")
    if not cpus or not ram:
        return "default"
    return hardware.largest_supported(int(cpus), int(ram)) or "default"


def host_figure(facts: FactSet, hosts: int | None, profile: str) -> HostFigure:
    """The best host count available and where it came from."""
    from foretune.knowledge import hardware

    if hosts is not None:
        return HostFigure(hosts, "--hosts", "given with --hosts", assumed=False)
    fact = facts["managed_hosts"]
    if fact.known and fact.value is not None:
        where = fact.provenance[0].location if fact.provenance else "the source"
        return HostFigure(int(fact.value), "source", f"counted in {where}", assumed=False)
    size = "default" if profile == "development" else profile
    low, high = hardware.host_range(size)
    count = high if high is not None else low
    edge = "upper end" if high is not None else "lower end"
    span = f"{low}-{high}" if high is not None else f"{low}+"
    return HostFigure(count, "profile", f"assumed: {edge} of the {size} profile's range ({span} hosts); "
                      "the source has no host count", assumed=True)


def build_context(facts: FactSet, *, hosts: int | None = None, bench: list[dict[str, Any]] | None = None) -> tuple[Context, list[str]]:
    """The context and notes on what could not be derived (e.g. why there is no plan)."""
    from foretune.knowledge.releases import resolve_release
    from foretune.plan import input_from_facts, make_plan

    notes: list[str] = []
    release = None
    product, version = facts.value("product"), facts.value("product_version")
    if product and version:
        try:
            release = resolve_release(product, version, foreman_version=facts.value("foreman_version"))
        except UsageError as exc:
            notes.append(f"release unknown: {exc}")
    else:
        notes.append("release unknown: no Foreman, Satellite, orcharhino or Capsule packages found in the source")
    declared = declared_profile(facts, release)
    if declared is not None:
        profile, profile_why = declared, "declared: the installer's tuning fact"
    else:
        profile = hardware_profile(facts)
        profile_why = "hardware: the largest profile whose recommended CPUs and RAM the box meets"
        if release is not None and not release.features.size_profiles:
            profile_why += f"; {release.label} has no --tuning profiles"
    if facts.value("role") == "capsule":
        profile_why = "Capsules have no tuning profiles: the installer applies its common layer"
    figure = host_figure(facts, hosts, profile)
    plan = None
    if release is not None:
        try:
            # Without a client census, every managed host counts as a katello-agent client on qpid
            # releases: the limits then cover the worst case, as `plan --katello-agent-hosts` would.
            extra: dict[str, Any] = {"katello_agent_hosts": figure.count} if release.features.qpid and figure.count else {}
            if declared is not None:
                extra["profile"] = declared  # judged against the admin's choice; a host mismatch is its own finding
            plan = make_plan(input_from_facts(facts, hosts=figure.count, **extra))
        except UsageError as exc:
            notes.append(f"plan unavailable: {exc}")
    role = facts.value("role") or (plan.input.role if plan else None)
    ctx = Context(facts=facts, release=release, role=role, hosts=figure.count, plan=plan, bench=list(bench or []),
                  host_figure=figure, profile_reason=profile_why if plan is None or declared or figure.assumed
                  else plan.profile_reason)
    if plan is None and notes:  # the specific reason beats the generic default
        ctx = dataclasses.replace(ctx, no_plan_reason=notes[-1])
    return ctx, notes
