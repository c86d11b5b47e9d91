"""The planner: hardware + workload -> profile, every tunable (installer vs foretune), budgets, problems.

Pure: no I/O beyond reading bundled data. Each tunable is computed by one small method of
:class:`Planner`; tunables that do not exist in the release's generation or role are left out.
"""

from __future__ import annotations

import math
from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import hardware, module_default, module_default_citation, postgresql_default
from foretune.knowledge.model import SIZES, Release
from foretune.knowledge.profiles import PG, installer_hiera
from foretune.knowledge.releases import resolve_release
from foretune.plan.constants import cite, const, memory_gib, memory_range, stepped, versioned
from foretune.plan.direct_edits import direct_edit
from foretune.plan.model import (
    Fix,
    HardwareCheck,
    Input,
    MemoryItem,
    Plan,
    PlanInput,
    Problem,
    Setting,
    Tunable,
)
from foretune.term import plural
from foretune.units import format_gib, format_size, parse_size

GIB = 1024**3
MIB = 1024**2
MONGODB_ENGINE_KEY = "mongodb::server::storage_engine"  # an upgrade that kept MMAPv1 writes it to custom-hiera.yaml


def make_plan(inp: PlanInput) -> Plan:
    """Compute the plan for ``inp``; raises UsageError on contradictory or impossible input."""
    validate(inp)
    return Planner(inp).plan()


def validate(inp: PlanInput) -> None:
    if inp.hosts < 0:
        raise UsageError(f"--hosts must be 0 or more, not {inp.hosts}")
    if inp.cpus <= 0:
        raise UsageError(f"--cpus must be at least 1, not {inp.cpus}")
    if inp.ram_bytes < GIB:
        raise UsageError(f"--ram {format_gib(inp.ram_bytes)} is below 1 GiB; give a size such as 64G")
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


def _pg_bytes(value: Any) -> int | None:
    """PostgreSQL memory setting ('8GB', '512MB', '4MB') to bytes."""
    if value is None:
        return None
    text = str(value).strip()
    for unit in ("TB", "GB", "MB", "kB"):
        if text.endswith(unit):
            text = text[: -len(unit)] + unit[0].upper()
            break
    return parse_size(text)


def _heap_bytes(java_opts: str) -> int | None:
    from foretune.units import jvm_size_option  # the JVM's rule: the last -Xmx wins
    return jvm_size_option(java_opts)


def shared_buffers_range(release: Release, ram_bytes: int) -> tuple[int, int, str, str]:
    """(low, high, citation, wording) of the shared_buffers range the guide for ``release`` gives."""
    if not release.features.custom_hiera:  # Satellite 6.2 era: the brief's 15 % - 25 % of memory
        low = int(ram_bytes * const("pg62_shared_buffers_fraction"))
        return low, int(ram_bytes * const("pg62_shared_buffers_max_fraction")), "g62-postgresql", "15 % - 25 % of RAM (the 6.2 brief)"
    return (int(const("pg_shared_buffers_min_gib") * GIB), int(ram_bytes * const("pg_shared_buffers_max_fraction")), "gf-postgresql",
            "2 GiB - 25 % of RAM (the guide)")


def candlepin_memory(heap: int, xms: int = GIB) -> MemoryItem:
    """Candlepin's resident range: -Xms plus JVM overhead up to the full -Xmx heap plus overhead."""
    olow, ohigh, osrc = memory_range("jvm_overhead")
    growth = memory_range("heap_growth")[1]
    xms = min(xms, heap)
    plan = int(xms + (heap - xms) * growth + ohigh * GIB)
    xms_text = "1 GiB" if xms == GIB else format_gib(xms)
    return MemoryItem("Candlepin", plan, f"heap -Xms {xms_text} .. -Xmx {format_gib(heap)} + JVM overhead",
                      int(xms + olow * GIB), int(heap + ohigh * GIB), (osrc, "candlepin-defaults"))


def C(key: str) -> Input:
    """A planner constant as a cited formula input."""
    return Input(key, const(key), cite(key))


def box(name: str, value: Any) -> Input:
    """A fact about the box or workload (given by the user or read from the box)."""
    return Input(name, value, "box")


def given(setting: Setting, name: str = "installer value") -> Input:
    """The installer's value as an input: cited by where the installer takes it from."""
    return Input(name, setting.value, setting.citations[0] if setting.citations else "foretune-estimate")


class Planner:
    def __init__(self, inp: PlanInput) -> None:
        self.inp = inp
        self.release = resolve_release(inp.product, inp.version, foreman_version=inp.foreman_version)
        self.f = self.release.features
        if inp.katello_agent_hosts and not self.f.qpid:
            raise UsageError(f"--katello-agent-hosts: {self.release.label} has no katello-agent (qpid left with it)")
        if inp.rex == "pull-mqtt" and not self.f.pull_rex:
            raise UsageError(f"--rex pull-mqtt: {self.release.label} has no pull-based remote execution (MQTT)")
        self.server = inp.role == "server"
        self.katello = inp.katello
        if not self.katello and inp.product != "foreman":
            raise UsageError(f"--no-katello applies to --product foreman: {self.release.label} always runs Katello")
        if inp.profile is not None and not self.katello:
            raise UsageError("--profile needs Katello: plain Foreman has no --tuning profiles")
        if inp.katello_agent_hosts and not self.katello:
            raise UsageError("--katello-agent-hosts needs Katello")
        self.fv = self.release.foreman_version
        self.era62 = not self.f.custom_hiera  # Satellite 6.2 era: no custom-hiera, edit the config files
        self.cores = inp.physical_cores or inp.cpus
        self.ram_gib = inp.ram_bytes / GIB
        self.tunables: dict[str, Tunable] = {}
        self.problems: list[Problem] = []
        self.profile, self.profile_reason = self._choose_profile()
        profiles = self.f.size_profiles and self.katello
        self.base = installer_hiera(self.release, self.profile if profiles else "default", inp.role)
        self.base_pg: dict[str, Any] = dict(self.base.get(PG, {}))
        self.rex_hosts = (inp.rex_hosts if inp.rex_hosts is not None else inp.hosts) if inp.rex == "pull-mqtt" else 0

    # -- profile and hardware ---------------------------------------------------------------
    def _choose_profile(self) -> tuple[str, str]:
        if not self.server:
            return "default", "Capsules have no tuning profiles; the installer applies the common layer only"
        wanted = hardware.profile_for_hosts(self.inp.hosts)
        low, high = hardware.host_range(wanted)
        span = f"{low}-{high}" if high else f"{low}+"
        if not self.katello:
            return wanted, (f"plain Foreman has no --tuning profiles (the installer's tuning fact exists only in the Katello "
                            f"scenario); sized as the {wanted} profile ({span} hosts)")
        if self.inp.profile:
            reason = f"forced with --profile; {self.inp.hosts} hosts call for {wanted} ({span} hosts)"
            if self.inp.profile != "development" and SIZES.index(self.inp.profile) < SIZES.index(wanted):
                self.problems.append(Problem("high", "profile-too-small",
                                             f"profile {self.inp.profile} is meant for fewer hosts; {self.inp.hosts} hosts need {wanted}",
                                             ("gf-quickstart",)))
            if self.inp.profile == "development":
                self.problems.append(Problem("high", "development-profile",
                                             "the development profile is for development and testing only", ("fi-tuning-hook",)))
            return self.inp.profile, reason
        if not self.f.size_profiles:
            how = "through direct edits of the configuration files" if self.era62 else "through custom-hiera"
            return wanted, (f"{self.release.label} has no --tuning profiles; sized as the {wanted} profile "
                            f"of later releases ({span} hosts) and applied {how}")
        return wanted, f"{self.inp.hosts} managed hosts fall in the {wanted} range ({span} hosts)"

    def _hardware(self) -> HardwareCheck:
        floor = self._release_floor()
        if not self.server:
            need = hardware.Requirement("capsule", *self._capsule_min())
        elif not self.katello:
            from foretune.knowledge import load_data

            entry = load_data("hardware.yaml")["foreman_min"]
            need = hardware.Requirement("plain Foreman", int(entry["cores"]), float(entry["ram_gib"]), str(entry["citation"]))
        elif floor is not None and self.profile == "default":
            need = floor
        else:
            need = hardware.recommended(self.profile)
        ok = need.met_by(self.inp.cpus, self.inp.ram_bytes)
        have = f"{self.inp.cpus} CPUs, {format_gib(self.inp.ram_bytes)}"
        want = f"{need.cores} cores and {need.ram_gib:g} GiB RAM (90 % = {need.ram_gib * hardware.ram_allowance():.1f} GiB)"
        message = f"{have} {'meets' if ok else 'is below'} {need.profile}: {want}"
        if not ok:
            self.problems.append(Problem("critical" if self.server else "high", "hardware-below-profile", message,
                                         (need.citation,)))
        enforced = hardware.enforced(self.profile, self.fv) if self.server and self.katello else None
        if enforced and not enforced.met_by(self.inp.cpus, self.inp.ram_bytes):
            self.problems.append(Problem("critical", "installer-will-refuse",
                                         f"foreman-installer {self.fv} refuses --tuning {self.profile} here: "
                                         f"it requires {enforced.cores} CPUs and {enforced.ram_gib:g} GiB RAM", (enforced.citation,)))
        return HardwareCheck(need.profile, need.cores, need.ram_bytes, ok, message)

    def _release_floor(self) -> hardware.Requirement | None:
        from foretune.knowledge import load_data
        from foretune.knowledge.releases import version_key

        for entry in load_data("hardware.yaml").get("release_floor", []):
            if version_key(entry["since"]) <= version_key(self.fv) < version_key(entry["until"]):
                return hardware.Requirement(f"the {self.release.label} minimum", int(entry["min"]["cores"]),
                                            float(entry["min"]["ram_gib"]), str(entry["citation"]))
        return None

    def _capsule_min(self) -> tuple[int, float, str]:
        from foretune.knowledge import load_data

        floor = self._release_floor()
        if floor is not None:
            return floor.cores, floor.ram_gib, floor.citation
        entry = load_data("hardware.yaml")["capsule"]
        return int(entry["min"]["cores"]), float(entry["min"]["ram_gib"]), str(entry["citation"])

    # -- tunable helpers ----------------------------------------------------------------------
    def add(self, tid: str, title: str, unit: str, installer: Setting, foretune: Setting, *fixes: Fix) -> None:
        component = tid.split(".", 1)[0]
        if self.era62:
            fixes = tuple(direct_edit(fix, capsule=not self.server) for fix in fixes)
        self.tunables[tid] = Tunable(tid, component, title, unit, self.in_force(fixes, installer), foretune, tuple(fixes))

    def in_force(self, fixes: tuple[Fix, ...], installer: Setting) -> Setting:
        """The installer column: a value the answers file or custom-hiera sets wins over the profile or module default."""
        for fix in fixes:
            if fix.kind == "hiera" and fix.target in self.inp.configured:
                value, where = self.inp.configured[fix.target]
                if fix.target.startswith("candlepin::java_opts"):
                    value = _heap_bytes(str(value))
                return Setting(value, f"set in the {where} (wins over {installer.reason})", ("fi-hiera-precedence",), origin=where)
        return installer

    def base_setting(self, key: str, fallback: Any, fallback_reason: str, fallback_cite: str) -> Setting:
        """What the installer gives for hiera ``key``: the profile's value, else the module default."""
        value = self.base_pg.get(key.split("/", 1)[1]) if key.startswith(PG + "/") else self.base.get(key)
        if value is not None:
            source = f"--tuning {self.profile}" if self.f.size_profiles and self.katello else "the installer's tuning file"
            return Setting(value, f"set by {source}", ("fi-tuning-profiles" if self.f.size_profiles else "fi-tuning-yaml",))
        return Setting(fallback, fallback_reason, (fallback_cite,))

    def pg_setting(self, name: str, builtin: str | None = None) -> Setting:
        """What the installer gives for PostgreSQL ``name``: the profile's value, else PostgreSQL's built-in default.

        The built-in default is 9.2's on a release without custom-hiera (the Satellite 6.2 era, PostgreSQL 9.2 on RHEL 7),
        else the newest; ``builtin`` names PostgreSQL's own setting when it differs (vacuum_cost_limit).
        """
        server = "9.2" if self.era62 else None
        step = postgresql_default(builtin or name, server)
        why = f"PostgreSQL {server} default" if server else "PostgreSQL default"
        return self.base_setting(PG + "/" + name, step["value"], why + (f" ({builtin})" if builtin else ""), str(step["citation"]))

    def same(self, installer: Setting, reason: str, *citations: str) -> Setting:
        """foretune keeps the installer's value."""
        return Setting(installer.value, reason, citations or installer.citations, inputs=(given(installer),))

    # -- Foreman: Puma or Passenger -----------------------------------------------------------
    def _installer_puma(self) -> tuple[Setting, Setting, Setting]:
        if self.f.puma_formula == "fixed":
            fixed = module_default("puma", "fixed")
            why = "Puma default before the auto formula"
            return (Setting(fixed["workers"], why, (fixed["citation"],)), Setting(fixed["threads_min"], why, (fixed["citation"],)),
                    Setting(fixed["threads_max"], why, (fixed["citation"],)))
        auto = module_default("puma", "auto")
        raw = min(self.inp.cpus * auto["cpu_factor"], self.ram_gib - auto["ram_reserve_gib"])
        cap = module_default("puma", "auto-capped")["cap"] if self.f.puma_formula == "auto-capped" else None
        workers = max(1, math.floor(min(raw, cap) if cap else raw))
        formula = f"floor(min({'100, ' if cap else ''}{self.inp.cpus} CPUs x 1.5, {self.ram_gib:.1f} GiB - 1.5))"
        cites = (auto["citation"], *((module_default("puma", "auto-capped")["citation"],) if cap else ()))
        return (Setting(workers, f"installer formula {formula}", cites),
                Setting(auto["threads_min"], "installer default (threads_min = threads_max)", (auto["citation"],)),
                Setting(auto["threads_max"], "installer default", (auto["citation"],)))

    def puma(self) -> None:
        if not (self.f.puma and self.server):
            return
        inst_workers, inst_tmin, inst_tmax = self._installer_puma()
        low, high = hardware.puma_worker_range(self.profile)
        threads = const("puma_threads")
        backend_gib = (threads + const("db_pool_extra")) * memory_gib("pg_backend_mib") / 1024
        per_worker = memory_gib("puma_worker") + backend_gib
        room = self._ram_for_puma_gib()
        ram_cap = math.floor(room / per_worker)
        cpu_cap = math.floor(self.inp.cpus * const("puma_cpu_factor"))
        auto = self.f.puma_formula != "fixed"
        target = min(high, max(low, inst_workers.value if auto else low))
        workers = max(2, min(target, ram_cap, cpu_cap))
        why = f"guide range {low}-{high} for {self.profile}"
        if workers < target:
            why += f"; limited to {workers} by {'RAM (~1 GiB per worker after the other services)' if ram_cap < cpu_cap else 'CPUs x 1.5'}"
        if workers < low:
            self.problems.append(Problem("low", "puma-below-guide-range",
                                         f"only {workers} Puma workers fit this box beside the other services; the guide's "
                                         f"registration tests favour {low}-{high} for {self.profile}",
                                         ("gf-puma-recommendations", "gf-puma-autotuning")))
        formula = (f"max(2, min(min({high}, max({low}, {inst_workers.value if auto else low})), "
                   f"floor({room:.1f} GiB free / {per_worker:.2f} GiB per worker) = {ram_cap}, "
                   f"floor({self.inp.cpus} x {const('puma_cpu_factor')}) = {cpu_cap})) = {workers}")
        inputs = (Input("guide workers low", low, "gf-puma-recommendations"), Input("guide workers high", high, "gf-puma-recommendations"),
                  *((given(inst_workers, "installer formula"),) if auto else ()),
                  Input("memory/puma_worker (GiB)", memory_gib("puma_worker"), memory_range("puma_worker")[2]),
                  Input("memory/pg_backend_mib", memory_gib("pg_backend_mib"), memory_range("pg_backend_mib")[2]),
                  Input("RAM left after the other services GiB", round(room, 1), "foretune-estimate"),
                  C("puma_cpu_factor"), box("CPUs", self.inp.cpus))
        cites = ("gf-puma-recommendations", "gf-puma-autotuning")
        self.add("puma.workers", "Puma workers", "count", inst_workers, Setting(workers, why, cites, formula, inputs),
                 Fix("hiera", "foreman::foreman_service_puma_workers", workers))
        alt = const("puma_threads_alternative")
        self.add("puma.threads_min", "Puma threads (min)", "count", inst_tmin,
                 Setting(threads, "equal to threads_max: about 12 % less memory than min 0", ("gf-puma-threads", cite("puma_threads")),
                         "threads_min = threads_max", (C("puma_threads"), C("puma_threads_min_saving"))),
                 Fix("hiera", "foreman::foreman_service_puma_threads_min", threads))
        self.add("puma.threads_max", "Puma threads (max)", "count", inst_tmax,
                 Setting(threads, f"the guides recommend 16 threads with every profile (up to 23 % faster than 4); "
                                  f"{alt} is the cited alternative for a mixed, not registration-heavy load",
                         (cite("puma_threads"),), "", (C("puma_threads"), C("puma_threads_alternative"))),
                 Fix("hiera", "foreman::foreman_service_puma_threads_max", threads))

    def _ram_for_puma_gib(self) -> float:
        """RAM left for Puma after every other component of the memory budget."""
        others = sum(item.bytes for item in self._memory_items(exclude_puma=True)) / GIB
        return self.ram_gib - others

    def _installer_db_pool(self, threads_max: int) -> Setting:
        if self.f.db_pool_formula == "threads+4":
            return Setting(threads_max + 4, f"installer: threads_max {threads_max} + 4 (with or without Katello)", ("pf-db-pool",))
        return Setting(max(module_default("foreman_db_pool", "base"), threads_max),
                       f"installer: max(db_pool 5, threads_max {threads_max})", ("pf-db-pool",))

    def db_pool(self) -> None:
        if not (self.server and self.f.puma):
            return
        t = self.tunables
        threads_max = t["puma.threads_max"].foretune.value
        inst = self._installer_db_pool(t["puma.threads_max"].installer.value or 0)
        if not self.katello:
            want = threads_max + const("db_pool_extra_without_katello")
            self.add("foreman.db_pool", "Foreman database pool per process", "count", inst,
                     Setting(want, "threads_max + 1: one per Puma thread plus the Puma listener (no Katello listeners on plain Foreman)",
                             ("pf-db-pool", "gf-db-pool"), f"threads_max {threads_max} + {const('db_pool_extra_without_katello')} = {want}",
                             (Input("threads_max", threads_max, cite("puma_threads")), C("db_pool_extra_without_katello"))),
                     Fix("hiera", "foreman::db_pool", want))
            return
        want = threads_max + const("db_pool_extra")
        self.add("foreman.db_pool", "Foreman database pool per process", "count", inst,
                 Setting(want, "threads_max + 4: one per Puma thread plus the Katello event daemon, event monitor, "
                               "Stomp and Puma listeners", ("pf-db-pool", "gf-db-pool"),
                         f"threads_max {threads_max} + {const('db_pool_extra')} = {want}",
                         (Input("threads_max", threads_max, cite("puma_threads")), C("db_pool_extra"))),
                 Fix("hiera", "foreman::db_pool", want))

    def passenger(self) -> None:
        if not self.f.passenger:
            return
        if not self.server and not (self.era62 or self.f.puppet_passenger):
            return  # a Capsule's only Passenger application was the Puppet server, on puppetserver here (pp-passenger-removed)
        key = "apache::mod::passenger::"
        cites62 = ("g62-passenger",) if self.server else ("g62-passenger", "g62-capsule")
        if self.server:
            inst_pool = self.base_setting(key + "passenger_max_pool_size", 6, "Passenger's built-in default", "g62-passenger")
        else:
            inst_pool = Setting(6, "Passenger's built-in default", ("g62-passenger",))
        per_core = math.ceil(self.cores * const("passenger_pool_per_core"))
        floor = inst_pool.value if self.server else const("capsule_passenger_pool")
        pool = max(floor, per_core)
        self.add("passenger.max_pool_size", "PassengerMaxPoolSize", "count", inst_pool,
                 Setting(pool, f"1.5 x {self.cores} physical cores; never below "
                               + ("the brief's capsule example 6" if not self.server else "the installer's" if self.era62 else "the profile"),
                         cites62, f"max({floor}, ceil({self.cores} x 1.5)) = {pool}",
                         (box("physical cores", self.cores), C("passenger_pool_per_core"),
                          given(inst_pool) if self.server else C("capsule_passenger_pool"))),
                 Fix("hiera", key + "passenger_max_pool_size", pool))
        inst_queue = self.base_setting(key + "passenger_max_request_queue_size", module_default("passenger", "max_request_queue_size"),
                                       "Passenger's built-in default", module_default_citation("passenger"))
        if self.server and self.era62:
            queue = const("passenger_queue_62")
            self.add("passenger.max_request_queue_size", "PassengerMaxRequestQueueSize", "count", inst_queue,
                     Setting(queue, "the brief's tuned example: the expected burst, below Apache's MaxClients", cites62, "",
                             (C("passenger_queue_62"),)),
                     Fix("hiera", key + "passenger_max_request_queue_size", queue))
        elif self.server:
            big = self.inp.hosts > 5000
            burst = const("passenger_queue_large") if big else const("passenger_queue_small")
            queue = max(inst_queue.value, burst)
            self.add("passenger.max_request_queue_size", "PassengerMaxRequestQueueSize", "count", inst_queue,
                     Setting(queue, "sized for the registration burst: 250 up to 5000 hosts, 1000 above",
                             ("g62-passenger", "fi-tuning-profiles"), f"max({inst_queue.value}, {burst}) = {queue}",
                             (given(inst_queue), C("passenger_queue_large" if big else "passenger_queue_small"))),
                     Fix("hiera", key + "passenger_max_request_queue_size", queue))
        else:
            queue = const("capsule_passenger_queue")
            self.add("passenger.max_request_queue_size", "PassengerMaxRequestQueueSize", "count", inst_queue,
                     Setting(queue, "the brief's capsule example", cites62, "", (C("capsule_passenger_queue"),)),
                     Fix("hiera", key + "passenger_max_request_queue_size", queue))
        for tid, title, ckey, hkey, fallback in (
                ("passenger.max_requests", "PassengerMaxRequests", "passenger_max_requests", "passenger_max_requests", 0),
                ("passenger.stat_throttle_rate", "PassengerStatThrottleRate", "passenger_stat_throttle_rate",
                 "passenger_stat_throttle_rate", 10)):
            inst = self.base_setting(key + hkey, fallback, "Passenger's built-in default", "g62-passenger")
            self.add(tid, title, "count", inst,
                     Setting(const(ckey), "the brief's tuned Passenger configuration", cites62, "", (C(ckey),)),
                     Fix("hiera", key + hkey, const(ckey)))
        inst_idle = self.base_setting(key + "passenger_max_preloader_idle_time", 300, "Passenger's built-in default (5 minutes)", "g62-passenger")
        self.add("passenger.max_preloader_idle_time", "PassengerMaxPreloaderIdleTime", "seconds", inst_idle,
                 Setting(0, "keep the preloader alive so new processes spawn fast", cites62, "",
                         (Input("PassengerMaxPreloaderIdleTime", 0, "g62-passenger"),)),
                 Fix("hiera", key + "passenger_max_preloader_idle_time", 0))
        if self.server:
            on = Setting(True, "puppet-foreman default on EL: PassengerPreStart https://<server>", ("pf-passenger-51",))
            self.add("passenger.prestart", "PassengerPreStart (Foreman)", "bool", on,
                     Setting(True, "start the application with Apache instead of on the first request", ("g62-passenger",)),
                     Fix("hiera", "foreman::passenger_prestart", True))
        puppet = (self.era62 and not self.server) or (self.f.puppet_passenger and bool(self.inp.puppet_hosts))
        apps = (["foreman"] if self.server else []) + (["puppet"] if puppet else [])
        for app in apps:
            ckey = "passenger_min_instances" if self.server else "capsule_passenger_min_instances"
            want = min(const(ckey), max(1, pool // len(apps)))
            inst_min = Setting(1, "puppet-foreman default" if app == "foreman" else "puppet module default",
                               ("pf-passenger-51",) if app == "foreman" else ("g62-passenger",))
            prefix = "passenger." if app == "foreman" else "passenger.puppet_"  # passenger.min_instances is Foreman's (audit rules read it)
            self.add(f"{prefix}min_instances", f"PassengerMinInstances ({app.capitalize()})", "count", inst_min,
                     Setting(want, f"the brief's {'tuned example' if self.server else 'capsule example'} per application"
                                   + ("; at most an equal share of the pool" if want < const(ckey) else ""), cites62,
                             f"min({const(ckey)}, max(1, {pool} // {len(apps)} applications)) = {want}",
                             (C(ckey), Input("PassengerMaxPoolSize", pool, "g62-passenger"))),
                     Fix("hiera", f"{app}::passenger_min_instances" if app == "foreman" else "puppet::server::passenger_min_instances", want))
            if app == "puppet" and not self.era62:
                continue  # puppet-puppet has no PassengerStartTimeout parameter (pp-passenger-removed)
            ckey = "passenger_start_timeout" if self.server else "capsule_passenger_start_timeout"
            inst_timeout = (Setting(600, "puppet-foreman default on EL", ("pf-passenger-51",)) if app == "foreman"
                            else Setting(90, "the Puppet application's configured value in the brief's capsule example", ("g62-capsule",)))
            self.add(f"{prefix}start_timeout", f"PassengerStartTimeout ({app.capitalize()})", "seconds", inst_timeout,
                     Setting(const(ckey), "the brief's example for this role", cites62, "", (C(ckey),)),
                     Fix("hiera", f"{app}::passenger_start_timeout" if app == "foreman" else "puppet::server::passenger_start_timeout",
                         const(ckey)))

    # -- Apache --------------------------------------------------------------------------------
    def apache(self) -> None:
        sysd = module_default("systemd_default_nofile")
        inst = Setting(sysd, "not set by the installer: systemd's default applies", (module_default_citation("systemd_default_nofile"),))
        if self.f.passenger and self.era62:
            nofile = const("g62_nofile")
            want = Setting(nofile, "the 6.2 brief's limit for registrations at scale", ("g62-apache",), "", (C("g62_nofile"),))
        else:
            nofile = const("httpd_nofile")
            want = Setting(nofile, "the guide's value for busy servers", (cite("httpd_nofile"),), "", (C("httpd_nofile"),))
        self.add("httpd.limit_nofile", "httpd LimitNOFILE", "count", inst, want, Fix("limit", "httpd", nofile))
        if self.f.passenger:
            self._keepalive()
        if not self.server:
            return
        if self.f.mpm == "event":
            self._apache_event()
        else:
            self._apache_prefork()

    def _apache_event(self) -> None:
        mod = module_default("apache", "event")
        key = "apache::mod::event::"
        threads = self.base_setting(key + "threadsperchild", mod["threadsperchild"], "puppetlabs-apache default", mod["citation"])
        limit = self.base_setting(key + "serverlimit", mod["serverlimit"], "puppetlabs-apache default", mod["citation"])
        inst_mrw_value = self.base.get(key + "maxrequestworkers") or limit.value * threads.value
        inst_mrw = Setting(inst_mrw_value, "profile value" if key + "maxrequestworkers" in self.base
                           else "not set: Apache uses ServerLimit x ThreadsPerChild", ("apache-module-defaults",))
        want_limit, want_threads = limit.value, threads.value
        big = self.inp.hosts > 5000 or self.profile != "default"
        if big:
            want_limit = max(want_limit, 64)
        want_mrw = want_limit * want_threads
        cites = ("gf-httpd-children", "fi-tuning-profiles")
        self.add("apache.mpm", "Apache MPM", "text", Setting("event", "installer default since Foreman 3.3", ("fi-event-mpm",)),
                 Setting("event", "the installer's MPM for this release", ("fi-event-mpm",)))
        self.add("apache.threads_per_child", "ThreadsPerChild (event)", "count", threads,
                 self.same(threads, "the profiles' value", *cites), Fix("hiera", key + "threadsperchild", want_threads))
        limit_inputs = (given(limit), *((Input("medium+ profiles' ServerLimit", 64, "fi-tuning-profiles"),) if big else ()))
        self.add("apache.server_limit", "ServerLimit (event)", "count", limit,
                 Setting(want_limit, "64 processes x 16 threads = 1024 workers above 5000 hosts" if want_limit == 64
                         else "the default profile's limit", cites, f"max({limit.value}, 64) = {want_limit}" if big else "",
                         limit_inputs), Fix("hiera", key + "serverlimit", want_limit))
        self.add("apache.max_request_workers", "MaxRequestWorkers (event)", "count", inst_mrw,
                 Setting(want_mrw, "must equal ServerLimit x ThreadsPerChild (no more can run)", cites,
                         f"{want_limit} x {want_threads} = {want_mrw}",
                         (Input("ServerLimit", want_limit, "fi-tuning-profiles"), given(threads, "ThreadsPerChild"))),
                 Fix("hiera", key + "maxrequestworkers", want_mrw))
        if inst_mrw_value > limit.value * threads.value:
            self.problems.append(Problem("high", "apache-workers-over-limit",
                                         f"installer MaxRequestWorkers {inst_mrw_value} exceeds ServerLimit {limit.value} x "
                                         f"ThreadsPerChild {threads.value}", cites))

    def _apache_prefork(self) -> None:
        mod = module_default("apache", "prefork")
        key = "apache::mod::prefork::"
        limit = self.base_setting(key + "serverlimit", mod["serverlimit"], "puppetlabs-apache default", mod["citation"])
        clients = self.base_setting(key + "maxclients", mod["maxclients"], "puppetlabs-apache default", mod["citation"])
        if self.f.passenger:
            pool = self.tunables["passenger.max_pool_size"].foretune.value
            queue = self.tunables["passenger.max_request_queue_size"].foretune.value
            pulp = min(8, self.inp.cpus)
            regs = const("prefork_concurrent_registrations")
            want = max(limit.value, pool + queue + regs + pulp)
            why = f"PassengerMaxPoolSize {pool} + queue {queue} + 150 concurrent registrations + {pulp} Pulp processes"
            if self.era62 and pool + queue < clients.value:
                want = limit.value
                why = f"the brief: prefork needs no change while PassengerMaxPoolSize {pool} + queue {queue} stay below MaxClients"
            cites: tuple[str, ...] = ("g62-apache", "g62-passenger") if want == limit.value and self.era62 else ("g69-apache",)
            formula = (f"{pool} + {queue} < {clients.value}: keep {want}" if want == limit.value and self.era62
                       else f"max({limit.value}, {pool} + {queue} + {regs} + min(8, {self.inp.cpus})) = {want}")
            inputs: tuple[Input, ...] = (given(limit), Input("PassengerMaxPoolSize", pool, "g62-passenger"),
                                         Input("PassengerMaxRequestQueueSize", queue, "g62-passenger"),
                                         C("prefork_concurrent_registrations"), Input("Pulp processes", pulp, "pulp2-worker-defaults"))
        else:
            want = max(limit.value, 1024 if self.inp.hosts > 5000 else limit.value)
            why = "the medium+ profiles' 1024 above 5000 hosts" if want == 1024 else "the installer's value"
            cites = ("fi-tuning-profiles", "g69-apache")
            formula = ""
            inputs = (Input("medium+ profiles' ServerLimit", 1024, "fi-tuning-profiles"),) if want == 1024 else (given(limit),)
        self.add("apache.mpm", "Apache MPM", "text", Setting("prefork", "the installer's MPM for this release", ("fi-event-mpm",)),
                 Setting("prefork", "event MPM arrived with Foreman 3.3; keep what the installer manages", ("fi-event-mpm",)))
        self.add("apache.server_limit", "ServerLimit (prefork)", "count", limit, Setting(want, why, cites, formula, inputs),
                 Fix("hiera", key + "serverlimit", want))
        self.add("apache.max_clients", "MaxClients / MaxRequestWorkers (prefork)", "count", clients,
                 Setting(want, "equal to ServerLimit", cites, "MaxClients = ServerLimit", (Input("ServerLimit", want, cites[0]),)),
                 Fix("hiera", key + "maxclients", want))

    def _keepalive(self) -> None:
        ka, ka_cite = versioned("keepalive", self.fv)
        cites = ("g62-apache",) if self.server else ("g62-apache", "g62-capsule")
        # the Foreman vhost's own directives win over the server-wide ones for the vhost that serves the clients
        vhost = self.server and self.f.foreman_vhost_keepalive
        prefix = "foreman::" if vhost else "apache::"
        self.add("apache.keepalive", "KeepAlive", "bool", Setting(ka["keepalive"], "puppet-foreman default", (ka_cite,)),
                 Setting(True, "fewer TCP connections and less Apache CPU", cites), Fix("hiera", prefix + "keepalive", True if vhost else "On"))
        timeout = const("keepalive_timeout")
        self.add("apache.keepalive_timeout", "KeepAliveTimeout", "seconds",
                 Setting(ka["keepalive_timeout"], "puppet-foreman default", (ka_cite,)),
                 Setting(timeout, "between 2 and 5 seconds", cites, "", (C("keepalive_timeout"),)),
                 Fix("hiera", prefix + "keepalive_timeout", timeout))
        mkr = const("max_keepalive_requests")
        self.add("apache.max_keepalive_requests", "MaxKeepAliveRequests", "count",
                 Setting(ka["max_keepalive_requests"], "puppet-foreman default", (ka_cite,)),
                 Setting(mkr, "0 = unlimited requests per connection", cites, "", (C("max_keepalive_requests"),)),
                 Fix("hiera", prefix + "max_keepalive_requests", mkr))

    # -- tasks ---------------------------------------------------------------------------------
    def dynflow(self) -> None:
        if not self.server:
            return
        if self.f.sidekiq:
            d = module_default("dynflow_sidekiq", "instances"), module_default("dynflow_sidekiq", "concurrency")
            inst = stepped("sidekiq_instances_by_hosts", self.inp.hosts)
            conc = const("sidekiq_concurrency")
            self.add("dynflow.sidekiq_instances", "Dynflow Sidekiq worker instances", "count",
                     Setting(d[0], "puppet-foreman default", ("pf-dynflow",)),
                     Setting(inst, f"more instances rather than more threads; {inst} for {self.inp.hosts} hosts",
                             (cite("sidekiq_instances_by_hosts"),), f"step table {const('sidekiq_instances_by_hosts')} at {self.inp.hosts} hosts",
                             (C("sidekiq_instances_by_hosts"), box("hosts", self.inp.hosts))),
                     Fix("hiera", "foreman::dynflow_worker_instances", inst) if self.f.dynflow_worker_options else
                     Fix("advice", "Dynflow", f"{inst} Sidekiq worker instances need foreman-installer 2.5 or later: this installer "
                                              "has no worker-instances option and runs one worker"))
            self.add("dynflow.sidekiq_concurrency", "Dynflow Sidekiq concurrency per instance", "count",
                     Setting(d[1], "puppet-foreman default", ("pf-dynflow",)),
                     Setting(conc, "limited benefit above 5 threads (Ruby)", ("gf-dynflow",), "", (C("sidekiq_concurrency"),)),
                     # before puppet-foreman 17 the single worker's concurrency is foreman::dynflow_pool_size (pf-dynflow-pool)
                     Fix("hiera", "foreman::dynflow_worker_concurrency" if self.f.dynflow_worker_options else "foreman::dynflow_pool_size", conc))
        else:
            want = stepped("dynflowd_executors_by_ram_gib", self.ram_gib, inclusive=False)
            self.add("dynflow.executors", "dynflowd EXECUTORS_COUNT", "count",
                     Setting(module_default("dynflowd", "executors"), "dynflowd default", (module_default_citation("dynflowd"),)),
                     Setting(want, "2 executors for 32-64 GB RAM, 3 above", (cite("dynflowd_executors_by_ram_gib"),),
                             f"step table {const('dynflowd_executors_by_ram_gib')} at {self.ram_gib:.1f} GiB",
                             (C("dynflowd_executors_by_ram_gib"), box("RAM GiB", round(self.ram_gib, 1)))),
                     Fix("file", self.f.tasks_sysconfig, f"EXECUTORS_COUNT={want}"))

    # -- content -------------------------------------------------------------------------------
    def pulp(self) -> None:
        if not self.katello:
            return
        cpus = self.inp.cpus
        if self.f.pulpcore:
            cap = module_default("pulpcore", "workers_cap")
            workers = min(cap, cpus)
            cites = ("pulpcore-worker-defaults",)
            if self.f.pulp_api_formula == "one":
                api, api_why = 1, "installer default: one API worker on this release"
            else:
                api, api_why = min(module_default("pulpcore", "api_cap"), cpus) + 1, "installer default min(4, CPUs) + 1"
            if self.f.pulp_content_formula == "two":
                content, content_why = 2, "installer default: gunicorn -w 2 on this release"
            else:
                content, content_why = 2 * min(cap, cpus) + 1, "installer default 2 x min(8, CPUs) + 1"
            inst_w = Setting(workers, "installer default min(8, CPUs)", cites)
            self.add("pulp.workers", "pulpcore workers", "count", inst_w,
                     Setting(workers, "min(8, CPUs): more degrade through I/O blocking and load PostgreSQL", cites,
                             f"min(8, {cpus}) = {workers}", (Input("pulpcore worker cap", cap, "pulpcore-worker-defaults"), box("CPUs", cpus))),
                     Fix("hiera", "foreman_proxy_content::pulpcore_worker_count", workers))
            inst_api = Setting(api, api_why, ("pp-gunicorn-history",) if self.f.pulp_api_formula == "one" else cites)
            self.add("pulp.api_workers", "pulpcore API gunicorn workers", "count", inst_api,
                     self.same(inst_api, f"{api_why}; no guide asks for more"),
                     Fix("hiera", "foreman_proxy_content::pulpcore_api_service_worker_count", api))
            inst_c = Setting(content, content_why, ("pp-gunicorn-history",) if self.f.pulp_content_formula == "two" else cites)
            self.add("pulp.content_workers", "pulpcore content gunicorn workers", "count", inst_c, self.same(inst_c, "installer default"),
                     Fix("hiera", "foreman_proxy_content::pulpcore_content_service_worker_count", content))
        if self.f.pulp2:
            want = min(module_default("pulp2", "workers_cap"), cpus)
            cites2 = ("pulp2-worker-defaults", "g62-pulp")
            inst = Setting(want, "installer default min(CPUs, 8)", ("pulp2-worker-defaults",))
            self.add("pulp2.concurrency", "Pulp 2 workers (PULP_CONCURRENCY)", "count", inst,
                     self.same(inst, "one per CPU up to 8", *cites2), Fix("hiera", "katello::num_pulp_workers", want))

    def candlepin(self) -> None:
        if not (self.server and self.katello):
            return
        module_opts, module_cite = versioned("candlepin_java_opts", self.fv)
        profile_opts = self.base.get("candlepin::java_opts")
        opts = profile_opts or module_opts
        if opts is None:
            return  # the installer sets no Candlepin heap on this release and the brief gives none: nothing to plan
        inst = Setting(_heap_bytes(opts), f"{'profile' if profile_opts else 'puppet-candlepin default'} {opts}",
                       ("fi-tuning-profiles",) if profile_opts else tuple(dict.fromkeys((module_cite, "candlepin-defaults"))))
        self.add("candlepin.heap_max", "Candlepin JVM heap (-Xmx)", "bytes", inst,
                 self.same(inst, f"the {self.profile} profile's heap", "fi-tuning-profiles", "candlepin-defaults"),
                 Fix("hiera", "candlepin::java_opts", f"-Xms1024m -Xmx{(inst.value or 0) // MIB}m"))

    def mongodb_engine(self) -> tuple[str, str]:
        """(engine, where set): a mongodb::server::storage_engine the box sets wins over the release's engine.

        An upgrade from MongoDB 2.6 keeps MMAPv1 by writing that key to custom-hiera.yaml (mongodb-upgrade-mmapv1).
        """
        value, where = self.inp.configured.get(MONGODB_ENGINE_KEY, (None, ""))
        engine = str(value).lower()
        if engine in ("mmapv1", "wiredtiger"):
            return engine, where
        return self.f.mongodb_engine, ""

    def mongodb(self) -> None:
        if not (self.f.mongodb and self.server and self.katello):
            return
        engine, where = self.mongodb_engine()
        if engine != "wiredtiger":
            inst = (Setting("mmapv1", f"set in the {where}: the upgrade from MongoDB 2.6 kept the MMAPv1 data files",
                            ("mongodb-upgrade-mmapv1",), origin=where) if where else
                    Setting("mmapv1", "MongoDB 2.6 on this release: MMAPv1 maps the data files with mmap()", ("mongodb-engine",)))
            self.add("mongodb.storage_engine", "MongoDB storage engine", "text", inst,
                     Setting("mmapv1", "no cache size to set: mmap() leaves caching to the kernel (a cacheSizeGB key would stop mongod); "
                                       "keep /var/lib/mongodb off NFS", ("mongodb-engine", "g62-mongodb")))
            return
        fraction = module_default("mongodb_cache_fraction")
        want = round(self.ram_gib * fraction, 2)
        auto = self.base.get("mongodb::server::config_data") is not None
        inst = Setting(want if auto else None, "installer computes 20 % of RAM" if auto
                       else "not set: mongod takes about 50 % of RAM", ("fi-mongo-cache",))
        self.add("mongodb.cache_size_gb", "MongoDB WiredTiger cacheSizeGB", "count", inst,
                 Setting(want, "20 % of RAM; unbounded mongod competes with PostgreSQL (WiredTiger only: not on a box whose upgrade "
                               "kept MMAPv1)", ("g69-mongodb", "fi-mongo-cache", "mongodb-upgrade-mmapv1"),
                         f"round({self.ram_gib:.2f} GiB x {fraction}, 2) = {want}",
                         (Input("cache fraction", fraction, module_default_citation("mongodb_cache_fraction")), box("RAM GiB", round(self.ram_gib, 2)))),
                 Fix("hiera", "mongodb::server::config_data", {"storage.wiredTiger.engineConfig.cacheSizeGB": want}))

    def qpid(self) -> None:
        if not (self.f.qpid and self.katello):
            return
        n = self.inp.katello_agent_hosts
        cites = ("g62-qpid",) if self.era62 else ("g69-qpid",)
        for tid, title, hkey, unit, per, base, floor in (
                ("qpidd.limit_nofile", "qpidd LimitNOFILE", "qpid::open_file_limit", "qpidd", "qpidd_fds_per_host", "qpidd_fds_base", 65536),
                ("qdrouterd.limit_nofile", "qdrouterd LimitNOFILE", "qpid::router::open_file_limit", "qdrouterd",
                 "qdrouterd_fds_per_host", "qdrouterd_fds_base", 150100)):
            inst = self.base_setting(hkey, None, "not set: systemd default", cites[0])
            if self.era62 and not n:
                setting, fix = self.same(inst, "no katello-agent hosts: the brief's limit is for katello-agent at scale", *cites), None
                self.add(tid, title, "count", inst, setting)
                continue
            if self.era62:
                want = const("g62_nofile")
                setting = Setting(want, "the 6.2 brief's limit for katello-agent at scale", cites, "", (C("g62_nofile"),))
                fix = Fix("limit", unit, want)
            else:
                lowest = inst.value or floor
                want = max(lowest, n * const(per) + const(base))
                setting = Setting(want, f"{const(per)} x {n} katello-agent hosts + {const(base)}, at least {lowest}", cites,
                                  f"max({lowest}, {const(per)} x {n} + {const(base)}) = {want}",
                                  (C(per), C(base), box("katello-agent hosts", n),
                                   given(inst) if inst.value else Input("profiles' limit", floor, "fi-tuning-profiles")))
                fix = Fix("hiera", hkey, want)
                if hkey == "qpid::open_file_limit" and not self.f.qpid_open_file_limit_option:
                    fix = direct_edit(fix)  # puppet-qpid before 2.2 has no such parameter: a drop-in (pq-options-history)
            self.add(tid, title, "count", inst, setting, fix)
        if self.era62 and n and const("g62_aio_max_nr") > n * const("aio_per_host"):
            aio = const("g62_aio_max_nr")
            aio_setting = Setting(aio, "the 6.2 brief's value", ("g62-qpid",), "", (C("g62_aio_max_nr"),))
        elif self.era62 and n:  # more agents than the brief's flat value covers: the later guides' per-host rule
            aio = n * const("aio_per_host") + 1
            aio_setting = Setting(aio, f"the 6.2 brief's {const('g62_aio_max_nr')} is not more than 33 x {n} katello-agent hosts",
                                  ("g62-qpid", "g69-qpid"), f"max({const('g62_aio_max_nr')}, 33 x {n} + 1) = {aio}",
                                  (C("g62_aio_max_nr"), C("aio_per_host"), box("katello-agent hosts", n)))
        else:
            aio = max(const("aio_default"), n * const("aio_per_host") + 1)
            aio_setting = Setting(aio, f"more than 33 x {n} katello-agent hosts", cites,
                                  f"max({const('aio_default')}, 33 x {n} + 1) = {aio}",
                                  (C("aio_default"), C("aio_per_host"), box("katello-agent hosts", n)))
        self.add("sysctl.fs_aio_max_nr", "fs.aio-max-nr", "count",
                 Setting(const("aio_default"), "kernel default", (cite("aio_default"),)), aio_setting, Fix("sysctl", "fs.aio-max-nr", aio))
        storage = n * const("qpidd_storage_per_host_mib") * MIB
        if n:
            self.add("qpidd.storage_bytes", "free space in /var/lib/qpidd", "bytes", Setting(None, "not managed by the installer"),
                     Setting(storage, f"2 MiB per katello-agent host x {n}", cites, f"{n} x 2 MiB",
                             (C("qpidd_storage_per_host_mib"), box("katello-agent hosts", n))),
                     Fix("advice", "/var/lib/qpidd", f"keep at least {format_gib(storage)} free"))
        interval = const("qpid_mgmt_pub_interval")
        self.add("qpid.mgmt_pub_interval", "qpidd mgmt-pub-interval", "seconds",
                 Setting(module_default("qpid_mgmt_pub_interval"), "qpidd default", (module_default_citation("qpid_mgmt_pub_interval"),)),
                 Setting(interval, "recycles management objects faster; avoids 'not-attached' channel errors", ("g62-qpid",), "",
                         (C("qpid_mgmt_pub_interval"),)),
                 Fix("hiera", "qpid::mgmt_pub_interval", interval) if self.f.qpid_mgmt_pub_interval_option
                 else direct_edit(Fix("hiera", "qpid::mgmt_pub_interval", interval)))  # puppet-qpid before 4.1: edit qpidd.conf
        if self.server and n:
            accept = const("accept_timeout_at_scale")
            self.add("katello.content_action_accept_timeout", "content_action_accept_timeout", "seconds",
                     Setting(module_default("content_action_accept_timeout"), "Katello setting default", ("g62-katello-agent",)),
                     Setting(accept, "more than 20 s so katello-agent clients have time to answer", ("g62-katello-agent", cite("accept_timeout_at_scale")),
                             "", (C("accept_timeout_at_scale"),)),
                     Fix("command", f"hammer settings set --name content_action_accept_timeout --value {accept}"))

    def remote_execution(self) -> None:
        if self.f.pull_rex and self.rex_hosts:
            default_nofile = module_default("mosquitto_nofile")
            step = 1000
            want = max(default_nofile, math.ceil(self.rex_hosts * (1 + const("mosquitto_headroom")) / step) * step)
            self.add("mosquitto.limit_nofile", "mosquitto LimitNOFILE", "count",
                     Setting(default_nofile, "systemd default: about 1024 pull-REX hosts", ("gf-pull-rex",)),
                     Setting(want, f"one descriptor per pull-REX host ({self.rex_hosts}) plus 10 %", ("gf-pull-rex", cite("mosquitto_headroom")),
                             f"max({default_nofile}, ceil({self.rex_hosts} x 1.1 / 1000) x 1000) = {want}",
                             (box("pull-REX hosts", self.rex_hosts), C("mosquitto_headroom"), Input("systemd default", default_nofile, "gf-pull-rex"))),
                     Fix("limit", "mosquitto", want))
            mq = module_default("mqtt", "rate_limit"), module_default("mqtt", "ttl"), module_default("mqtt", "resend_interval")
            rate = const("mqtt_rate_limit") if self.rex_hosts > const("mqtt_rate_limit_from_hosts") else None
            prefix = "foreman_proxy::plugin::remote_execution::script::"
            self.add("mqtt.rate_limit", "MQTT rate limit (concurrent jobs)", "count",
                     Setting(mq[0], "plugin default: unlimited", ("rex-mqtt-defaults",)),
                     Setting(rate, f"a foretune estimate to protect the Smart Proxy above {const('mqtt_rate_limit_from_hosts')} pull hosts; "
                                   "raise it while the Smart Proxy keeps up" if rate else "unlimited is fine at this scale",
                             ("gf-pull-rex", cite("mqtt_rate_limit")), "", (C("mqtt_rate_limit"), C("mqtt_rate_limit_from_hosts")) if rate else ()),
                     *((Fix("hiera", prefix + "mqtt_rate_limit", rate) if self.f.mqtt_rate_limit_option else
                        Fix("advice", "MQTT rate limit", f"a limit of {rate} needs foreman-installer 3.6 or later: "
                                                         "this installer has no rate-limit option"),) if rate else ()))
            for tid, title, value in (("mqtt.ttl", "MQTT ttl (seconds to pick up a job)", mq[1]), ("mqtt.resend_interval", "MQTT resend interval", mq[2])):
                inst = Setting(value, "plugin default", ("rex-mqtt-defaults",))
                self.add(tid, title, "seconds", inst, self.same(inst, "plugin default; raise only when hosts miss notifications", "gf-pull-rex"))
        nofile, nofile_cite = versioned("smart_proxy_dynflow_nofile", self.fv)
        inst = (Setting(nofile, "puppet-foreman_proxy default", (nofile_cite,)) if nofile else
                Setting(module_default("systemd_default_nofile"), "not set by the installer on this release: systemd's default applies",
                        (nofile_cite,)))
        if self.era62:
            want = Setting(const("g62_nofile"), "the 6.2 brief's limit for remote execution at scale", ("g62-remote-execution",),
                           "", (C("g62_nofile"),))
            self.add("smart_proxy_dynflow.limit_nofile", "smart_proxy_dynflow_core LimitNOFILE", "count", inst, want,
                     Fix("limit", "smart_proxy_dynflow_core", const("g62_nofile")))
            self.add("smart_proxy_dynflow.database", "smart_proxy_dynflow_core database", "text",
                     Setting("var/lib/foreman-proxy/dynflow/dynflow.sqlite", "on-disk sqlite", ("g62-remote-execution",)),
                     Setting("in-memory", "in-memory sqlite answers faster under remote execution load", ("g62-remote-execution",)),
                     Fix("file", "/etc/smart_proxy_dynflow_core/settings.yml", ':database: ""'))
        else:
            self.add("smart_proxy_dynflow.limit_nofile", "Smart Proxy dynflow LimitNOFILE", "count", inst,
                     self.same(inst, "SSH remote execution holds one descriptor per connection", "proxy-dynflow-nofile"),
                     Fix("hiera", "foreman_proxy::plugin::dynflow::open_file_limit", inst.value))

    # -- PostgreSQL ---------------------------------------------------------------------------
    def postgresql_memory(self) -> None:
        if not self.server:
            return
        key = PG + "/"
        sb_inst = self.pg_setting("shared_buffers")
        sb_inst_bytes = _pg_bytes(sb_inst.value) or 0
        if self.era62:
            frac = const("pg62_shared_buffers_fraction")
            step = 128 * MIB
            sb = math.ceil(self.inp.ram_bytes * frac / step) * step
            setting = Setting(format_size(sb), "15 % of RAM (the brief: 15 % - 25 %), rounded up to 128 MB", ("g62-postgresql",),
                              f"ceil({self.ram_gib:.1f} GiB x {frac} / 128 MB) x 128 MB = {format_size(sb)}",
                              (C("pg62_shared_buffers_fraction"), box("RAM GiB", round(self.ram_gib, 1))))
        else:
            floor_b = const("pg_shared_buffers_min_gib") * GIB
            cap_b = max(int(self.inp.ram_bytes * const("pg_shared_buffers_max_fraction")) // GIB * GIB, GIB)
            sb = min(max(sb_inst_bytes, floor_b), cap_b)
            setting = Setting(format_size(sb), "at least 2 GiB, at most 25 % of RAM; the profile's value when it is in that range",
                              ("gf-postgresql",),
                              f"min(max({sb_inst.value}, 2 GiB), floor({self.ram_gib:.1f} GiB x 25 %)) = {format_size(sb)}",
                              (given(sb_inst), C("pg_shared_buffers_min_gib"), C("pg_shared_buffers_max_fraction"),
                               box("RAM GiB", round(self.ram_gib, 1))))
        self.add("postgresql.shared_buffers", "shared_buffers", "bytes", sb_inst, setting,
                 Fix("hiera", key + "shared_buffers", format_size(sb)))
        if self.era62:
            self._shm(sb)
        av_inst = self.pg_setting("autovacuum_vacuum_cost_limit", "vacuum_cost_limit")
        if not self.era62:
            av = const("pg_autovacuum_cost_limit")
            self.add("postgresql.autovacuum_vacuum_cost_limit", "autovacuum_vacuum_cost_limit", "count", av_inst,
                     Setting(av, "lets autovacuum keep up with Foreman's churn", ("gf-postgresql",), "", (C("pg_autovacuum_cost_limit"),)),
                     Fix("hiera", key + "autovacuum_vacuum_cost_limit", av))
        if "checkpoint_segments" in self.base_pg:
            self.add("postgresql.checkpoint_segments", "checkpoint_segments (removed)", "count",
                     self.base_setting(key + "checkpoint_segments", None, "not set", "fi-checkpoint-segments-removed"),
                     Setting(None, "removed in PostgreSQL 9.5; PostgreSQL 12 refuses to start with it", ("fi-checkpoint-segments-removed",)))

    def _shm(self, shared_buffers: int) -> None:
        """PostgreSQL 9.2 takes shared_buffers from System V shared memory: the kernel limits must allow it."""
        over = const("pg92_shm_overhead")
        shmmax = math.ceil(shared_buffers * (1 + over) / GIB) * GIB
        page = const("page_size")
        rhel7_shmmax = 4294967295
        self.add("sysctl.kernel_shmmax", "kernel.shmmax", "bytes", Setting(rhel7_shmmax, "RHEL 7 default", ("pg92-shm",)),
                 Setting(max(shmmax, rhel7_shmmax), "PostgreSQL 9.2 needs shared_buffers plus about 10 % in one System V segment",
                         ("pg92-shm", "g62-postgresql"), f"max(4 GiB - 1, ceil({format_size(shared_buffers)} x {1 + over}) in GiB) = {max(shmmax, rhel7_shmmax)}",
                         (Input("shared_buffers", format_size(shared_buffers), "g62-postgresql"), C("pg92_shm_overhead"),
                          Input("RHEL 7 kernel.shmmax", rhel7_shmmax, "pg92-shm"))),
                 Fix("sysctl", "kernel.shmmax", max(shmmax, rhel7_shmmax)))
        rhel7_shmall = 268435456
        self.add("sysctl.kernel_shmall", "kernel.shmall (pages)", "count", Setting(rhel7_shmall, "RHEL 7 default", ("pg92-shm",)),
                 Setting(max(rhel7_shmall, shmmax // page), "at least kernel.shmmax in 4 KiB pages", ("pg92-shm",),
                         f"max({rhel7_shmall}, {shmmax} / {page}) = {max(rhel7_shmall, shmmax // page)}",
                         (Input("kernel.shmmax", shmmax, "pg92-shm"), C("page_size"), Input("RHEL 7 kernel.shmall", rhel7_shmall, "pg92-shm"))),
                 Fix("sysctl", "kernel.shmall", max(rhel7_shmall, shmmax // page)))

    def postgresql_cache(self) -> None:
        """effective_cache_size and work_mem from the same memory budget the rest of the plan uses."""
        if not self.server:
            return
        key = PG + "/"
        if self.era62:
            return  # the 6.2 brief tunes shared_buffers and max_connections only
        items = self._memory_items()
        sb = _pg_bytes(self.tunables["postgresql.shared_buffers"].foretune.value) or 0
        free = max(0, self.inp.ram_bytes - sum(i.bytes for i in items))
        cache_room = max(0, self.inp.ram_bytes - sum(i.low_bytes for i in items))
        ecs_inst = self.pg_setting("effective_cache_size")
        profile_ecs, profile_name = self._profile_value_for_ram("effective_cache_size")
        budget = (sb + cache_room) // GIB * GIB
        ceiling = (_pg_bytes(profile_ecs) if profile_ecs else _pg_bytes(ecs_inst.value)) or 0
        ecs = max(GIB, min(budget, ceiling))
        self.add("postgresql.effective_cache_size", "effective_cache_size", "bytes", ecs_inst,
                 Setting(format_size(ecs), f"shared_buffers plus the page cache left with the services at the low end of "
                                           f"their memory ranges, at most the {profile_name or 'installer'}'s {format_size(ceiling)}",
                         ("fi-tuning-profiles", "g62-memory"),
                         f"min({format_size(sb)} + {format_gib(cache_room)} page cache, {format_size(ceiling)}) = {format_size(ecs)}",
                         (Input("shared_buffers", format_size(sb), "gf-postgresql"),
                          Input("RAM left at the low end of the memory budget", format_gib(cache_room), "foretune-estimate"),
                          Input(f"{profile_name or 'installer'} effective_cache_size", format_size(ceiling), "fi-tuning-profiles"))),
                 Fix("hiera", key + "effective_cache_size", format_size(ecs)))
        wm_inst = self.pg_setting("work_mem")
        guide = const("pg_work_mem")
        conns = self.tunables["postgresql.max_connections"].foretune.value if "postgresql.max_connections" in self.tunables else 0
        extra = max(0, (_pg_bytes(guide) or 0) - (_pg_bytes(wm_inst.value) or 0)) * conns * const("pg_work_mem_ops_per_connection")
        profile_wm, _ = self._profile_value_for_ram("work_mem")
        if _pg_bytes(wm_inst.value) == _pg_bytes(guide):
            self.add("postgresql.work_mem", "work_mem", "bytes", wm_inst, self.same(wm_inst, "already the guide's 8 MB", "gf-postgresql"),
                     Fix("hiera", key + "work_mem", wm_inst.value))
            return
        fits = extra <= free
        want = guide if fits else wm_inst.value
        why = (f"the guide's 8 MB: {conns} connections x 4 MB more = {format_gib(extra)} fits in the {format_gib(free)} the memory budget leaves"
               if fits else f"keep {wm_inst.value}: {conns} connections x 4 MB more = {format_gib(extra)} does not fit in the "
                            f"{format_gib(free)} the memory budget leaves")
        if fits and profile_wm and _pg_bytes(profile_wm) == _pg_bytes(guide):
            why = "the guide's 8 MB, as the profiles use for this much RAM"
        self.add("postgresql.work_mem", "work_mem", "bytes", wm_inst,
                 Setting(want, why, (cite("pg_work_mem"),), f"{guide} if {conns} x ({guide} - {wm_inst.value}) <= {format_gib(free)} free",
                         (C("pg_work_mem"), given(wm_inst), Input("max_connections", conns, "gf-postgresql"),
                          Input("RAM left by the memory budget", format_gib(free), "foretune-estimate"),
                          C("pg_work_mem_ops_per_connection"))),
                 Fix("hiera", key + "work_mem", want))

    def _profile_value_for_ram(self, name: str) -> tuple[str | None, str | None]:
        """The PostgreSQL ``name`` of the largest size profile whose recommended RAM this box has (90 % rule).

        Below the medium profile's RAM that is the default profile, which leaves PostgreSQL's own default.
        """
        if not self.f.size_profiles:
            return None, None
        fits = [p for p in SIZES if self.inp.ram_bytes >= hardware.recommended(p).ram_bytes * hardware.ram_allowance()]
        best = fits[-1] if fits else "default"
        from foretune.knowledge.profiles import installer_hiera as hiera

        value = hiera(self.release, best).get(PG, {}).get(name) or {"effective_cache_size": "4GB", "work_mem": "4MB"}.get(name)
        return (str(value), f"{best} profile") if value is not None else (None, None)

    def postgresql_connections(self) -> None:
        if not self.server:
            return
        key = PG + "/"
        cites = ("g62-postgresql",) if self.era62 else ("gf-postgresql",)
        need = sum(n for _, n in self.connection_budget())
        with_headroom = math.ceil(need * (1 + const("pg_connection_headroom")) / 100) * 100
        mc_inst = self.pg_setting("max_connections")
        floor = max(int(mc_inst.value), const("g62_max_connections") if self.era62 else 0)
        mc = max(floor, with_headroom)
        self.add("postgresql.max_connections", "max_connections", "count", mc_inst,
                 Setting(mc, f"connection budget {need} + 20 % headroom, rounded up to 100; never below "
                             + ("the brief's 200 for 200 parallel registrations" if self.era62 else "the profile"),
                         (*cites, "pf-db-pool", cite("pg_connection_headroom")),
                         f"max({floor}, ceil({need} x 1.2 / 100) x 100) = {mc}",
                         (Input("connection budget", need, "pf-db-pool"), C("pg_connection_headroom"), given(mc_inst),
                          *((C("g62_max_connections"),) if self.era62 else ()))),
                 Fix("hiera", key + "max_connections", mc))
        if need > int(mc_inst.value):
            self.problems.append(Problem("high", "connections-over-max",
                                         f"the plan's connection budget ({need}) exceeds the installer's max_connections {mc_inst.value}: "
                                         "apply the plan's max_connections", ("gf-postgresql", "pf-db-pool")))
        inst_need = sum(n for _, n in self.connection_budget(installer=True))
        if inst_need > int(mc_inst.value):
            self.problems.append(Problem("high", "installer-connections-over-max",
                                         f"with the installer's own values the services open up to {inst_need} connections but its "
                                         f"max_connections is {mc_inst.value}: expect 'remaining connection slots are reserved' errors "
                                         "until the plan is applied", ("gf-postgresql", "pf-db-pool", "pf-puma-formula")))

    def connection_budget(self, *, installer: bool = False) -> list[tuple[str, int]]:
        """PostgreSQL connections per consumer with the plan's values (or, ``installer``, the installer's)."""
        t = self.tunables

        def val(tid: str) -> Any:
            return t[tid].installer.value if installer else t[tid].foretune.value

        budget: list[tuple[str, int]] = []
        if "puma.workers" in t:
            w, th = val("puma.workers"), val("puma.threads_max")
            pool = val("foreman.db_pool") if "foreman.db_pool" in t else th + const("db_pool_extra")
            budget.append((f"Puma {plural(w, 'worker')} x {pool} pool (threads {th})", w * pool))
        if "passenger.max_pool_size" in t and self.server:
            pool = val("passenger.max_pool_size")
            budget.append((f"Passenger {plural(pool, 'process', 'processes')} x 5 pool", pool * 5))
        if "dynflow.sidekiq_instances" in t:
            inst, conc = val("dynflow.sidekiq_instances"), val("dynflow.sidekiq_concurrency")
            extra = const("sidekiq_connections_extra")
            budget.append((f"Sidekiq {plural(inst, 'worker')} x ({conc} + {extra}) + orchestrator (1 + {extra})", inst * (conc + extra) + 1 + extra))
            if self.katello and self.f.hosts_queue:
                budget.append((f"Katello hosts-queue worker (1 + {extra})", 1 + extra))
        if "dynflow.executors" in t:
            budget.append((f"dynflowd {plural(val('dynflow.executors'), 'executor')} x 5", val("dynflow.executors") * 5))
        if self.server and self.katello:
            budget.append(("Candlepin", const("candlepin_connections")))
        if "pulp.workers" in t:
            pw, pa, pc = (val(k) for k in ("pulp.workers", "pulp.api_workers", "pulp.content_workers"))
            budget.append((f"pulpcore {plural(pw, 'worker')} x 2 + {pa + pc} gunicorn", pw * const("pulp_connections_per_worker")
                           + (pa + pc) * const("pulp_connections_per_gunicorn")))
            budget.append(("Smart Proxy container gateway", const("proxy_container_gateway_connections")))
        budget.append(("superuser reserved", const("pg_reserved_connections")))
        return budget

    # -- OS and clients --------------------------------------------------------------------------
    def os(self) -> None:
        virtual = self.inp.virtual
        want = const("tuned_virtual") if virtual else const("tuned_bare_metal")
        why = ("virtual-guest on a VM" if virtual else "throughput-performance on bare metal" if virtual is False
               else "throughput-performance on bare metal (virtual-guest if this is a VM: pass --virtual)")
        self.add("os.tuned_profile", "tuned profile", "text", Setting(None, "not managed by the installer", ("g62-tuned",)),
                 Setting(want, why, ("g62-tuned", "gf-hardware")),
                 Fix("command", "systemctl enable --now tuned"), Fix("command", f"tuned-adm profile {want}"))
        self.add("os.thp", "transparent huge pages", "text", Setting("always", "RHEL default", ("gf-hardware",)),
                 Setting("never", "THP hurts PostgreSQL and Redis" if self.f.redis else "THP hurts PostgreSQL and MongoDB",
                         ("gf-hardware", "gf-redis") if self.f.redis else ("gf-hardware", "g69-thp")),
                 Fix("command", "grubby --update-kernel=ALL --args=transparent_hugepage=never"),
                 Fix("command", "echo never > /sys/kernel/mm/transparent_hugepage/enabled"))

    def clients(self) -> None:
        if self.server:
            at_scale = self.inp.hosts > const("hammer_timeout_from_hosts")
            dflt = module_default("hammer_request_timeout")
            inst = Setting(dflt, "hammer default", (module_default_citation("hammer_request_timeout"),))
            want = (Setting(const("hammer_timeout_at_scale"), "no timeout for API calls on large collections",
                            ("g62-hammer", cite("hammer_timeout_from_hosts")), "", (C("hammer_timeout_at_scale"), C("hammer_timeout_from_hosts")))
                    if at_scale else self.same(inst, "default is fine at this scale"))
            self.add("hammer.request_timeout", "hammer request_timeout", "seconds", inst, want,
                     Fix("file", "/etc/hammer/cli.modules.d/foreman.yml", f":request_timeout: {want.value}"))
        if self.inp.puppet_hosts:
            interval = self.inp.puppet_runinterval or module_default("puppet", "runinterval")
            inst = Setting(module_default("puppet", "runinterval"), "Puppet default", ("g62-puppet",))
            self.add("puppet.runinterval", "Puppet runinterval", "seconds", inst,
                     Setting(interval, "spread agent runs evenly over the interval", ("g62-puppet",), "",
                             (box("--puppet-runinterval", interval),) if self.inp.puppet_runinterval else (given(inst),)),
                     Fix("hiera", "puppet::runinterval", interval))
            self.add("puppet.splay", "Puppet splay", "bool", Setting(module_default("puppet", "splay"), "Puppet default", ("g62-puppet",)),
                     Setting(True, "randomise agent start times", ("g62-puppet",)), Fix("hiera", "puppet::splay", True))
            if self.era62:
                self._puppet_capacity_62()
            else:
                self._puppet_capacity()

    def _puppet_capacity(self) -> None:
        per_capsule = math.floor(const("puppet_hosts_per_4_cpus") * self.inp.cpus / 4)
        self.add("puppet.hosts_per_capsule", "Puppet agents per Capsule", "count",
                 Setting(None, "not limited by the installer"),
                 Setting(per_capsule, f"about {const('puppet_hosts_per_4_cpus')} agents per 4 CPUs (10 classes each)", ("capsule-puppet",),
                         f"floor({const('puppet_hosts_per_4_cpus')} x {self.inp.cpus} / 4) = {per_capsule}",
                         (C("puppet_hosts_per_4_cpus"), box("CPUs", self.inp.cpus))),
                 Fix("advice", "Puppet", f"serve at most {per_capsule} agents from a box of this size"))
        if not self.server and self.inp.puppet_hosts > per_capsule:
            self.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                         f"{self.inp.puppet_hosts} Puppet agents exceed the guide's about {per_capsule} for {self.inp.cpus} CPUs",
                                         ("capsule-puppet",)))

    def _puppet_capacity_62(self) -> None:
        hosts, concurrent = const("g62_puppet_hosts"), const("g62_puppet_concurrent")
        self.add("puppet.hosts_per_capsule", "Puppet agents per Capsule", "count",
                 Setting(None, "not limited by the installer"),
                 Setting(hosts, f"the 6.2 brief measured {hosts} Puppet hosts on 8 vCPUs / 16 GB and about {concurrent} "
                                "concurrent agent runs on a default capsule; benchmark your own manifests before going further",
                         ("g62-puppet",), "", (C("g62_puppet_hosts"), C("g62_puppet_concurrent"))),
                 Fix("advice", "Puppet", f"the 6.2 brief measured {hosts} Puppet hosts on 8 vCPUs / 16 GB; keep concurrent runs "
                                         f"below about {concurrent} (splay)"))
        if not self.server and self.inp.puppet_hosts > hosts:
            self.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                         f"{self.inp.puppet_hosts} Puppet agents exceed the {hosts} the 6.2 brief measured per capsule",
                                         ("g62-puppet",)))

    # -- memory ------------------------------------------------------------------------------
    def _memory_items(self, *, exclude_puma: bool = False) -> list[MemoryItem]:
        t, gib = self.tunables, GIB
        items: list[MemoryItem] = []

        def add(component: str, count: float, item: str, reason: str) -> None:
            low, high, source = memory_range(item)
            # a measured or guide-stated size plans at its high end; a foretune estimate at the middle of its range
            plan = low + (high - low) * (0.5 if source == "foretune-estimate" else 1.0)
            items.append(MemoryItem(component, int(count * plan * gib), reason, int(count * low * gib), int(count * high * gib),
                                    (source,)))

        add("OS and page cache floor", 1, "os_base", "foretune estimate")
        if self.f.mpm == "event":
            limit = (t["apache.server_limit"].foretune.value if "apache.server_limit" in t
                     else self.base.get("apache::mod::event::serverlimit") or module_default("apache", "event")["serverlimit"])
            add("Apache httpd", limit, "httpd_event_child", f"{limit} event children (ServerLimit)")
        else:
            children = t["apache.server_limit"].foretune.value if "apache.server_limit" in t else module_default("apache", "prefork")["serverlimit"]
            add("Apache httpd", children, "httpd_prefork_child", f"{children} prefork children x 3 MB (6.2 brief's passenger-memory-stats)")
        if "puma.workers" in t and not exclude_puma:
            w = t["puma.workers"].foretune.value
            add("Foreman (Puma)", w, "puma_worker", f"{plural(w, 'worker')} x ~1 GiB (guide)")
        if "passenger.max_pool_size" in t:
            pool = t["passenger.max_pool_size"].foretune.value
            if self.server:
                add("Foreman (Passenger)", pool, "passenger_process", f"{plural(pool, 'process', 'processes')} x 240-280 MB (6.2 brief)")
                add("Passenger preloader", 1, "passenger_preloader", "one preloader kept alive (6.2 brief)")
        if "dynflow.sidekiq_instances" in t:
            n = t["dynflow.sidekiq_instances"].foretune.value + (1 if self.katello and self.f.hosts_queue else 0)
            add("Dynflow Sidekiq", n, "sidekiq_instance", f"{plural(n, 'worker')} (incl. the hosts queue)" if self.katello and self.f.hosts_queue
                else plural(n, "worker"))
            add("Dynflow orchestrator", 1, "dynflow_orchestrator", "one orchestrator")
        if "dynflow.executors" in t:
            n = t["dynflow.executors"].foretune.value
            add("dynflowd", n, "dynflowd_executor", f"{n} executors")
        if "postgresql.shared_buffers" in t:
            sb = _pg_bytes(t["postgresql.shared_buffers"].foretune.value) or 0
            conns = sum(n for _, n in self.connection_budget())
            touched = memory_range("pg_shared_buffers_touched")
            blow, bhigh, bsrc = memory_range("pg_backend_mib")
            low = int(sb * touched[0] + conns * blow * MIB)
            high = int(sb * touched[1] + conns * bhigh * MIB)
            items.append(MemoryItem("PostgreSQL", high, f"shared_buffers + {conns} backends x 2-5 MiB", low, high,
                                    tuple(dict.fromkeys((touched[2], bsrc)))))
        elif self.server:
            add("PostgreSQL", 1, "postgresql_unplanned", "before PostgreSQL is planned")
        elif self.f.pulpcore and self.katello:
            add("PostgreSQL", 1, "capsule_postgresql", "pulpcore database only")
        if "candlepin.heap_max" in t and t["candlepin.heap_max"].foretune.value:
            items.append(candlepin_memory(t["candlepin.heap_max"].foretune.value))
        elif self.server and self.katello:
            add("Candlepin", 2.5, "jvm_overhead", "Tomcat's own heap: about 1 GiB")
        cpus8 = min(8, self.inp.cpus)
        if self.f.pulpcore and self.katello:
            gunicorn = sum(t[k].foretune.value for k in ("pulp.api_workers", "pulp.content_workers") if k in t)
            add("pulpcore workers", cpus8, "pulp_worker", plural(cpus8, "worker"))
            add("pulpcore gunicorn", gunicorn, "pulp_gunicorn", plural(gunicorn, "gunicorn process", "gunicorn processes"))
        if self.f.pulp2 and self.katello:
            add("Pulp 2 workers", cpus8, "pulp2_worker", plural(cpus8, "worker"))
            if self.server:
                add("Pulp 2 wsgi (httpd)", 3, "pulp2_wsgi", "3 wsgi:pulp processes (6.2 brief)")
        if self.f.mongodb and self.katello:
            if self.mongodb_engine()[0] == "wiredtiger" and self.server:
                cache = self.ram_gib * module_default("mongodb_cache_fraction")
                add("MongoDB", 1, "mongodb_overhead", "mongod beside its cache")
                fill = memory_range("mongodb_cache_fill")
                plan = cache * (fill[0] + fill[1]) / 2
                items.append(MemoryItem("MongoDB cache", int(plan * gib), "cacheSizeGB 20 % of RAM, filled as the working set grows",
                                        int(cache * fill[0] * gib), int(cache * fill[1] * gib), ("fi-mongo-cache", fill[2])))
            else:
                add("MongoDB", 1, "mongodb_overhead", "mongod; MMAPv1 data lives in the evictable page cache")
        if self.f.redis:
            add("Redis", 1, "redis", "task state only")
        if self.f.qpid and self.katello:
            add("qpidd + qdrouterd", 1, "qpid", "brokers")
        if self.inp.puppet_hosts or (self.era62 and not self.server):
            if self.f.passenger and self.era62:
                n = max(1, t["passenger.max_pool_size"].foretune.value // 2) if "passenger.max_pool_size" in t else 1
                add("Puppet (Passenger)", n, "passenger_puppet_process", f"up to {n} Puppet 3 rack processes x 37 MB (6.2 brief)")
            else:
                add("Puppet server", 1, "puppetserver", "JVM")
        add("Smart Proxy", 1, "foreman_proxy", "WEBrick and plugins")
        return items

    def memory(self) -> tuple[MemoryItem, ...]:
        items = self._memory_items()
        total = sum(item.bytes for item in items)
        low = sum(item.low_bytes for item in items)
        if low > self.inp.ram_bytes:
            self.problems.append(Problem("high", "memory-over-ram",
                                         f"even the lowest resident sizes the sources give add up to {format_gib(low)} but the box has "
                                         f"{format_gib(self.inp.ram_bytes)}: it will swap, and the guides say a Satellite must never swap",
                                         ("g62-memory", "gf-puma-autotuning")))
        elif total > self.inp.ram_bytes:
            self.problems.append(Problem("low", "memory-tight",
                                         f"at their planning sizes the services need about {format_gib(total)} of "
                                         f"{format_gib(self.inp.ram_bytes)} (at least {format_gib(low)}): watch for swapping under load",
                                         ("g62-memory", "gf-puma-autotuning")))
        return tuple(items)

    # -- whole plan ----------------------------------------------------------------------------
    def plan(self) -> Plan:
        hw = self._hardware()
        # Order matters: Passenger before prefork (ServerLimit uses the pool), every other
        # service before Puma (its workers get the RAM that is left), Puma before max_connections,
        # max_connections before the PostgreSQL cache settings (they share the memory budget).
        for step in (self.os, self.passenger, self.apache, self.dynflow, self.pulp, self.candlepin, self.mongodb,
                     self.qpid, self.remote_execution, self.postgresql_memory, self.puma, self.db_pool,
                     self.postgresql_connections, self.postgresql_cache, self.clients):
            step()
        memory = self.memory()
        self._check_consistency()
        return Plan(input=self.inp, release=self.release, profile=self.profile, profile_reason=self.profile_reason,
                    hardware=hw, largest_supported_profile=hardware.largest_supported(self.inp.cpus, self.inp.ram_bytes),
                    tunables=self.tunables, connection_budget=tuple(self.connection_budget()), memory=memory,
                    problems=tuple(self.problems), installer_connection_budget=tuple(self.connection_budget(installer=True)))

    def _check_consistency(self) -> None:
        t = self.tunables
        if "apache.max_request_workers" in t:
            mrw = t["apache.max_request_workers"].foretune.value
            cap = t["apache.server_limit"].foretune.value * t["apache.threads_per_child"].foretune.value
            if mrw > cap:  # pragma: no cover - guarded by construction; kept as a tripwire
                raise AssertionError(f"planner produced MaxRequestWorkers {mrw} > {cap}")

