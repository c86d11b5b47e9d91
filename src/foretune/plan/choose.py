"""Choose the plan a source is judged against: release, role, tuning profile and host figure, from facts.

``audit`` and ``plan --from`` both call :func:`choose_plan`. The plan is built even when the source does
not say how many hosts the box manages: rules that do not depend on the host count must always run. The
host figure is, in order, ``--hosts``, a count found in the source, or an assumption from the profile's
host range; the profile is the declared one (the box is judged against what the admin chose), else the
largest one the hardware meets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from foretune.errors import UsageError
from foretune.knowledge import hardware, threshold
from foretune.knowledge.model import SIZES
from foretune.knowledge.profiles import profiles_for
from foretune.knowledge.releases import resolve_release
from foretune.plan.facts_input import input_from_facts
from foretune.plan.planner import make_plan
from foretune.term import article

if TYPE_CHECKING:
    from foretune.facts.model import FactSet
    from foretune.knowledge.model import Release
    from foretune.plan.model import Plan


HOSTS_GIVEN = "given with --hosts"  # the reason of a host figure from the command line


@dataclass(frozen=True)
class HostFigure:
    """The managed-host count rules use, where it came from, and whether it is an assumption."""

    count: int
    source: str  # "--hosts" | "source" | "lower bound" (a partial count) | "profile"
    reason: str
    assumed: bool = False
    # the source's own count was lost to a damaged archive's damage: rules whose verdict or fix depends on the count
    # are not judged (a measured failure stands, without the fixes the count sizes)
    lost: bool = False


def declared_profile(facts: FactSet, release: Release | None) -> str | None:
    """The installer's ``tuning`` fact, when this release has profiles and the box is a server."""
    profile = facts.value("tuning_profile")
    if release is None or profile is None or (facts.value("role") or "server") != "server":
        return None
    return str(profile) if profile in profiles_for(release) else None


def hardware_profile(facts: FactSet, cpus: int | None = None, ram: int | None = None) -> str:
    """The largest size profile whose recommended hardware the box meets ("default" when none)."""
    cpus, ram = cpus or facts.value("cpu_logical"), ram or facts.value("ram_bytes")
    if not cpus or not ram:
        return "default"
    return hardware.largest_supported(int(cpus), int(ram)) or "default"


# (fact, what it counts, where it usually comes from): each sees only the hosts active in its window
LOWER_BOUNDS = (
    ("katello_agent_clients", "katello-agent hosts (pulp.agent queues)", "qpid-stat -q"),
    ("pull_rex_clients", "pull-REX MQTT clients (addresses connected to mosquitto, or client ids in its log)", "mosquitto"),
    ("task_hosts", "hosts named by host-scoped tasks in the task export (recent days only)", "the foreman_tasks export"),
)


def host_figure(facts: FactSet, hosts: int | None, profile: str, role: str = "server") -> HostFigure:
    """The best host count available and where it came from (``profile``: the size the box is judged at or,
    on a Capsule, the size whose recommended hardware it meets)."""
    if hosts is not None:
        return HostFigure(hosts, "--hosts", HOSTS_GIVEN, assumed=False)
    fact = facts["managed_hosts"]
    if fact.known and fact.value is not None:
        where = fact.provenance[0].location if fact.provenance else "the source"
        return HostFigure(int(fact.value), "source", f"counted in {where}", assumed=False)
    lost = facts["managed_hosts"].lost
    missing = "the host count was lost to the damage" if lost else "the source has no host count"
    bounds = []  # counts that see only some hosts: the largest wins, and the header says it is a lower bound
    for name, what, default in LOWER_BOUNDS:
        fact = facts[name]
        if fact.known and fact.value:
            where = fact.provenance[0].location if fact.provenance else default
            bounds.append((int(fact.value), f"{what} counted in {where} (at least this many hosts)"))
    if bounds:
        count, reason = max(bounds, key=lambda b: b[0])
        return HostFigure(count, "lower bound", f"{reason}; {missing}" if lost else reason, assumed=False, lost=lost)
    cpus = facts.value("cpu_logical")
    if role == "capsule" and isinstance(cpus, int) and cpus > 0:
        # Capsules have no tuning profiles: assume what foretune estimates a Capsule of this size serves
        count = int(threshold("capsule_hosts_per_cpu")) * cpus
        return HostFigure(count, "estimate", f"assumed: foretune's estimate for {article(cpus)} {cpus}-CPU Capsule (about {count} "
                          f"hosts, from the guide's Smart Proxy tests); {missing}", assumed=True, lost=lost)
    size = "default" if profile == "development" else profile
    low, high = hardware.host_range(size)
    count = high if high is not None else low
    edge = "upper end" if high is not None else "lower end"
    span = f"{low}-{high}" if high is not None else f"{low}+"
    whose = " (the largest size whose recommended hardware this Capsule meets)" if role == "capsule" else ""
    return HostFigure(count, "profile", f"assumed: {edge} of the {size} profile's range ({span} hosts){whose}; "
                      f"{missing}", assumed=True, lost=lost)


@dataclass(frozen=True)
class PlanChoice:
    """The plan a source is judged against, with the host figure and profile behind it."""

    plan: Plan | None
    release: Release | None
    figure: HostFigure
    profile_reason: str
    notes: tuple[str, ...] = ()


def choose_plan(facts: FactSet, *, hosts: int | None = None, **given: Any) -> PlanChoice:
    """The plan for ``facts`` as audit and ``plan --from`` both build it.

    ``given``: PlanInput fields from the command line (they win over facts; ``profile`` over the declared one).
    """
    notes: list[str] = []
    release = None
    product = given.get("product") or facts.value("product")
    version = given.get("version") or facts.value("product_version")
    if product and version:
        try:
            release = resolve_release(product, str(version), foreman_version=facts.value("foreman_version"))
        except UsageError as exc:
            notes.append(f"release unknown: {exc}")
    else:
        notes.append("release unknown: no Foreman, Satellite, orcharhino or Capsule packages found in the source")
    role = given.get("role") or facts.value("role") or "server"
    declared = declared_profile(facts, release) if role == "server" else None
    if given.get("profile"):
        profile, profile_why = str(given["profile"]), "given with --profile"
    elif declared is not None:
        profile, profile_why = declared, "declared: the installer's tuning fact"
    else:
        profile = hardware_profile(facts, given.get("cpus"), given.get("ram_bytes"))
        profile_why = "hardware: the largest profile whose recommended CPUs and RAM the box meets"
        if release is not None and not release.features.size_profiles:
            profile_why += f"; {release.label} has no --tuning profiles"
    if role == "capsule":
        profile_why = "Capsules have no tuning profiles"
    figure = host_figure(facts, hosts, profile, role)
    plan = None
    if release is not None:
        try:
            extra: dict[str, Any] = dict(given)
            # The pulp.agent queues count the katello-agent clients; without them every managed host counts
            # as one on qpid releases: the limits then cover the worst case, as `plan --katello-agent-hosts` would.
            agents = facts.value("katello_agent_clients")
            if release.features.qpid and figure.count and "katello_agent_hosts" not in extra:
                # from foreman-installer 2.5 qpid runs only where katello-agent was enabled: no qpid facts, no agents
                running = not release.features.server_qpid_opt_in or facts.value("qpid") is not None
                extra["katello_agent_hosts"] = (min(int(agents), figure.count) if agents else figure.count) if running else 0
            if role == "server" and (declared is not None or given.get("profile")):
                extra["profile"] = profile  # judged against the admin's choice; a host mismatch is its own finding
            elif role == "server" and figure.source == "lower bound":
                extra["profile"] = profile  # a partial count must not shrink the profile the hardware supports
            plan = make_plan(input_from_facts(facts, hosts=figure.count, **extra))
            if declared is not None and not given.get("profile") and plan.profile_reason.startswith("forced with --profile"):
                plan = plan._replace(profile_reason=plan.profile_reason.replace(
                    "forced with --profile", "declared by the installer's tuning fact", 1))
            elif figure.source == "lower bound" and plan.profile_reason.startswith("forced with --profile"):
                plan = plan._replace(profile_reason=plan.profile_reason.replace(
                    "forced with --profile", "the hardware's (the host count is only a lower bound)", 1))
        except UsageError as exc:
            notes.append(f"plan unavailable: {exc}")
    if plan is not None and not (declared or given.get("profile") or figure.assumed or figure.source == "lower bound") \
            and role == "server":
        profile_why = plan.profile_reason
    return PlanChoice(plan, release, figure, profile_why, tuple(notes))


class ProfileMove(NamedTuple):
    """The profile change a host count asks for, as far as the installer's hardware check accepts it."""

    declared: str  # the profile the box runs
    needed: str  # the profile its hosts need
    now: str | None  # the profile to apply now (None: none larger than declared until hardware is added)
    refused: hardware.Requirement | None  # the installer's hardware check that refuses ``needed`` on this box


def profile_move(declared: str, hosts: int, cpus: Any, ram_bytes: Any, foreman_version: Any) -> ProfileMove | None:
    """The move from the ``declared`` size profile that ``hosts`` managed hosts ask for; None when it covers them.

    When the installer's hardware check refuses the needed profile, the move goes to the largest profile the check
    accepts, if that is larger than the declared one. The one rule for the audit's findings, its values and every
    change set (:func:`change_plan`)."""
    needed = hardware.profile_for_hosts(hosts)
    if declared not in SIZES or SIZES.index(declared) >= SIZES.index(needed):
        return None
    if not isinstance(cpus, int) or not isinstance(ram_bytes, int) or not foreman_version:
        return ProfileMove(declared, needed, needed, None)
    need = hardware.enforced(needed, str(foreman_version))
    if need is None or need.met_by(cpus, ram_bytes):
        return ProfileMove(declared, needed, needed, None)
    accepted = hardware.largest_accepted(cpus, ram_bytes, str(foreman_version), below=needed)
    now = accepted if accepted is not None and SIZES.index(accepted) > SIZES.index(declared) else None
    return ProfileMove(declared, needed, now, need)


def change_plan(facts: FactSet, *, hosts: int | None = None, **given: Any) -> Plan | None:
    """The plan a change set for ``facts`` is built from, the same for `audit --output-dir`, `plan --from` and `apply`.

    Without ``--profile``, a declared profile meant for fewer hosts than the box manages is not the basis: the set
    moves to the profile :func:`profile_move` gives (profile-too-small-for-hosts asks for that ``--tuning``).
    """
    choice = choose_plan(facts, hosts=hosts, **given)
    plan = choice.plan
    if plan is None or given.get("profile") or choice.figure.assumed or not choice.figure.count:
        return plan
    declared = facts.value("tuning_profile")
    if plan.input.role != "server" or declared not in SIZES or plan.profile != declared:
        return plan
    inp = plan.input
    move = profile_move(declared, choice.figure.count, inp.cpus, inp.ram_bytes, plan.release.foreman_version)
    if move is None or move.now is None:
        return plan
    moved = choose_plan(facts, hosts=hosts, **{**given, "profile": move.now}).plan
    return moved._replace(profile_reason=move_reason(move, choice.figure.count)) if moved is not None else None


def move_reason(move: ProfileMove, hosts: int) -> str:
    """Why a change set moves to ``move.now`` (its reason in the journal and the lines apply prints): the profile the
    hosts need, or the largest one the installer's hardware check accepts when it refuses that one."""
    if move.now == move.needed:
        return f"the profile the change set moves to: {hosts} hosts need it, the installer's tuning fact declares {move.declared}"
    return (f"the largest profile the installer's hardware check accepts on this box: {hosts} hosts need {move.needed}, "
            f"which it refuses; the installer's tuning fact declares {move.declared}")
