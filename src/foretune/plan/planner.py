"""The planner: hardware + workload -> profile, every tunable (installer vs foretune), budgets, problems.

Pure: no I/O beyond reading bundled data. Each tunable is computed by one small method of
:class:`Planner`; tunables that do not exist in the release's generation or role are left out.
"""

from __future__ import annotations

import math
from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.knowledge.profiles import PG, installer_hiera
from foretune.knowledge.releases import resolve_release
from foretune.plan.constants import cite, const, default, default_cite, memory_gib, stepped
from foretune.plan.model import (
    Fix,
    HardwareCheck,
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
    for token in java_opts.split():
        if token.startswith("-Xmx"):
            return parse_size(token[4:].upper().rstrip("B") or "0")
    return None


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
        self.cores = inp.physical_cores or inp.cpus
        self.ram_gib = inp.ram_bytes / GIB
        self.tunables: dict[str, Tunable] = {}
        self.problems: list[Problem] = []
        self.profile, self.profile_reason = self._choose_profile()
        self.base = installer_hiera(self.release, self.profile if self.f.size_profiles else "default", inp.role)
        self.base_pg: dict[str, Any] = dict(self.base.get(PG, {}))
        self.rex_hosts = (inp.rex_hosts if inp.rex_hosts is not None else inp.hosts) if inp.rex == "pull-mqtt" else 0

    # -- profile and hardware ---------------------------------------------------------------
    def _choose_profile(self) -> tuple[str, str]:
        if not self.server:
            return "default", "Capsules have no tuning profiles; the installer applies the common layer only"
        wanted = hardware.profile_for_hosts(self.inp.hosts)
        low, high = hardware.host_range(wanted)
        span = f"{low}-{high}" if high else f"{low}+"
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
            return wanted, (f"{self.release.label} has no --tuning profiles; sized as the {wanted} profile "
                            f"of later releases ({span} hosts) and applied through custom-hiera")
        return wanted, f"{self.inp.hosts} managed hosts fall in the {wanted} range ({span} hosts)"

    def _hardware(self) -> HardwareCheck:
        if not self.server:
            need = hardware.Requirement("capsule", *self._capsule_min())
        else:
            need = hardware.recommended(self.profile)
        ok = need.met_by(self.inp.cpus, self.inp.ram_bytes)
        have = f"{self.inp.cpus} CPUs, {format_gib(self.inp.ram_bytes)}"
        want = f"{need.cores} cores and {need.ram_gib:g} GiB RAM (90 % = {need.ram_gib * hardware.ram_allowance():.1f} GiB)"
        message = f"{have} {'meets' if ok else 'is below'} {need.profile}: {want}"
        if not ok:
            self.problems.append(Problem("critical" if self.server else "high", "hardware-below-profile", message,
                                         (need.citation,)))
        enforced = hardware.enforced(self.profile, self.release.foreman_version) if self.server else None
        if enforced and not enforced.met_by(self.inp.cpus, self.inp.ram_bytes):
            self.problems.append(Problem("critical", "installer-will-refuse",
                                         f"foreman-installer {self.release.foreman_version} refuses --tuning {self.profile} here: "
                                         f"it requires {enforced.cores} CPUs and {enforced.ram_gib:g} GiB RAM", (enforced.citation,)))
        return HardwareCheck(need.profile, need.cores, need.ram_bytes, ok, message)

    def _capsule_min(self) -> tuple[int, float, str]:
        from foretune.knowledge import load_data

        entry = load_data("hardware.yaml")["capsule"]
        return int(entry["min"]["cores"]), float(entry["min"]["ram_gib"]), str(entry["citation"])

    # -- tunable helpers ----------------------------------------------------------------------
    def add(self, tid: str, title: str, unit: str, installer: Setting, foretune: Setting, *fixes: Fix) -> None:
        component = tid.split(".", 1)[0]
        self.tunables[tid] = Tunable(tid, component, title, unit, installer, foretune, tuple(fixes))

    def base_setting(self, key: str, fallback: Any, fallback_reason: str, fallback_cite: str) -> Setting:
        """What the installer gives for hiera ``key``: the profile's value, else the module default."""
        value = self.base_pg.get(key.split("/", 1)[1]) if key.startswith(PG + "/") else self.base.get(key)
        if value is not None:
            source = f"--tuning {self.profile}" if self.f.size_profiles else "the installer's tuning file"
            return Setting(value, f"set by {source}", ("fi-tuning-profiles" if self.f.size_profiles else "fi-tuning-yaml",))
        return Setting(fallback, fallback_reason, (fallback_cite,))

    # -- Foreman: Puma or Passenger -----------------------------------------------------------
    def puma(self) -> None:
        if not (self.f.puma and self.server):
            return
        if self.f.puma_formula == "fixed":
            fixed = default("puma", "fixed")
            inst_workers = Setting(fixed["workers"], "Puma default before the auto formula", (fixed["citation"],))
            inst_tmin = Setting(fixed["threads_min"], "Puma default before the auto formula", (fixed["citation"],))
            inst_tmax = Setting(fixed["threads_max"], "Puma default before the auto formula", (fixed["citation"],))
        else:
            auto = default("puma", "auto")
            raw = min(self.inp.cpus * auto["cpu_factor"], self.ram_gib - auto["ram_reserve_gib"])
            cap = default("puma", "auto-capped")["cap"] if self.f.puma_formula == "auto-capped" else None
            workers = max(1, math.floor(min(raw, cap) if cap else raw))
            formula = f"floor(min({'100, ' if cap else ''}{self.inp.cpus} CPUs x 1.5, {self.ram_gib:.1f} GiB - 1.5))"
            cites = (auto["citation"], *((default("puma", "auto-capped")["citation"],) if cap else ()))
            inst_workers = Setting(workers, f"installer formula {formula}", cites)
            inst_tmin = Setting(auto["threads_min"], "installer default (threads_min = threads_max)", (auto["citation"],))
            inst_tmax = Setting(auto["threads_max"], "installer default", (auto["citation"],))
        low, high = hardware.puma_worker_range(self.profile)
        threads_max = const("puma_threads")
        backend_gib = (threads_max + const("db_pool_extra")) * memory_gib("pg_backend_mib") / 1024
        per_worker = const("puma_ram_per_worker_gib") + backend_gib
        ram_cap = math.floor(self._ram_for_puma_gib() / per_worker)
        cpu_cap = math.floor(self.inp.cpus * const("puma_cpu_factor"))
        target = min(high, max(low, inst_workers.value if self.f.puma_formula != "fixed" else low))
        workers = max(2, min(target, ram_cap, cpu_cap))
        why = f"guide range {low}-{high} for {self.profile}"
        if workers < target:
            why += f"; limited to {workers} by {'RAM (~1 GiB per worker after the other services)' if ram_cap < cpu_cap else 'CPUs x 1.5'}"
        if workers < low:
            self.problems.append(Problem("high", "puma-below-guide-range",
                                         f"only {workers} Puma workers fit this box; the {self.profile} profile expects {low}-{high}",
                                         ("gf-puma-recommendations", "gf-puma-autotuning")))
        cites = ("gf-puma-recommendations", "gf-puma-autotuning")
        threads = const("puma_threads")
        self.add("puma.workers", "Puma workers", "count", inst_workers, Setting(workers, why, cites),
                 Fix("hiera", "foreman::foreman_service_puma_workers", workers))
        self.add("puma.threads_min", "Puma threads (min)", "count", inst_tmin,
                 Setting(threads, "equal to threads_max: about 12 % less memory than min 0", ("gf-puma-threads",)),
                 Fix("hiera", "foreman::foreman_service_puma_threads_min", threads))
        self.add("puma.threads_max", "Puma threads (max)", "count", inst_tmax,
                 Setting(threads, "5 threads per worker; more adds database connections for little gain", (cite("puma_threads"),)),
                 Fix("hiera", "foreman::foreman_service_puma_threads_max", threads))

    def _ram_for_puma_gib(self) -> float:
        """RAM left for Puma after every other component of the memory budget."""
        others = sum(item.bytes for item in self._memory_items(exclude_puma=True)) / GIB
        return self.ram_gib - others

    def db_pool(self) -> None:
        if not (self.server and self.f.puma):
            return
        threads_max = self.tunables["puma.threads_max"].foretune.value if "puma.threads_max" in self.tunables else 5
        inst_threads = self.tunables["puma.threads_max"].installer.value if "puma.threads_max" in self.tunables else 5
        base = default("foreman_db_pool", "base")
        if self.f.db_pool_formula == "threads+4":
            inst = Setting(inst_threads + 4, "installer: threads_max + 4 (Katello listeners)", ("pf-db-pool",))
        else:
            inst = Setting(max(base, inst_threads or 0), "installer: max(db_pool 5, threads_max)", ("pf-db-pool",))
        want = threads_max + const("db_pool_extra")
        self.add("foreman.db_pool", "Foreman database pool per process", "count", inst,
                 Setting(want, "threads_max + 4: one per Puma thread plus the Katello event daemon, event monitor, "
                               "Stomp and Puma listeners", ("pf-db-pool", "gf-db-pool")),
                 Fix("hiera", "foreman::db_pool", want))

    def passenger(self) -> None:
        if not (self.f.passenger and self.server):
            return
        key = "apache::mod::passenger::"
        inst_pool = self.base_setting(key + "passenger_max_pool_size", 6, "Passenger's built-in default", "g62-passenger")
        pool = max(inst_pool.value, math.ceil(self.cores * const("passenger_pool_per_core")))
        self.add("passenger.max_pool_size", "PassengerMaxPoolSize", "count", inst_pool,
                 Setting(pool, f"at least 1.5 x {self.cores} physical cores; never below the profile", ("g62-passenger",)),
                 Fix("hiera", key + "passenger_max_pool_size", pool))
        inst_queue = self.base_setting(key + "passenger_max_request_queue_size", 100, "Passenger's built-in default", "g62-passenger")
        burst = const("passenger_queue_small") if self.inp.hosts <= 5000 else const("passenger_queue_large")
        queue = max(inst_queue.value, burst)
        self.add("passenger.max_request_queue_size", "PassengerMaxRequestQueueSize", "count", inst_queue,
                 Setting(queue, "sized for the registration burst: 250 up to 5000 hosts, 1000 above",
                         ("g62-passenger", "fi-tuning-profiles")),
                 Fix("hiera", key + "passenger_max_request_queue_size", queue))
        inst_min = self.base_setting(key + "passenger_min_instances", 1, "puppet-foreman default", "g62-passenger")
        min_inst = max(1, round(pool * const("passenger_min_instances_fraction")))
        self.add("passenger.min_instances", "PassengerMinInstances (Foreman)", "count", inst_min,
                 Setting(min_inst, "a quarter of the pool kept warm for bursts (guide: 6 of 24)", ("g62-passenger",)),
                 Fix("hiera", "foreman::passenger_min_instances", min_inst))
        inst_idle = self.base_setting(key + "passenger_max_preloader_idle_time", 300, "Passenger's built-in default (5 minutes)", "g62-passenger")
        self.add("passenger.max_preloader_idle_time", "PassengerMaxPreloaderIdleTime", "seconds", inst_idle,
                 Setting(0, "keep the preloader alive so new processes spawn fast", ("g62-passenger",)),
                 Fix("hiera", key + "passenger_max_preloader_idle_time", 0))

    # -- Apache --------------------------------------------------------------------------------
    def apache(self) -> None:
        nofile = const("httpd_nofile")
        sysd = default("systemd_default_nofile")
        self.add("httpd.limit_nofile", "httpd LimitNOFILE", "count",
                 Setting(sysd, "not set by the installer: systemd's default applies", (default_cite("systemd_default_nofile"),)),
                 Setting(nofile, "the guide's value for busy servers", (cite("httpd_nofile"),)), Fix("limit", "httpd", nofile))
        if not self.server:
            return
        if self.f.mpm == "event":
            self._apache_event()
        else:
            self._apache_prefork()
        if self.f.passenger:
            self._keepalive()

    def _apache_event(self) -> None:
        mod = default("apache", "event")
        key = "apache::mod::event::"
        threads = self.base_setting(key + "threadsperchild", mod["threadsperchild"], "puppetlabs-apache default", mod["citation"])
        limit = self.base_setting(key + "serverlimit", mod["serverlimit"], "puppetlabs-apache default", mod["citation"])
        inst_mrw_value = self.base.get(key + "maxrequestworkers") or limit.value * threads.value
        inst_mrw = Setting(inst_mrw_value, "profile value" if key + "maxrequestworkers" in self.base
                           else "not set: Apache uses ServerLimit x ThreadsPerChild", ("apache-module-defaults",))
        want_limit, want_threads = limit.value, threads.value
        if self.inp.hosts > 5000 or self.profile != "default":
            want_limit = max(want_limit, 64)
        want_mrw = want_limit * want_threads
        cites = ("gf-httpd-children", "fi-tuning-profiles")
        self.add("apache.mpm", "Apache MPM", "text", Setting("event", "installer default since Foreman 3.3", ("fi-event-mpm",)),
                 Setting("event", "the installer's MPM for this release", ("fi-event-mpm",)))
        self.add("apache.threads_per_child", "ThreadsPerChild (event)", "count", threads,
                 Setting(want_threads, "the profiles' value", cites), Fix("hiera", key + "threadsperchild", want_threads))
        self.add("apache.server_limit", "ServerLimit (event)", "count", limit,
                 Setting(want_limit, "64 processes x 16 threads = 1024 workers above 5000 hosts" if want_limit == 64
                         else "the default profile's limit", cites), Fix("hiera", key + "serverlimit", want_limit))
        self.add("apache.max_request_workers", "MaxRequestWorkers (event)", "count", inst_mrw,
                 Setting(want_mrw, "must equal ServerLimit x ThreadsPerChild (no more can run)", cites),
                 Fix("hiera", key + "maxrequestworkers", want_mrw))
        if inst_mrw_value > limit.value * threads.value:
            self.problems.append(Problem("high", "apache-workers-over-limit",
                                         f"installer MaxRequestWorkers {inst_mrw_value} exceeds ServerLimit {limit.value} x "
                                         f"ThreadsPerChild {threads.value}", cites))

    def _apache_prefork(self) -> None:
        mod = default("apache", "prefork")
        key = "apache::mod::prefork::"
        limit = self.base_setting(key + "serverlimit", mod["serverlimit"], "puppetlabs-apache default", mod["citation"])
        clients = self.base_setting(key + "maxclients", mod["maxclients"], "puppetlabs-apache default", mod["citation"])
        if self.f.passenger:
            pool = self.tunables["passenger.max_pool_size"].foretune.value
            queue = self.tunables["passenger.max_request_queue_size"].foretune.value
            pulp = min(8, self.inp.cpus)
            want = max(limit.value, pool + queue + const("prefork_concurrent_registrations") + pulp)
            why = f"PassengerMaxPoolSize {pool} + queue {queue} + 150 concurrent registrations + {pulp} Pulp processes"
            cites: tuple[str, ...] = ("g69-apache",)
        else:
            want = max(limit.value, 1024 if self.inp.hosts > 5000 else limit.value)
            why = "the medium+ profiles' 1024 above 5000 hosts" if want == 1024 else "the installer's value"
            cites = ("fi-tuning-profiles", "g69-apache")
        self.add("apache.mpm", "Apache MPM", "text", Setting("prefork", "the installer's MPM for this release", ("fi-event-mpm",)),
                 Setting("prefork", "event MPM arrived with Foreman 3.3; keep what the installer manages", ("fi-event-mpm",)))
        self.add("apache.server_limit", "ServerLimit (prefork)", "count", limit, Setting(want, why, cites),
                 Fix("hiera", key + "serverlimit", want))
        self.add("apache.max_clients", "MaxClients / MaxRequestWorkers (prefork)", "count", clients,
                 Setting(want, "equal to ServerLimit", cites), Fix("hiera", key + "maxclients", want))

    def _keepalive(self) -> None:
        ka = default("apache", "keepalive")
        cites = ("g62-apache",)
        self.add("apache.keepalive", "KeepAlive", "bool", Setting(ka["keepalive"], "puppet-foreman default", (ka["citation"],)),
                 Setting(True, "fewer TCP connections and less Apache CPU", cites), Fix("hiera", "apache::keepalive", "On"))
        timeout = const("keepalive_timeout")
        self.add("apache.keepalive_timeout", "KeepAliveTimeout", "seconds",
                 Setting(ka["keepalive_timeout"], "puppet-foreman default", (ka["citation"],)),
                 Setting(timeout, "between 2 and 5 seconds", cites), Fix("hiera", "apache::keepalive_timeout", timeout))
        mkr = const("max_keepalive_requests")
        self.add("apache.max_keepalive_requests", "MaxKeepAliveRequests", "count",
                 Setting(ka["max_keepalive_requests"], "puppet-foreman default", (ka["citation"],)),
                 Setting(mkr, "0 = unlimited requests per connection", cites), Fix("hiera", "apache::max_keepalive_requests", mkr))

    # -- tasks ---------------------------------------------------------------------------------
    def dynflow(self) -> None:
        if not self.server:
            return
        if self.f.sidekiq:
            d = default("dynflow_sidekiq", "instances"), default("dynflow_sidekiq", "concurrency")
            inst = stepped("sidekiq_instances_by_hosts", self.inp.hosts)
            conc = const("sidekiq_concurrency")
            self.add("dynflow.sidekiq_instances", "Dynflow Sidekiq worker instances", "count",
                     Setting(d[0], "puppet-foreman default", ("pf-dynflow",)),
                     Setting(inst, f"more instances rather than more threads; {inst} for {self.inp.hosts} hosts", (cite("sidekiq_instances_by_hosts"),)),
                     Fix("hiera", "foreman::dynflow_worker_instances", inst))
            self.add("dynflow.sidekiq_concurrency", "Dynflow Sidekiq concurrency per instance", "count",
                     Setting(d[1], "puppet-foreman default", ("pf-dynflow",)),
                     Setting(conc, "limited benefit above 5 threads (Ruby)", ("gf-dynflow",)),
                     Fix("hiera", "foreman::dynflow_worker_concurrency", conc))
        else:
            want = stepped("dynflowd_executors_by_ram_gib", self.ram_gib, inclusive=False)
            self.add("dynflow.executors", "dynflowd EXECUTORS_COUNT", "count",
                     Setting(default("dynflowd", "executors"), "dynflowd default", (default_cite("dynflowd"),)),
                     Setting(want, "2 executors for 32-64 GB RAM, 3 above", (cite("dynflowd_executors_by_ram_gib"),)),
                     Fix("file", self.f.tasks_sysconfig, f"EXECUTORS_COUNT={want}"))

    # -- content -------------------------------------------------------------------------------
    def pulp(self) -> None:
        cpus = self.inp.cpus
        if self.f.pulpcore:
            cap = default("pulpcore", "workers_cap")
            workers = min(cap, cpus)
            api = min(default("pulpcore", "api_cap"), cpus) + 1
            content = 2 * min(cap, cpus) + 1
            cites = ("pulpcore-worker-defaults",)
            self.add("pulp.workers", "pulpcore workers", "count", Setting(workers, "installer default min(8, CPUs)", cites),
                     Setting(workers, "min(8, CPUs): more degrade through I/O blocking and load PostgreSQL", cites),
                     Fix("hiera", "foreman_proxy_content::pulpcore_worker_count", workers))
            self.add("pulp.api_workers", "pulpcore API gunicorn workers", "count", Setting(api, "installer default min(4, CPUs) + 1", cites),
                     Setting(api, "installer default; more API workers measured no faster", cites),
                     Fix("hiera", "foreman_proxy_content::pulpcore_api_service_worker_count", api))
            self.add("pulp.content_workers", "pulpcore content gunicorn workers", "count",
                     Setting(content, "installer default 2 x min(8, CPUs) + 1", cites), Setting(content, "installer default", cites),
                     Fix("hiera", "foreman_proxy_content::pulpcore_content_service_worker_count", content))
        if self.f.pulp2:
            want = min(default("pulp2", "workers_cap"), cpus)
            cites2 = ("pulp2-worker-defaults", "g62-pulp")
            self.add("pulp2.concurrency", "Pulp 2 workers (PULP_CONCURRENCY)", "count",
                     Setting(want, "installer default min(CPUs, 8)", ("pulp2-worker-defaults",)),
                     Setting(want, "one per CPU up to 8", cites2), Fix("hiera", "katello::num_pulp_workers", want))

    def candlepin(self) -> None:
        if not self.server:
            return
        opts = self.base.get("candlepin::java_opts") or default("candlepin", "java_opts")
        inst = Setting(_heap_bytes(opts), f"{'profile' if 'candlepin::java_opts' in self.base else 'puppet-candlepin default'} {opts}",
                       ("fi-tuning-profiles" if "candlepin::java_opts" in self.base else "candlepin-defaults",))
        want = inst.value
        self.add("candlepin.heap_max", "Candlepin JVM heap (-Xmx)", "bytes", inst,
                 Setting(want, f"the {self.profile} profile's heap", ("fi-tuning-profiles", "candlepin-defaults")),
                 Fix("hiera", "candlepin::java_opts", f"-Xms1024m -Xmx{want // MIB}m"))

    def mongodb(self) -> None:
        if not (self.f.mongodb and self.server):
            return
        fraction = default("mongodb_cache_fraction")
        want = round(self.ram_gib * fraction, 2)
        auto = self.base.get("mongodb::server::config_data") is not None
        inst = Setting(want if auto else None, "installer computes 20 % of RAM" if auto
                       else "not set: mongod takes about 50 % of RAM", ("fi-mongo-cache",))
        self.add("mongodb.cache_size_gb", "MongoDB WiredTiger cacheSizeGB", "count", inst,
                 Setting(want, "20 % of RAM; unbounded mongod competes with PostgreSQL", ("g69-mongodb", "fi-mongo-cache")),
                 Fix("hiera", "mongodb::server::config_data", {"storage.wiredTiger.engineConfig.cacheSizeGB": want}))

    def qpid(self) -> None:
        if not self.f.qpid:
            return
        n = self.inp.katello_agent_hosts
        qpidd = max(self.base.get("qpid::open_file_limit") or 65536, n * const("qpidd_fds_per_host") + const("qpidd_fds_base"))
        router = max(self.base.get("qpid::router::open_file_limit") or 150100,
                     n * const("qdrouterd_fds_per_host") + const("qdrouterd_fds_base"))
        cites = ("g69-qpid",)
        self.add("qpidd.limit_nofile", "qpidd LimitNOFILE", "count",
                 self.base_setting("qpid::open_file_limit", None, "not set: systemd default", "g69-qpid"),
                 Setting(qpidd, f"4 x {n} katello-agent hosts + 500, at least 65536", cites), Fix("hiera", "qpid::open_file_limit", qpidd))
        self.add("qdrouterd.limit_nofile", "qdrouterd LimitNOFILE", "count",
                 self.base_setting("qpid::router::open_file_limit", None, "not set: systemd default", "g69-qpid"),
                 Setting(router, f"3 x {n} katello-agent hosts + 100, at least 150100", cites),
                 Fix("hiera", "qpid::router::open_file_limit", router))
        aio = max(const("aio_default"), n * const("aio_per_host") + 1)
        self.add("sysctl.fs_aio_max_nr", "fs.aio-max-nr", "count",
                 Setting(const("aio_default"), "kernel default", (cite("aio_default"),)),
                 Setting(aio, f"more than 33 x {n} katello-agent hosts", cites), Fix("sysctl", "fs.aio-max-nr", aio))
        storage = n * const("qpidd_storage_per_host_mib") * MIB
        self.add("qpidd.storage_bytes", "free space in /var/lib/qpidd", "bytes", Setting(None, "not managed by the installer"),
                 Setting(storage, f"2 MiB per katello-agent host x {n}", cites),
                 Fix("advice", "/var/lib/qpidd", f"keep at least {format_gib(storage)} free"))
        interval = const("qpid_mgmt_pub_interval")
        self.add("qpid.mgmt_pub_interval", "qpidd mgmt-pub-interval", "seconds",
                 Setting(default("qpid_mgmt_pub_interval"), "qpidd default", (default_cite("qpid_mgmt_pub_interval"),)),
                 Setting(interval, "recycles management objects faster; avoids 'not-attached' channel errors", ("g62-qpid",)),
                 Fix("hiera", "qpid::mgmt_pub_interval", interval))
        if self.server and n:
            accept = const("accept_timeout_at_scale")
            self.add("katello.content_action_accept_timeout", "content_action_accept_timeout", "seconds",
                     Setting(default("content_action_accept_timeout"), "Katello setting default", ("g62-katello-agent",)),
                     Setting(accept, "more than 20 s so katello-agent clients have time to answer", ("g62-katello-agent", cite("accept_timeout_at_scale"))),
                     Fix("command", f"hammer settings set --name content_action_accept_timeout --value {accept}"))

    def remote_execution(self) -> None:
        if self.f.pull_rex:
            default_nofile = default("mosquitto_nofile")
            if self.rex_hosts:
                step = 1000
                want = max(default_nofile, math.ceil(self.rex_hosts * (1 + const("mosquitto_headroom")) / step) * step)
                self.add("mosquitto.limit_nofile", "mosquitto LimitNOFILE", "count",
                         Setting(default_nofile, "systemd default: about 1024 pull-REX hosts", ("gf-pull-rex",)),
                         Setting(want, f"one descriptor per pull-REX host ({self.rex_hosts}) plus 10 %", ("gf-pull-rex", cite("mosquitto_headroom"))),
                         Fix("limit", "mosquitto", want))
                mq = default("mqtt", "rate_limit"), default("mqtt", "ttl"), default("mqtt", "resend_interval")
                rate = const("mqtt_rate_limit") if self.rex_hosts > const("mqtt_rate_limit_from_hosts") else None
                prefix = "foreman_proxy::plugin::remote_execution::script::"
                self.add("mqtt.rate_limit", "MQTT rate limit (concurrent jobs)", "count",
                         Setting(mq[0], "plugin default: unlimited", ("rex-mqtt-defaults",)),
                         Setting(rate, f"limit concurrency above {const('mqtt_rate_limit_from_hosts')} pull hosts" if rate
                                 else "unlimited is fine at this scale", ("gf-pull-rex", cite("mqtt_rate_limit"))),
                         *((Fix("hiera", prefix + "mqtt_rate_limit", rate),) if rate else ()))
                self.add("mqtt.ttl", "MQTT ttl (seconds to pick up a job)", "seconds",
                         Setting(mq[1], "plugin default", ("rex-mqtt-defaults",)),
                         Setting(mq[1], "plugin default; raise only when hosts miss notifications", ("gf-pull-rex",)))
                self.add("mqtt.resend_interval", "MQTT resend interval", "seconds",
                         Setting(mq[2], "plugin default", ("rex-mqtt-defaults",)),
                         Setting(mq[2], "plugin default", ("gf-pull-rex",)))
        nofile = default("smart_proxy_dynflow_nofile")
        self.add("smart_proxy_dynflow.limit_nofile", "Smart Proxy dynflow LimitNOFILE", "count",
                 Setting(nofile, "puppet-foreman_proxy default", ("proxy-dynflow-nofile",)),
                 Setting(nofile, "SSH remote execution holds one descriptor per connection", ("proxy-dynflow-nofile",)),
                 Fix("hiera", "foreman_proxy::plugin::dynflow::open_file_limit", nofile))

    # -- PostgreSQL ---------------------------------------------------------------------------
    def postgresql_memory(self) -> None:
        if not self.server:
            return
        key = PG + "/"
        cites = ("gf-postgresql",)
        sb_inst = self.base_setting(key + "shared_buffers", "128MB", "PostgreSQL default", "gf-postgresql")
        sb_inst_bytes = _pg_bytes(sb_inst.value) or 0
        floor_b = const("pg_shared_buffers_min_gib") * GIB
        cap_b = int(self.inp.ram_bytes * const("pg_shared_buffers_max_fraction")) // GIB * GIB
        sb = min(max(sb_inst_bytes, floor_b), max(cap_b, GIB))
        why = "at least 2 GiB, at most 25 % of RAM; the profile's value when it is in that range"
        self.add("postgresql.shared_buffers", "shared_buffers", "bytes", sb_inst, Setting(format_size(sb), why, cites),
                 Fix("hiera", key + "shared_buffers", format_size(sb)))
        ecs_inst = self.base_setting(key + "effective_cache_size", "4GB", "PostgreSQL default", "gf-postgresql")
        ecs = int(self.inp.ram_bytes * const("pg_effective_cache_fraction")) // GIB * GIB
        self.add("postgresql.effective_cache_size", "effective_cache_size", "bytes", ecs_inst,
                 Setting(format_size(ecs), "half the real RAM (the medium profile's ratio)", (cite("pg_effective_cache_fraction"),)),
                 Fix("hiera", key + "effective_cache_size", format_size(ecs)))
        wm_inst = self.base_setting(key + "work_mem", "4MB", "PostgreSQL default", "gf-postgresql")
        big = self.ram_gib >= const("pg_work_mem_min_ram_gib") * hardware.ram_allowance()
        wm = const("pg_work_mem") if big else wm_inst.value
        self.add("postgresql.work_mem", "work_mem", "bytes", wm_inst,
                 Setting(wm, "8 MB is more than enough" if big else "keep 4 MB below 32 GiB RAM", (cite("pg_work_mem"),)),
                 Fix("hiera", key + "work_mem", wm))
        av_inst = self.base_setting(key + "autovacuum_vacuum_cost_limit", 200, "PostgreSQL default (vacuum_cost_limit)", "gf-postgresql")
        av = const("pg_autovacuum_cost_limit")
        self.add("postgresql.autovacuum_vacuum_cost_limit", "autovacuum_vacuum_cost_limit", "count", av_inst,
                 Setting(av, "lets autovacuum keep up with Foreman's churn", cites), Fix("hiera", key + "autovacuum_vacuum_cost_limit", av))
        if "checkpoint_segments" in self.base_pg or not self.f.puma:
            self.add("postgresql.checkpoint_segments", "checkpoint_segments (removed)", "count",
                     self.base_setting(key + "checkpoint_segments", None, "not set", "fi-checkpoint-segments-removed"),
                     Setting(None, "removed in PostgreSQL 9.5; PostgreSQL 12 refuses to start with it", ("fi-checkpoint-segments-removed",)))

    def postgresql_connections(self) -> None:
        if not self.server:
            return
        key = PG + "/"
        cites = ("gf-postgresql",)
        need = sum(n for _, n in self.connection_budget())
        with_headroom = math.ceil(need * (1 + const("pg_connection_headroom")) / 100) * 100
        mc_inst = self.base_setting(key + "max_connections", 100, "PostgreSQL default", "gf-postgresql")
        mc = max(int(mc_inst.value), with_headroom)
        self.add("postgresql.max_connections", "max_connections", "count", mc_inst,
                 Setting(mc, f"connection budget {need} + 20 % headroom, rounded up to 100; never below the profile",
                         (*cites, "pf-db-pool", cite("pg_connection_headroom"))),
                 Fix("hiera", key + "max_connections", mc))
        if need > int(mc_inst.value):
            self.problems.append(Problem("high", "connections-over-max",
                                         f"the connection budget ({need}) exceeds the installer's max_connections {mc_inst.value}: "
                                         "expect 'remaining connection slots are reserved' errors", ("gf-postgresql", "pf-db-pool")))

    def connection_budget(self) -> list[tuple[str, int]]:
        t = self.tunables
        budget: list[tuple[str, int]] = []
        if "puma.workers" in t:
            w, th = t["puma.workers"].foretune.value, t["puma.threads_max"].foretune.value
            budget.append((f"Puma {plural(w, 'worker')} x ({th} threads + 4)", w * (th + const("db_pool_extra"))))
        if "passenger.max_pool_size" in t:
            pool = t["passenger.max_pool_size"].foretune.value
            budget.append((f"Passenger {plural(pool, 'process', 'processes')} x 5 pool", pool * 5))
        if "dynflow.sidekiq_instances" in t:
            inst, conc = t["dynflow.sidekiq_instances"].foretune.value, t["dynflow.sidekiq_concurrency"].foretune.value
            extra = const("sidekiq_connections_extra")
            budget.append((f"Sidekiq {plural(inst, 'worker')} x ({conc} + {extra}) + orchestrator", inst * (conc + extra) + 1 + extra))
        if "dynflow.executors" in t:
            budget.append((f"dynflowd {t['dynflow.executors'].foretune.value} executors x 5", t["dynflow.executors"].foretune.value * 5))
        if self.server:
            budget.append(("Candlepin", const("candlepin_connections")))
        if "pulp.workers" in t:
            pw, pa, pc = (t[k].foretune.value for k in ("pulp.workers", "pulp.api_workers", "pulp.content_workers"))
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
                 Setting("never", "THP hurts PostgreSQL and Redis", ("gf-hardware", "gf-redis")),
                 Fix("command", "grubby --update-kernel=ALL --args=transparent_hugepage=never"),
                 Fix("command", "echo never > /sys/kernel/mm/transparent_hugepage/enabled"))

    def clients(self) -> None:
        if self.server:
            at_scale = self.inp.hosts > const("hammer_timeout_from_hosts")
            dflt = default("hammer_request_timeout")
            want = const("hammer_timeout_at_scale") if at_scale else dflt
            self.add("hammer.request_timeout", "hammer request_timeout", "seconds",
                     Setting(dflt, "hammer default", (default_cite("hammer_request_timeout"),)),
                     Setting(want, "no timeout for API calls on large collections" if at_scale else "default is fine at this scale",
                             ("g62-hammer", cite("hammer_timeout_from_hosts"))),
                     Fix("file", "/etc/hammer/cli.modules.d/foreman.yml", f":request_timeout: {want}"))
        if self.inp.puppet_hosts:
            interval = self.inp.puppet_runinterval or default("puppet", "runinterval")
            self.add("puppet.runinterval", "Puppet runinterval", "seconds",
                     Setting(default("puppet", "runinterval"), "Puppet default", ("g62-puppet",)),
                     Setting(interval, "spread agent runs evenly over the interval", ("g62-puppet",)),
                     Fix("hiera", "puppet::runinterval", interval))
            self.add("puppet.splay", "Puppet splay", "bool", Setting(default("puppet", "splay"), "Puppet default", ("g62-puppet",)),
                     Setting(True, "randomise agent start times", ("g62-puppet",)), Fix("hiera", "puppet::splay", True))
            per_capsule = math.floor(const("puppet_hosts_per_4_cpus") * self.inp.cpus / 4)
            self.add("puppet.hosts_per_capsule", "Puppet agents per Capsule", "count",
                     Setting(None, "not limited by the installer"),
                     Setting(per_capsule, f"about {const('puppet_hosts_per_4_cpus')} agents per 4 CPUs (10 classes each)", ("capsule-puppet",)),
                     Fix("advice", "Puppet", f"serve at most {per_capsule} agents from a box of this size"))
            if not self.server and self.inp.puppet_hosts > per_capsule:
                self.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                             f"{self.inp.puppet_hosts} Puppet agents exceed about {per_capsule} tested for {self.inp.cpus} CPUs",
                                             ("capsule-puppet",)))

    # -- memory ------------------------------------------------------------------------------
    def _memory_items(self, *, exclude_puma: bool = False) -> list[MemoryItem]:
        t, gib = self.tunables, GIB
        items = [MemoryItem("OS and page cache floor", int(memory_gib("os_base") * gib), "foretune estimate")]
        def add(component: str, amount_gib: float, reason: str) -> None:
            items.append(MemoryItem(component, int(amount_gib * gib), reason))
        add("Apache httpd", memory_gib("httpd"), "foretune estimate")
        if "puma.workers" in t and not exclude_puma:
            w = t["puma.workers"].foretune.value
            add("Foreman (Puma)", w * const("puma_ram_per_worker_gib"), f"{plural(w, 'worker')} x ~1 GiB")
        if "passenger.max_pool_size" in t:
            pool = t["passenger.max_pool_size"].foretune.value
            add("Foreman (Passenger)", pool * memory_gib("passenger_process"), f"{plural(pool, 'process', 'processes')} x 0.5 GiB")
        if "dynflow.sidekiq_instances" in t:
            n = t["dynflow.sidekiq_instances"].foretune.value
            add("Dynflow Sidekiq", n * memory_gib("sidekiq_instance") + memory_gib("dynflow_orchestrator"), f"{plural(n, 'worker')} + orchestrator")
        if "dynflow.executors" in t:
            n = t["dynflow.executors"].foretune.value
            add("dynflowd", n * memory_gib("dynflowd_executor"), f"{n} executors")
        if "postgresql.shared_buffers" in t:
            sb = _pg_bytes(t["postgresql.shared_buffers"].foretune.value) or 0
            conns = sum(n for _, n in self.connection_budget())
            items.append(MemoryItem("PostgreSQL", sb + conns * int(memory_gib("pg_backend_mib")) * MIB,
                                    f"shared_buffers + {conns} backends x 5 MiB"))
        elif self.server:
            add("PostgreSQL", memory_gib("postgresql_unplanned"), "foretune estimate before PostgreSQL is planned")
        elif self.f.pulpcore:
            add("PostgreSQL", memory_gib("capsule_postgresql"), "pulpcore database only (foretune estimate)")
        if "candlepin.heap_max" in t:
            heap = t["candlepin.heap_max"].foretune.value or 4 * GIB
            items.append(MemoryItem("Candlepin", heap + int(memory_gib("candlepin_jvm_overhead") * gib), "heap + JVM overhead"))
        cpus8 = min(8, self.inp.cpus)
        if self.f.pulpcore:
            gunicorn = (min(4, self.inp.cpus) + 1) + (2 * cpus8 + 1)
            add("pulpcore", cpus8 * memory_gib("pulp_worker") + gunicorn * memory_gib("pulp_gunicorn"),
                f"{plural(cpus8, 'worker')} + {plural(gunicorn, 'gunicorn process', 'gunicorn processes')}")
        if self.f.pulp2:
            add("Pulp 2", cpus8 * memory_gib("pulp2_worker"), f"{plural(cpus8, 'worker')}")
        if self.f.mongodb and self.server:
            add("MongoDB", self.ram_gib * default("mongodb_cache_fraction") + memory_gib("mongodb_overhead"), "cache 20 % of RAM + 1 GiB")
        if self.f.redis:
            add("Redis", memory_gib("redis"), "foretune estimate")
        if self.f.qpid:
            add("qpidd + qdrouterd", memory_gib("qpid"), "foretune estimate")
        if self.inp.puppet_hosts:
            add("Puppet server", memory_gib("puppetserver"), "2 GiB heap + JVM overhead")
        add("Smart Proxy", memory_gib("foreman_proxy"), "foretune estimate")
        return items

    def memory(self) -> tuple[MemoryItem, ...]:
        items = self._memory_items()
        total = sum(item.bytes for item in items)
        if total > self.inp.ram_bytes:
            self.problems.append(Problem("high", "memory-over-ram",
                                         f"the services need about {format_gib(total)} but the box has {format_gib(self.inp.ram_bytes)}: "
                                         "it will swap, and the guides say a Satellite must never swap", ("g62-memory", "gf-puma-autotuning")))
        return tuple(items)

    # -- whole plan ----------------------------------------------------------------------------
    def plan(self) -> Plan:
        hw = self._hardware()
        # Order matters: Passenger before prefork (ServerLimit uses the pool), every other
        # service before Puma (its workers get the RAM that is left), Puma before max_connections.
        for step in (self.os, self.passenger, self.apache, self.dynflow, self.pulp, self.candlepin, self.mongodb,
                     self.qpid, self.remote_execution, self.postgresql_memory, self.puma, self.db_pool,
                     self.postgresql_connections, self.clients):
            step()
        memory = self.memory()
        self._check_consistency()
        return Plan(input=self.inp, release=self.release, profile=self.profile, profile_reason=self.profile_reason,
                    hardware=hw, largest_supported_profile=hardware.largest_supported(self.inp.cpus, self.inp.ram_bytes),
                    tunables=self.tunables, connection_budget=tuple(self.connection_budget()), memory=memory,
                    problems=tuple(self.problems))

    def _check_consistency(self) -> None:
        t = self.tunables
        if "apache.max_request_workers" in t:
            mrw = t["apache.max_request_workers"].foretune.value
            cap = t["apache.server_limit"].foretune.value * t["apache.threads_per_child"].foretune.value
            if mrw > cap:  # pragma: no cover - guarded by construction; kept as a tripwire
                raise AssertionError(f"planner produced MaxRequestWorkers {mrw} > {cap}")
