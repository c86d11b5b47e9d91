"""The planner: hardware + workload -> profile, every tunable (installer vs foretune), budgets, problems.

Pure: no I/O beyond reading bundled data. Each component's tunables come from its own module in
``plan/components/``; this module checks the input, chooses the profile, checks the hardware, runs the components
in order and judges what spans them: the memory budget and the consistency of the result.
"""

from __future__ import annotations

from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import hardware, load_data
from foretune.knowledge.model import SIZES
from foretune.knowledge.profiles import installer_hiera
from foretune.knowledge.releases import resolve_release, version_key
from foretune.plan.components import COMPONENTS, STEPS, puma
from foretune.plan.model import HardwareCheck, MemoryItem, Plan, PlanInput, Problem
from foretune.plan.sizing import GIB, Sizing, orcharhino_cites, percent
from foretune.term import plural
from foretune.units import format_bytes, format_gib


def make_plan(inp: PlanInput) -> Plan:
    """Compute the plan for ``inp``; raises UsageError on contradictory or impossible input."""
    validate(inp)
    return Planner(inp).plan()


MIN_RAM = GIB  # the smallest box a plan is made for (no Foreman profile starts in less)


def validate(inp: PlanInput) -> None:
    if inp.hosts < 0:
        raise UsageError(f"--hosts must be 0 or more, not {inp.hosts}")
    if inp.cpus <= 0:
        raise UsageError(f"--cpus must be at least 1, not {inp.cpus}")
    if inp.ram_bytes < MIN_RAM:
        raise UsageError(f"--ram {format_gib(inp.ram_bytes)} is below {format_bytes(MIN_RAM)}; give a size such as 64G")
    if inp.role not in ("server", "capsule"):
        raise UsageError(f"--role must be server or capsule, not {inp.role!r}")
    if inp.rex not in ("ssh", "pull-mqtt"):
        raise UsageError(f"--rex must be ssh or pull-mqtt, not {inp.rex!r}")
    if inp.rex_hosts is not None and inp.rex != "pull-mqtt":
        raise UsageError("--rex-hosts needs --rex pull-mqtt")
    for name in ("rex_hosts", "katello_agent_hosts", "puppet_hosts"):
        value = getattr(inp, name)
        if value is not None and value < 0:
            raise UsageError(f"--{name.replace('_', '-')} must be 0 or more")
        if value is not None and value > inp.hosts:
            raise UsageError(f"--{name.replace('_', '-')} ({value}) cannot exceed --hosts ({inp.hosts})")
    if inp.puppet_runinterval is not None and inp.puppet_runinterval <= 0:
        raise UsageError("--puppet-runinterval must be a positive number of seconds")
    if inp.profile is not None and inp.role == "capsule":
        raise UsageError("--profile applies to servers only: the installer has no tuning profiles for Capsules")
    if inp.physical_cores is not None and not 0 < inp.physical_cores <= inp.cpus:
        raise UsageError("physical cores must be between 1 and the number of logical CPUs")


class Planner:
    """Runs every component over one :class:`Sizing` and judges what spans them."""

    def __init__(self, inp: PlanInput) -> None:
        release = resolve_release(inp.product, inp.version, foreman_version=inp.foreman_version)
        f = release.features
        if inp.katello_agent_hosts and not f.qpid:
            raise UsageError(f"--katello-agent-hosts: {release.label} has no katello-agent (qpid left with it)")
        if inp.rex == "pull-mqtt" and not f.pull_rex:
            raise UsageError(f"--rex pull-mqtt: {release.label} has no pull-based remote execution (MQTT)")
        if not inp.katello and inp.product != "foreman":
            raise UsageError(f"--no-katello applies to --product foreman: {release.label} always runs Katello")
        if inp.profile is not None and not inp.katello:
            raise UsageError("--profile needs Katello: plain Foreman has no --tuning profiles")
        if inp.katello_agent_hosts and not inp.katello:
            raise UsageError("--katello-agent-hosts needs Katello")
        self.problems: list[Problem] = []
        self.profile, self.profile_reason = self._choose_profile(inp, release.label, bool(f.size_profiles), not f.custom_hiera)
        base = installer_hiera(release, self.profile if f.size_profiles and inp.katello else "default", inp.role)
        self.s = Sizing(inp, release, self.profile, base, COMPONENTS, self.problems)

    # -- profile and hardware ---------------------------------------------------------------
    def _choose_profile(self, inp: PlanInput, label: str, size_profiles: bool, era62: bool) -> tuple[str, str]:
        if inp.role != "server":
            return "default", "Capsules have no tuning profiles; the installer applies the common layer only"
        wanted = hardware.profile_for_hosts(inp.hosts)
        low, high = hardware.host_range(wanted)
        span = f"{low}-{high}" if high else f"{low}+"
        if not inp.katello:
            return wanted, (f"plain Foreman has no --tuning profiles (the installer's tuning fact exists only in the Katello "
                            f"scenario); sized as the {wanted} profile ({span} hosts)")
        if inp.profile:
            reason = f"forced with --profile; {inp.hosts} hosts call for {wanted} ({span} hosts)"
            if inp.profile != "development" and SIZES.index(inp.profile) < SIZES.index(wanted):
                self.problems.append(Problem("high", "profile-too-small",
                                             f"profile {inp.profile} is meant for fewer hosts; {inp.hosts} hosts need {wanted}",
                                             ("gf-quickstart",)))
            if inp.profile == "development":
                self.problems.append(Problem("high", "development-profile",
                                             "the development profile is for development and testing only", ("fi-tuning-hook",)))
            return inp.profile, reason
        if not size_profiles:
            how = "through direct edits of the configuration files" if era62 else "through custom-hiera"
            return wanted, (f"{label} has no --tuning profiles; sized as the {wanted} profile "
                            f"of later releases ({span} hosts) and applied {how}")
        return wanted, f"{inp.hosts} managed hosts fall in the {wanted} range ({span} hosts)"

    def _hardware(self) -> HardwareCheck:
        s, inp = self.s, self.s.inp
        floor = self._release_floor()
        if not s.server:
            need = hardware.Requirement("capsule", *self._capsule_min(floor))
        elif not s.katello:
            entry = load_data("hardware.yaml")["foreman_min"]
            need = hardware.Requirement("plain Foreman", int(entry["cores"]), float(entry["ram_gib"]), str(entry["citation"]))
        elif floor is not None:  # no size profiles on this release: its own minimum, not a later release's table
            need = floor
        else:
            need = hardware.recommended(self.profile)
        ok = need.met_by(inp.cpus, inp.ram_bytes)
        have = f"{plural(inp.cpus, 'CPU')}, {format_gib(inp.ram_bytes)}"
        allowance = hardware.ram_allowance()
        want = f"{need.cores} cores and {need.ram_gib:g} GiB RAM ({percent(allowance)} = {need.ram_gib * allowance:.1f} GiB)"
        message = f"{have} {'meets' if ok else 'is below'} {need.profile}: {want}"
        if not ok:
            self.problems.append(Problem("critical" if s.server else "high", "hardware-below-profile", message, (need.citation,)))
        enforced = hardware.enforced(self.profile, s.fv) if s.server and s.katello else None
        if enforced and not enforced.met_by(inp.cpus, inp.ram_bytes):
            self.problems.append(Problem("critical", "installer-will-refuse",
                                         f"foreman-installer {s.fv} refuses --tuning {self.profile} here: "
                                         f"it requires {enforced.cores} CPUs and {enforced.ram_gib:g} GiB RAM", (enforced.citation,)))
        return HardwareCheck(need.profile, need.cores, need.ram_bytes, ok, message)

    def _release_floor(self) -> hardware.Requirement | None:
        for entry in load_data("hardware.yaml").get("release_floor", []):
            if version_key(entry["since"]) <= version_key(self.s.fv) < version_key(entry["until"]):
                return hardware.Requirement(f"the {self.s.release.label} minimum", int(entry["min"]["cores"]),
                                            float(entry["min"]["ram_gib"]), str(entry["citation"]))
        return None

    @staticmethod
    def _capsule_min(floor: hardware.Requirement | None) -> tuple[int, float, str]:
        if floor is not None:
            return floor.cores, floor.ram_gib, floor.citation
        entry: dict[str, Any] = load_data("hardware.yaml")["capsule"]
        return int(entry["min"]["cores"]), float(entry["min"]["ram_gib"]), str(entry["citation"])

    # -- what spans components ----------------------------------------------------------------
    def memory(self) -> tuple[MemoryItem, ...]:
        """Every component's resident memory; a problem when the box cannot hold it."""
        items = self.s.memory_items()
        ram = self.s.inp.ram_bytes
        total = sum(item.bytes for item in items)
        low = sum(item.low_bytes for item in items)
        if low > ram:
            self.problems.append(Problem("high", "memory-over-ram",
                                         f"even the lowest resident sizes the sources give add up to {format_gib(low)} but the box has "
                                         f"{format_gib(ram)}: it will swap, and the guides say a Satellite must never swap",
                                         ("g62-memory", "gf-puma-autotuning")))
        elif total > ram:
            self.problems.append(Problem("low", "memory-tight",
                                         f"at their planning sizes the services need about {format_gib(total)} of "
                                         f"{format_gib(ram)} (at least {format_gib(low)}): watch for swapping under load",
                                         ("g62-memory", "gf-puma-autotuning")))
        else:
            high = sum(item.high_bytes for item in items)
            if high > ram:
                self.problems.append(Problem("low", "memory-range-over-ram", self._range_over_ram(total, high),
                                             ("g62-memory", "gf-puma-autotuning")))
        return tuple(items)

    def _range_over_ram(self, total: int, high: int) -> str:
        """The memory range reaches past RAM while the planning figure fits: say so, and what keeps even the high ends in."""
        ram = self.s.inp.ram_bytes
        text = (f"the plan fits at its planning sizes ({format_gib(total)} of {format_gib(ram)}), but at the high ends of "
                f"their ranges the services reach {format_gib(high)}: watch for swapping under load")
        t = self.s.tunables
        if "puma.workers" in t:
            workers, per = t["puma.workers"].foretune.value, puma.per_worker_gib() * GIB
            fewer = -(-(high - ram) // int(per))
            low = hardware.puma_worker_range(self.profile)[0]
            if workers - fewer >= max(2, low):  # a count of its own would be a second value for puma.workers
                text += (f", or run {fewer} Puma {'worker' if fewer == 1 else 'workers'} fewer (the guide's range starts at "
                         f"{low}), which keeps even them within RAM")
        return text

    def _check_consistency(self) -> None:
        t = self.s.tunables
        if "apache.max_request_workers" in t:
            mrw = t["apache.max_request_workers"].foretune.value
            cap = t["apache.server_limit"].foretune.value * t["apache.threads_per_child"].foretune.value
            if mrw > cap:  # pragma: no cover - guarded by construction; kept as a tripwire
                raise AssertionError(f"planner produced MaxRequestWorkers {mrw} > {cap}")

    def _beyond_scale(self) -> None:
        """A note when the box or the fleet is far beyond anything the guides size (the values still follow the formulas)."""
        from foretune.plan.constants import cite, const  # start-up: only when _beyond_scale runs

        inp = self.s.inp
        far = [(f"{inp.hosts} hosts", inp.hosts > const("beyond_scale_hosts"), "beyond_scale_hosts"),
               (f"{format_gib(inp.ram_bytes)} RAM", inp.ram_bytes > const("beyond_scale_ram_gib") * GIB, "beyond_scale_ram_gib"),
               (plural(inp.cpus, "CPU"), inp.cpus > const("beyond_scale_cpus"), "beyond_scale_cpus")]
        over = [(what, name) for what, beyond, name in far if beyond]
        if over:
            largest = hardware.recommended(SIZES[-1])
            self.problems.append(Problem(
                "info", "beyond-tested-scale",
                f"{' and '.join(what for what, _ in over)}: far beyond the guides' largest profile ({SIZES[-1]}: over "
                f"{hardware.host_range(SIZES[-2])[1]} hosts, {largest.cores}+ cores, {format_bytes(largest.ram_gib * GIB)}+): "
                "the values follow the formulas, but no guide or load test covers this scale",
                ("gf-quickstart", *dict.fromkeys(cite(name) for _, name in over))))

    def plan(self) -> Plan:
        s = self.s
        self._beyond_scale()
        hw = self._hardware()
        for step in STEPS:
            step(s)
        memory = self.memory()
        self._check_consistency()
        if s.inp.product == "orcharhino":  # the orcharhino guide's own sections where it has them
            memory = tuple(m._replace(citations=orcharhino_cites(m.citations)) for m in memory)
            self.problems[:] = [p._replace(citations=orcharhino_cites(p.citations)) for p in self.problems]
        return Plan(input=s.inp, release=s.release, profile=self.profile, profile_reason=self.profile_reason,
                    hardware=hw, largest_supported_profile=hardware.largest_supported(s.inp.cpus, s.inp.ram_bytes),
                    tunables=s.tunables, connection_budget=tuple(s.connection_budget()), memory=memory,
                    problems=tuple(self.problems), installer_connection_budget=tuple(s.connection_budget(installer=True)))
