"""Foreman's application server: Puma workers and threads with the database pool, or Passenger on older releases."""

from __future__ import annotations

import math

from foretune.knowledge import hardware, module_default, module_default_citation
from foretune.plan.constants import cite, const, memory_gib, memory_range
from foretune.plan.model import Fix, Input, MemoryItem, Problem, Setting
from foretune.plan.sizing import (
    GIB,
    C,
    Component,
    Sizing,
    box,
    default_profile_hosts,
    given,
    memory_item,
    memory_size,
    num,
    percent,
)
from foretune.term import plural

PUMA_MEMORY = "Foreman (Puma)"  # the memory item Puma's workers are sized against (rules read it by this name)


# -- Puma --------------------------------------------------------------------------------------
def installer_puma(s: Sizing) -> tuple[Setting, Setting, Setting]:
    """The installer's workers, threads_min and threads_max: a fixed default or its formula of CPUs and RAM."""
    if s.f.puma_formula == "fixed":
        fixed = module_default("puma", "fixed")
        why = "Puma default before the auto formula"
        return (Setting(fixed["workers"], why, (fixed["citation"],)), Setting(fixed["threads_min"], why, (fixed["citation"],)),
                Setting(fixed["threads_max"], why, (fixed["citation"],)))
    auto = module_default("puma", "auto")
    raw = min(s.inp.cpus * auto["cpu_factor"], s.ram_gib - auto["ram_reserve_gib"])
    cap = module_default("puma", "auto-capped")["cap"] if s.f.puma_formula == "auto-capped" else None
    workers = max(1, math.floor(min(raw, cap) if cap else raw))
    formula = (f"floor(min({f'{num(cap)}, ' if cap else ''}{s.inp.cpus} CPUs x {num(auto['cpu_factor'])}, "
               f"{s.ram_gib:.1f} GiB - {num(auto['ram_reserve_gib'])}))")
    cites = (auto["citation"], *((module_default("puma", "auto-capped")["citation"],) if cap else ()))
    return (Setting(workers, f"installer formula {formula}", cites),
            Setting(auto["threads_min"], "installer default (threads_min = threads_max)", (auto["citation"],)),
            Setting(auto["threads_max"], "installer default", (auto["citation"],)))


def ram_for_puma_gib(s: Sizing) -> float:
    """RAM left for Puma after every other component of the memory budget."""
    others = sum(item.bytes for item in s.memory_items() if item.component != PUMA_MEMORY) / GIB
    return s.ram_gib - others


def per_worker_gib() -> float:
    """One Puma worker with its database connections (threads + the pool's extra) at their planning sizes."""
    backend_gib = (const("puma_threads") + const("db_pool_extra")) * memory_gib("pg_backend_mib") / 1024
    return float(memory_gib("puma_worker") + backend_gib)


def workers_cpus_carry(s: Sizing) -> int:
    """The most Puma workers the CPUs carry (CPUs x the CPU factor)."""
    factor: float = const("puma_cpu_factor")
    return math.floor(s.inp.cpus * factor)


def workers_that_fit(s: Sizing) -> int:
    """How many Puma workers the RAM left after every other service holds."""
    return math.floor(ram_for_puma_gib(s) / per_worker_gib())


def plan_puma(s: Sizing) -> None:
    if not (s.f.puma and s.server):
        return
    inst_workers, inst_tmin, inst_tmax = installer_puma(s)
    low, high = hardware.puma_worker_range(s.profile)
    threads = const("puma_threads")
    per_worker = per_worker_gib()
    room = ram_for_puma_gib(s)
    ram_cap = math.floor(room / per_worker)
    cpu_factor = const("puma_cpu_factor")
    cpu_cap = workers_cpus_carry(s)
    auto = s.f.puma_formula != "fixed"
    target = min(high, max(low, inst_workers.value if auto else low))
    workers = max(2, min(target, ram_cap, cpu_cap))
    why = f"guide range {low}-{high} for {s.profile}"
    if not auto:  # Foreman 2.3-2.5 (Satellite 6.9): its guide gives no range, only "adding more workers adds more performance"
        why = (f"the later Tuning guide's range {low}-{high} for {s.profile} (this release's guide gives none: more workers "
               "where CPUs allow)")
    if workers < target:
        by = (f"RAM (~{memory_size('puma_worker', high=True)} per worker after the other services)" if ram_cap < cpu_cap
              else f"CPUs x {num(cpu_factor)}")
        why += f"; limited to {workers} by {by}"
    if workers < low:
        s.problems.append(Problem("low", "puma-below-guide-range",
                                  f"only {workers} Puma workers fit this box beside the other services; the "
                                  f"{'' if auto else 'later '}guide's registration tests favour {low}-{high} for {s.profile}",
                                  ("gf-puma-recommendations", "gf-puma-autotuning")))
    formula = (f"max(2, min(min({high}, max({low}, {inst_workers.value if auto else low})), "
               f"floor({room:.1f} GiB free / ({num(memory_gib('puma_worker'))} GiB + ({threads} threads + "
               f"{const('db_pool_extra')}) x {num(memory_gib('pg_backend_mib'))} MiB backends = {per_worker:.2f} GiB per worker)) = {ram_cap}, "
               f"floor({s.inp.cpus} x {cpu_factor}) = {cpu_cap})) = {workers}")
    inputs = (Input("guide workers low", low, "gf-puma-recommendations"), Input("guide workers high", high, "gf-puma-recommendations"),
              *((given(inst_workers, "installer formula"),) if auto else ()),
              Input("memory/puma_worker (GiB)", memory_gib("puma_worker"), memory_range("puma_worker")[2]),
              Input("memory/pg_backend_mib", memory_gib("pg_backend_mib"), memory_range("pg_backend_mib")[2]),
              C("puma_threads"), C("db_pool_extra"),
              Input("RAM left after the other services GiB", round(room, 1), "foretune-estimate"),
              C("puma_cpu_factor"), box("CPUs", s.inp.cpus))
    cites = ("gf-puma-recommendations", "gf-puma-autotuning", *(() if auto else ("g69-puma",)))
    s.add("puma.workers", "Puma workers", "count", inst_workers, Setting(workers, why, cites, formula, inputs),
          Fix("hiera", "foreman::foreman_service_puma_workers", workers))
    alt = const("puma_threads_alternative")
    s.add("puma.threads_min", "Puma threads (min)", "count", inst_tmin,
          Setting(threads, f"equal to threads_max: about {percent(const('puma_threads_min_saving'))} less memory than min 0",
                  ("gf-puma-threads", cite("puma_threads")), "threads_min = threads_max", (C("puma_threads"), C("puma_threads_min_saving"))),
          Fix("hiera", "foreman::foreman_service_puma_threads_min", threads))
    s.add("puma.threads_max", "Puma threads (max)", "count", inst_tmax,
          Setting(threads, f"the guides recommend {threads} threads with every profile (up to 23 % faster than 4); "
                           f"{alt} is the cited alternative for a mixed, not registration-heavy load",
                  (cite("puma_threads"),), "", (C("puma_threads"), C("puma_threads_alternative"))),
          Fix("hiera", "foreman::foreman_service_puma_threads_max", threads))
    kept_max = s.value("puma.threads_max")
    if kept_max < s.value("puma.threads_min"):  # the site's lower threads_max stays: Puma refuses a minimum above the maximum
        s.add("puma.threads_min", "Puma threads (min)", "count", inst_tmin,
              Setting(kept_max, f"equal to the site's threads_max {kept_max}, which stays (Puma refuses min > max)",
                      ("gf-puma-threads",), "threads_min = threads_max", (Input("threads_max", kept_max, "fi-hiera-precedence"),)),
              Fix("hiera", "foreman::foreman_service_puma_threads_min", kept_max))


# -- the database pool of each Foreman process -------------------------------------------------
def installer_db_pool(s: Sizing, threads_max: int) -> Setting:
    if s.f.db_pool_formula == "threads+4":
        return Setting(threads_max + 4, f"installer: threads_max {threads_max} + 4 (with or without Katello)", ("pf-db-pool",))
    base = module_default("foreman_db_pool", "base")
    return Setting(max(base, threads_max), f"installer: max(db_pool {base}, threads_max {threads_max})", ("pf-db-pool-max",))


def plan_db_pool(s: Sizing) -> None:
    if not (s.server and s.f.puma):
        return
    threads_max = s.value("puma.threads_max")
    inst = installer_db_pool(s, s.value("puma.threads_max", installer=True) or 0)
    key = "db_pool_extra" if s.katello else "db_pool_extra_without_katello"
    extra = const(key)
    want = threads_max + extra
    listeners = "the Katello event daemon, event monitor, Stomp and Puma listeners"
    why = (f"threads_max + {extra}: one per Puma thread plus {listeners}" if s.katello and s.f.db_pool_formula == "threads+4"
           else f"threads_max + {extra}: the guide's pool for this release, max(db_pool, threads_max) = {threads_max}, leaves "
                f"no connection for {listeners}; foreman-installer 3.11 adds {extra}, here through foreman::db_pool"
           if s.katello else
           f"threads_max + {extra}: one per Puma thread plus the Puma listener (no Katello listeners on plain Foreman)")
    if s.f.db_pool_formula != "threads+4" and not s.katello:  # puppet-foreman 25 (Foreman 3.11) adopted it
        why += "; later puppet-foreman (25, Foreman 3.11) sizes it so, this release's installer gives max(db_pool, threads_max)"
    # puppet-foreman 25+ (foreman-installer 3.11) derives the pool from threads_max when foreman::db_pool is unset: the
    # threads change brings it, and a pinned pool would stay behind a later threads change
    derived = installer_db_pool(s, threads_max).value == want and "foreman::db_pool" not in s.inp.configured
    if derived:
        why += f"; the installer derives it from threads_max {threads_max} itself, so no pool value is pinned"
    s.add("foreman.db_pool", "Foreman database pool per process", "count", inst,
          Setting(want, why, ("pf-db-pool", "gf-db-pool"), f"threads_max {threads_max} + {extra} = {want}",
                  (Input("threads_max", threads_max, cite("puma_threads")), C(key))),
          *(() if derived else (Fix("hiera", "foreman::db_pool", want),)))


# -- Passenger ---------------------------------------------------------------------------------
def plan_passenger(s: Sizing) -> None:
    if not s.f.passenger:
        return
    if not s.server and not (s.era62 or s.f.puppet_passenger):
        return  # a Capsule's only Passenger application was the Puppet server, on puppetserver here (pp-passenger-removed)
    key = "apache::mod::passenger::"
    cites62 = ("g62-passenger",) if s.server else ("g62-passenger", "g62-capsule")
    if s.server:
        inst_pool = s.base_setting(key + "passenger_max_pool_size", 6, "Passenger's built-in default", "g62-passenger")
    else:
        inst_pool = Setting(6, "Passenger's built-in default", ("g62-passenger",))
    per_core_factor = const("passenger_pool_per_core")
    per_core = math.ceil(s.cores * per_core_factor)
    floor_setting = inst_pool
    profile_pool = s.profile_setting(key + "passenger_max_pool_size") if s.server and inst_pool.origin else None
    if profile_pool is not None and isinstance(profile_pool.value, int) and isinstance(inst_pool.value, int) \
            and profile_pool.value > inst_pool.value:
        # a site's lock below the profile's pool (a custom-hiera value from an older sizing): the profile's pool is the
        # floor, so the lock goes rather than holding the box below the profile it moves to
        floor_setting = profile_pool
    floor = floor_setting.value if s.server else const("capsule_passenger_pool")
    pool = max(floor, per_core)
    never_below = f"the brief's capsule example {floor}" if not s.server else "the installer's" if s.era62 else "the profile"
    s.add("passenger.max_pool_size", "PassengerMaxPoolSize", "count", inst_pool,
          Setting(pool, f"{num(per_core_factor)} x {s.cores} physical cores; never below {never_below}",
                  cites62, f"max({floor}, ceil({s.cores} x {num(per_core_factor)})) = {pool}",
                  (box("physical cores", s.cores), C("passenger_pool_per_core"),
                   given(floor_setting) if s.server else C("capsule_passenger_pool"))),
          Fix("hiera", key + "passenger_max_pool_size", pool))
    _queue(s, key, cites62)
    for tid, title, ckey, hkey, fallback in (
            ("passenger.max_requests", "PassengerMaxRequests", "passenger_max_requests", "passenger_max_requests", 0),
            ("passenger.stat_throttle_rate", "PassengerStatThrottleRate", "passenger_stat_throttle_rate",
             "passenger_stat_throttle_rate", 10)):
        inst = s.base_setting(key + hkey, fallback, "Passenger's built-in default", "g62-passenger")
        s.add(tid, title, "count", inst,
              Setting(const(ckey), "the brief's tuned Passenger configuration", cites62, "", (C(ckey),)),
              Fix("hiera", key + hkey, const(ckey)))
    inst_idle = s.base_setting(key + "passenger_max_preloader_idle_time", 300, "Passenger's built-in default (5 minutes)", "g62-passenger")
    s.add("passenger.max_preloader_idle_time", "PassengerMaxPreloaderIdleTime", "seconds", inst_idle,
          Setting(0, "keep the preloader alive so new processes spawn fast", cites62, "",
                  (Input("PassengerMaxPreloaderIdleTime", 0, "g62-passenger"),)),
          Fix("hiera", key + "passenger_max_preloader_idle_time", 0))
    if s.server:
        on = Setting(True, "puppet-foreman default on EL: PassengerPreStart https://<server>", ("pf-passenger-51",))
        s.add("passenger.prestart", "PassengerPreStart (Foreman)", "bool", on,
              Setting(True, "start the application with Apache instead of on the first request", ("g62-passenger",)),
              Fix("hiera", "foreman::passenger_prestart", True))
    _applications(s, pool, cites62)
    _per_app(s, key, pool)


def _per_app(s: Sizing, key: str, pool: int) -> None:
    """PassengerMaxInstancesPerApp where the installer sets it (its tuning hiera's 6, installer 1.14-2.4): a cap below
    the raised pool holds an application at 6 processes whatever PassengerMaxPoolSize says, so it moves with the pool."""
    hkey = key + "passenger_max_instances_per_app"
    if hkey not in s.base and hkey not in s.inp.configured:
        return
    inst = s.base_setting(hkey, 0, "Passenger's built-in default (0: no per-application cap)", "fi-passenger-per-app")
    if not inst.origin and "fi-passenger-per-app" not in inst.citations:  # the installer's: where its tuning hiera sets it
        inst = inst._replace(citations=(*inst.citations, "fi-passenger-per-app"))
    mins = [t.foretune.value for tid, t in s.tunables.items() if tid.endswith("min_instances") and tid.startswith("passenger.")]
    cites = ("g62-passenger-per-app", "fi-passenger-per-app", "foretune-estimate")
    if len(mins) < 2:  # one application: a cap below the pool only idles the rest of it
        app = "Foreman" if s.server else "the Puppet server"
        want = Setting(pool, f"{app} is Passenger's only application here, so the cap is the pool: the installer's "
                              f"{inst.value} would hold it below the {pool} processes PassengerMaxPoolSize allows "
                              "(a foretune estimate: the guide's cap is for one application taking another's processes)",
                       cites, f"PassengerMaxPoolSize = {pool}", (Input("PassengerMaxPoolSize", pool, "g62-passenger"),))
    else:  # Foreman and Puppet: each may grow to the pool less what the other keeps as its minimum
        keep = max(mins)
        want = Setting(max(1, pool - keep), f"the pool less the other application's PassengerMinInstances {keep}: either "
                                            "application grows into the pool, never into the other's minimum (a foretune "
                                            "estimate of the guide's \"prevent one application from consuming all\")",
                       cites, f"max(1, {pool} - {keep}) = {max(1, pool - keep)}",
                       (Input("PassengerMaxPoolSize", pool, "g62-passenger"), Input("PassengerMinInstances", keep, "g62-passenger")))
    s.add("passenger.max_instances_per_app", "PassengerMaxInstancesPerApp", "count", inst, want, Fix("hiera", hkey, want.value))


def _queue(s: Sizing, key: str, cites62: tuple[str, ...]) -> None:
    inst_queue = s.base_setting(key + "passenger_max_request_queue_size", module_default("passenger", "max_request_queue_size"),
                                "Passenger's built-in default", module_default_citation("passenger"))
    if s.server and s.era62:
        queue = const("passenger_queue_62")
        want = Setting(queue, "the brief's tuned example: the expected burst, below Apache's MaxClients", cites62, "",
                       (C("passenger_queue_62"),))
    elif s.server:
        default_hosts = default_profile_hosts()
        big = s.inp.hosts > default_hosts
        burst = const("passenger_queue_large") if big else const("passenger_queue_small")
        queue = max(inst_queue.value, burst)
        want = Setting(queue, f"sized for the registration burst: {const('passenger_queue_small')} up to {default_hosts} hosts, "
                              f"{const('passenger_queue_large')} above (the installer's queues; the step at the default "
                              "profile's host range is a foretune estimate)",
                       ("g62-passenger", "fi-tuning-profiles", "foretune-estimate"), f"max({inst_queue.value}, {burst}) = {queue}",
                       (given(inst_queue), C("passenger_queue_large" if big else "passenger_queue_small")))
    else:
        queue = const("capsule_passenger_queue")
        want = Setting(queue, "the brief's capsule example", cites62, "", (C("capsule_passenger_queue"),))
    s.add("passenger.max_request_queue_size", "PassengerMaxRequestQueueSize", "count", inst_queue, want,
          Fix("hiera", key + "passenger_max_request_queue_size", queue))


def _applications(s: Sizing, pool: int, cites62: tuple[str, ...]) -> None:
    """PassengerMinInstances and PassengerStartTimeout of each application Passenger serves (Foreman, Puppet).

    The brief's minimums (6 per application on a server, 2 for a capsule's Puppet) must leave room in the pool for
    the processes a burst spawns ("Passenger will spawn additional application processes up to PassengerMaxPoolSize"):
    the brief's 6 + 6 are half of its pool of 24, so where they would be more than half of this pool, each
    application gets an even share of half of it.
    """
    puppet = (s.era62 and not s.server) or (s.f.puppet_passenger and bool(s.inp.puppet_hosts))
    apps = (["foreman"] if s.server else []) + (["puppet"] if puppet else [])
    ckey = "passenger_min_instances" if s.server else "capsule_passenger_min_instances"
    brief = const(ckey)
    fills = brief * len(apps) > pool / 2  # the brief's 6 + 6 are half of its PassengerMaxPoolSize 24
    for app in apps:
        inst_min = Setting(1, "puppet-foreman default" if app == "foreman" else "Passenger's default (puppet-puppet sets none)",
                           ("pf-passenger-51",) if app == "foreman" else ("passenger-min-instances", "pp-62-options"))
        prefix = "passenger." if app == "foreman" else "passenger.puppet_"  # passenger.min_instances is Foreman's (audit rules read it)
        example = "tuned example" if s.server else "capsule example"
        inputs = (C(ckey), Input("PassengerMaxPoolSize", pool, "g62-passenger"))
        if not fills:
            want = Setting(brief, f"the brief's {example} per application", cites62,
                           f"{len(apps)} x {brief} <= pool {pool} / 2: {brief}", inputs)
        else:  # the brief's 6 + 6 hold half its pool of 24: each application gets its even share of half this pool
            share = max(1, pool // (2 * len(apps)))
            want = Setting(share, f"the brief's {' + '.join([str(brief)] * len(apps))} are half of its example pool, more than half of "
                                  f"this pool of {pool}: {share} each keeps the other half for a burst (the even share "
                                  "of half the pool is a foretune estimate)",
                           (*cites62, "foretune-estimate"), f"max(1, floor({pool} / (2 x {len(apps)}))) = {share}", inputs)
        s.add(f"{prefix}min_instances", f"PassengerMinInstances ({app.capitalize()})", "count", inst_min, want,
              Fix("hiera", f"{app}::passenger_min_instances" if app == "foreman" else "puppet::server::passenger_min_instances",
                  want.value))
        if app == "puppet" and not s.era62:
            continue  # puppet-puppet has no PassengerStartTimeout parameter (pp-passenger-removed)
        tkey = "passenger_start_timeout" if s.server else "capsule_passenger_start_timeout"
        inst_timeout = (Setting(600, "puppet-foreman default on EL", ("pf-passenger-51",)) if app == "foreman"
                        else Setting(90, "Passenger's built-in default (puppet-puppet sets none)", ("passenger-start-timeout",)))
        if const(tkey) < inst_timeout.value:
            timeout = s.same(inst_timeout, f"kept: the brief's {const(tkey)} is an example, and a shorter timeout only kills a slow start sooner",
                             *inst_timeout.citations, *cites62)
        else:
            timeout = Setting(const(tkey), "the brief's example for this role", cites62, "", (C(tkey),))
        s.add(f"{prefix}start_timeout", f"PassengerStartTimeout ({app.capitalize()})", "seconds", inst_timeout, timeout,
              Fix("hiera", f"{app}::passenger_start_timeout" if app == "foreman" else "puppet::server::passenger_start_timeout",
                  timeout.value))
        if app == "puppet" and s.server:  # a Capsule gets them through passenger.max_requests (its only application)
            _puppet_app_block(s, cites62)


def _puppet_app_block(s: Sizing, cites62: tuple[str, ...]) -> None:
    """The brief's per-application MaxRequests and MaxPreloaderIdleTime for Puppet's vhost (25-puppet.conf) on a 6.2
    server, where the global keys go to Foreman's vhost (05-foreman-ssl.conf)."""
    requests = const("passenger_max_requests")
    s.add("passenger.puppet_max_requests", "PassengerMaxRequests (Puppet)", "count",
          Setting(0, "Passenger's built-in default", ("g62-passenger",)),
          Setting(requests, "the brief's tuned Passenger configuration, per application", cites62, "", (C("passenger_max_requests"),)),
          Fix("hiera", "puppet::server::passenger_max_requests", requests))
    s.add("passenger.puppet_max_preloader_idle_time", "PassengerMaxPreloaderIdleTime (Puppet)", "seconds",
          Setting(300, "Passenger's built-in default (5 minutes)", ("g62-passenger",)),
          Setting(0, "keep the preloader alive so new processes spawn fast", cites62, "",
                  (Input("PassengerMaxPreloaderIdleTime", 0, "g62-passenger"),)),
          Fix("hiera", "puppet::server::passenger_max_preloader_idle_time", 0))


# -- budgets -----------------------------------------------------------------------------------
def memory(s: Sizing) -> list[MemoryItem]:
    t, items = s.tunables, []
    if "puma.workers" in t:
        w = t["puma.workers"].foretune.value
        items.append(memory_item(PUMA_MEMORY, w, "puma_worker", f"{plural(w, 'worker')} x ~{memory_size('puma_worker', high=True)} (guide)"))
    if "passenger.max_pool_size" in t and s.server:
        pool = t["passenger.max_pool_size"].foretune.value
        items.append(memory_item("Foreman (Passenger)", pool, "passenger_process",
                                 f"{plural(pool, 'process', 'processes')} x {memory_size('passenger_process')} (6.2 brief)"))
        items.append(memory_item("Passenger preloader", 1, "passenger_preloader", "one preloader kept alive (6.2 brief)"))
    return items


def connections(s: Sizing, installer: bool) -> list[tuple[str, int]]:
    t, budget = s.tunables, []
    if "puma.workers" in t:
        w, th = s.value("puma.workers", installer), s.value("puma.threads_max", installer)
        pool = s.value("foreman.db_pool", installer) if "foreman.db_pool" in t else th + const("db_pool_extra")
        budget.append((f"Puma {plural(w, 'worker')} x {pool} pool (threads {th})", w * pool))
    if "passenger.max_pool_size" in t and s.server:
        pool = s.value("passenger.max_pool_size", installer)
        rails_pool = module_default("foreman_db_pool", "base")  # the Rails default pool of each application process
        budget.append((f"Passenger {plural(pool, 'process', 'processes')} x {rails_pool} pool", pool * rails_pool))
    return budget


COMPONENT = Component("puma", memory=memory, connections=connections)
