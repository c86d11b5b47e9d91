"""PostgreSQL: shared_buffers (and 9.2's System V limits), max_connections from the connection budget, the cache settings."""

from __future__ import annotations

import math

from foretune.knowledge import hardware, postgresql_default
from foretune.knowledge.hiera_keys import stale_keys
from foretune.knowledge.model import SIZES, Release
from foretune.knowledge.profiles import PG, installer_hiera
from foretune.plan.components import puma
from foretune.plan.constants import cite, const, memory_range
from foretune.plan.model import Fix, Input, MemoryItem, Problem, Setting
from foretune.plan.sizing import GIB, MIB, C, Component, Sizing, box, given, memory_item, num, percent
from foretune.units import format_bytes, format_gib, format_size, pg_size

KEY = PG + "/"


def shared_buffers_range(release: Release, ram_bytes: int) -> tuple[int, int, str, str]:
    """(low, high, citation, wording) of the shared_buffers range the guide for ``release`` gives."""
    if not release.features.custom_hiera:  # Satellite 6.2 era: the brief's 15 % - 25 % of memory
        low_f, high_f = const("pg62_shared_buffers_fraction"), const("pg62_shared_buffers_max_fraction")
        return (int(ram_bytes * low_f), int(ram_bytes * high_f), "g62-postgresql",
                f"{percent(low_f)} - {percent(high_f)} of RAM (the 6.2 brief)")
    low_gib, high_f = const("pg_shared_buffers_min_gib"), const("pg_shared_buffers_max_fraction")
    return int(low_gib * GIB), int(ram_bytes * high_f), "gf-postgresql", f"{num(low_gib)} GiB - {percent(high_f)} of RAM (the guide)"


# -- shared_buffers ----------------------------------------------------------------------------
def plan_memory(s: Sizing) -> None:
    """shared_buffers (with 9.2's kernel limits), autovacuum's cost limit, and the removed checkpoint_segments."""
    if not s.server:
        return
    sb_inst = s.pg_setting("shared_buffers")
    if s.era62:
        frac = const("pg62_shared_buffers_fraction")
        step_bytes = const("pg62_shared_buffers_step_mib") * MIB
        sb = math.ceil(s.inp.ram_bytes * frac / step_bytes) * step_bytes
        step = format_size(step_bytes)
        setting = Setting(format_size(sb), f"{percent(frac)} of RAM (the brief: {percent(frac)} - "
                                           f"{percent(const('pg62_shared_buffers_max_fraction'))}), rounded up to {step}", ("g62-postgresql",),
                          f"ceil({s.ram_gib:.1f} GiB x {frac} / {step}) x {step} = {format_size(sb)}",
                          (C("pg62_shared_buffers_fraction"), C("pg62_shared_buffers_step_mib"), box("RAM GiB", round(s.ram_gib, 1))))
    else:
        low_gib, high_f = const("pg_shared_buffers_min_gib"), const("pg_shared_buffers_max_fraction")
        cap_b = max(int(s.inp.ram_bytes * high_f) // GIB * GIB, GIB)
        start, profile_sb = sb_inst.value, s.base_pg.get("shared_buffers")
        profile_input: tuple[Input, ...] = ()
        if sb_inst.origin and profile_sb is not None and (pg_size(profile_sb) or 0) > (pg_size(start) or 0):
            # a site value below the profile's is no reason to recommend less than the profile gives: it is compared
            start = profile_sb
            profile_input = (Input(f"the {s.profile} profile's shared_buffers", profile_sb, "fi-tuning-profiles"),)
        sb = min(max(pg_size(start) or 0, low_gib * GIB), cap_b)
        # Satellite 6.9 (Foreman 2.3-2.5, the fixed Puma defaults) has its own guide saying the same range
        guide = "g69-postgresql" if s.inp.product == "satellite" and s.f.puma_formula == "fixed" else "gf-postgresql"
        setting = Setting(format_size(sb), f"at least {num(low_gib)} GiB, at most {percent(high_f)} of RAM; "
                                           "the profile's value (or a larger one the site sets) when it is in that range",
                          (guide, *(("fi-tuning-profiles",) if profile_input else ())),
                          f"min(max({start}, {num(low_gib)} GiB), floor({s.ram_gib:.1f} GiB x {percent(high_f)})) = {format_size(sb)}",
                          (given(sb_inst), *profile_input, C("pg_shared_buffers_min_gib")._replace(citation=guide),
                           C("pg_shared_buffers_max_fraction")._replace(citation=guide), box("RAM GiB", round(s.ram_gib, 1))))
    s.add("postgresql.shared_buffers", "shared_buffers", "bytes", sb_inst, setting, Fix("hiera", KEY + "shared_buffers", format_size(sb)))
    if not s.era62:
        sb = _hold_for_puma(s, sb_inst, sb)
    if s.era62:
        _shm(s, sb)
    av_inst = s.pg_setting("autovacuum_vacuum_cost_limit", "vacuum_cost_limit")
    if not s.era62:
        av = const("pg_autovacuum_cost_limit")
        if av_inst.origin and int(av_inst.value) > av:  # a site that lets autovacuum do more keeps it
            want = s.same(av_inst, f"kept: the {av_inst.origin} lets autovacuum do more than the guide's {av}", "gf-postgresql")
        else:
            want = Setting(av, "lets autovacuum keep up with Foreman's churn", ("gf-postgresql",), "", (C("pg_autovacuum_cost_limit"),))
        s.add("postgresql.autovacuum_vacuum_cost_limit", "autovacuum_vacuum_cost_limit", "count", av_inst, want,
              Fix("hiera", KEY + "autovacuum_vacuum_cost_limit", want.value))
    if "checkpoint_segments" in s.base_pg:
        inst = s.base_setting(KEY + "checkpoint_segments", None, "not set", "fi-checkpoint-segments-removed")
        if stale_keys(s.release, {KEY: {"checkpoint_segments": inst.value}}):  # the release's PostgreSQL refuses it
            s.add("postgresql.checkpoint_segments", "checkpoint_segments (removed)", "count", inst,
                  Setting(None, "removed in PostgreSQL 9.5; PostgreSQL 12 refuses to start with it", ("fi-checkpoint-segments-removed",)))
        else:  # PostgreSQL 9.2 (foreman-installer before 2.0) reads it: the profile's value stays until that upgrade
            s.add("postgresql.checkpoint_segments", "checkpoint_segments", "count", inst,
                  s.same(inst, "kept: this release's PostgreSQL 9.2 reads it; it goes with the PostgreSQL 12 upgrade "
                               "(foreman-installer 2.0 drops it from the profiles)", *inst.citations, "fi-checkpoint-segments-removed"))


def _hold_for_puma(s: Sizing, sb_inst: Setting, sb: int) -> int:
    """Raise shared_buffers only as far as Puma keeps the guide's lowest worker count: "between 2 GiB to a maximum of
    25%" is a range.

    On a box too small for both, shared_buffers gets what is left over those workers (in whole steps), and the value in
    force stays when nothing is; so more RAM never lowers either setting.
    """
    inst = pg_size(sb_inst.value) or 0
    if not s.f.puma or sb <= inst:
        return sb
    low = min(hardware.puma_worker_range(s.profile)[0], puma.workers_cpus_carry(s))
    fit = puma.workers_that_fit(s)
    if fit >= low:
        return sb
    step = int(const("pg_shared_buffers_share_step_mib")) * MIB
    spare = int((puma.ram_for_puma_gib(s) - low * puma.per_worker_gib()) * GIB)  # < 0: what the raise takes from them
    part = inst + (sb - inst + spare) // step * step
    if part > inst:
        s.add("postgresql.shared_buffers", "shared_buffers", "bytes", sb_inst,
              Setting(format_size(part), f"what RAM leaves over the guide's {low} Puma workers for {s.profile}, in "
                                         f"{format_size(step)} steps: {format_size(sb)} would leave RAM for {fit}; the guide's "
                                         f"{num(const('pg_shared_buffers_min_gib'))} GiB - "
                                         f"{percent(const('pg_shared_buffers_max_fraction'))} of RAM needs more RAM",
                      ("gf-postgresql", "gf-puma-recommendations", "foretune-estimate"),
                      f"{format_size(inst)} + floor(({format_size(sb)} - {format_size(inst)} - {format_bytes(-spare, 'MiB')} "
                      f"short for {low} workers) / {format_size(step)}) x {format_size(step)} = {format_size(part)}",
                      (given(sb_inst), C("pg_shared_buffers_share_step_mib"), box("RAM GiB", round(s.ram_gib, 1)))),
              Fix("hiera", KEY + "shared_buffers", format_size(part)))
        return part
    s.add("postgresql.shared_buffers", "shared_buffers", "bytes", sb_inst,
          s.same(sb_inst, f"kept: {format_size(sb)} would leave RAM for {fit} Puma workers, below the guide's {low} for "
                          f"{s.profile}; the guide's {num(const('pg_shared_buffers_min_gib'))} GiB - "
                          f"{percent(const('pg_shared_buffers_max_fraction'))} of RAM is a range, not a minimum to reach at Puma's cost",
                 "gf-postgresql", "gf-puma-recommendations"),
          Fix("hiera", KEY + "shared_buffers", sb_inst.value))
    return inst


def _shm(s: Sizing, shared_buffers: int) -> None:
    """PostgreSQL 9.2 takes shared_buffers from System V shared memory: the kernel limits must allow it."""
    over = const("pg92_shm_overhead")
    shmmax = math.ceil(shared_buffers * (1 + over) / GIB) * GIB
    page = const("page_size")
    rhel7_shmmax, rhel7_shmall = const("rhel7_shmmax"), const("rhel7_shmall")
    want_max = max(shmmax, rhel7_shmmax)
    s.add("sysctl.kernel_shmmax", "kernel.shmmax", "bytes", Setting(rhel7_shmmax, "RHEL 7 default", (cite("rhel7_shmmax"),)),
          Setting(want_max, f"PostgreSQL 9.2 needs shared_buffers plus about {percent(over)} in one System V segment",
                  ("pg92-shm", "g62-postgresql"), f"max({rhel7_shmmax}, ceil({format_size(shared_buffers)} x {1 + over}) in GiB) = {want_max}",
                  (Input("shared_buffers", format_size(shared_buffers), "g62-postgresql"), C("pg92_shm_overhead"),
                   C("rhel7_shmmax"))),
          Fix("sysctl", "kernel.shmmax", want_max))
    want_all = max(rhel7_shmall, shmmax // page)
    s.add("sysctl.kernel_shmall", "kernel.shmall (pages)", "count", Setting(rhel7_shmall, "RHEL 7 default", (cite("rhel7_shmall"),)),
          Setting(want_all, f"at least kernel.shmmax in {format_bytes(page)} pages", ("pg92-shm",),
                  f"max({rhel7_shmall}, {shmmax} / {page}) = {want_all}",
                  (Input("kernel.shmmax", shmmax, "pg92-shm"), C("page_size"), C("rhel7_shmall"))),
          Fix("sysctl", "kernel.shmall", want_all))


# -- max_connections ---------------------------------------------------------------------------
def plan_connections(s: Sizing) -> None:
    """max_connections: the connection budget of every component plus headroom, never below the installer's."""
    if not s.server:
        return
    cites = ("g62-postgresql",) if s.era62 else ("gf-postgresql",)
    need = sum(n for _, n in s.connection_budget())
    headroom = const("pg_connection_headroom")
    with_headroom = math.ceil(need * (1 + headroom) / 100) * 100
    mc_inst = s.pg_setting("max_connections")
    profile_mc = s.base_pg.get("max_connections")  # a site's lower value is in force, but the profile's stays the floor
    floor = max(int(mc_inst.value), const("g62_max_connections") if s.era62 else 0, int(profile_mc or 0))
    mc = max(floor, with_headroom)
    never_below = (f"the brief's {const('g62_max_connections')} for {const('g62_max_connections')} parallel registrations" if s.era62
                   else "the profile" if not mc_inst.origin or not profile_mc or int(mc_inst.value) >= int(profile_mc)
                   else f"the profile's {profile_mc}")
    s.add("postgresql.max_connections", "max_connections", "count", mc_inst,
          Setting(mc, f"connection budget {need} + {percent(headroom)} headroom, rounded up to 100; never below {never_below}",
                  (*cites, "pf-db-pool", cite("pg_connection_headroom")),
                  f"max({floor}, ceil({need} x {num(round(1 + headroom, 6))} / 100) x 100) = {mc}",
                  (Input("connection budget", need, "pf-db-pool"), C("pg_connection_headroom"), given(mc_inst),
                   *((C("g62_max_connections"),) if s.era62 else ()))),
          Fix("hiera", KEY + "max_connections", mc))
    if need > int(mc_inst.value):
        s.problems.append(Problem("high", "connections-over-max",
                                  f"the plan's connection budget ({need}) exceeds the installer's max_connections {mc_inst.value}: "
                                  "apply the plan's max_connections", ("gf-postgresql", "pf-db-pool")))
    inst_need = sum(n for _, n in s.connection_budget(installer=True))
    if inst_need > int(mc_inst.value):
        s.problems.append(Problem("high", "installer-connections-over-max",
                                  f"with the installer's own values the services open up to {inst_need} connections but its "
                                  f"max_connections is {mc_inst.value}: expect 'remaining connection slots are reserved' errors "
                                  "until the plan is applied", ("gf-postgresql", "pf-db-pool", "pf-puma-formula")))


# -- effective_cache_size and work_mem ---------------------------------------------------------
def plan_cache(s: Sizing) -> None:
    """effective_cache_size and work_mem from the same memory budget the rest of the plan uses."""
    if not s.server or s.era62:
        return  # the 6.2 brief tunes shared_buffers and max_connections only
    items = s.memory_items()
    sb = pg_size(s.value("postgresql.shared_buffers")) or 0
    free = max(0, s.inp.ram_bytes - sum(i.bytes for i in items))
    cache_room = max(0, s.inp.ram_bytes - sum(i.low_bytes for i in items))
    ecs_inst = s.pg_setting("effective_cache_size")
    profile_ecs, profile_name = _profile_value_for_ram(s, "effective_cache_size")
    budget = (sb + cache_room) // GIB * GIB
    ceiling = (pg_size(profile_ecs) if profile_ecs else pg_size(ecs_inst.value)) or 0
    ceiling_cite = "fi-tuning-profiles" if profile_name and profile_name.endswith("profile") else str(postgresql_default("effective_cache_size")["citation"])
    named = profile_name or "installer"
    whose = "PostgreSQL's default" if named == "PostgreSQL default" else f"the {named}'s"
    ecs = max(GIB, min(budget, ceiling))
    in_force = pg_size(ecs_inst.value) or 0
    inputs = (Input("shared_buffers", format_size(sb), "gf-postgresql"),
              Input("RAM left at the low end of the memory budget", format_gib(cache_room), "foretune-estimate"),
              Input(f"{named} effective_cache_size", format_size(ceiling), ceiling_cite))
    if ecs < in_force <= s.inp.ram_bytes:
        # a planner hint: it reserves no memory, so a value in force the RAM can hold is no cause for a change
        setting = s.same(ecs_inst, f"kept: a planner hint that reserves no memory, and {ecs_inst.value} is within the "
                                   f"{format_gib(s.inp.ram_bytes)} RAM", *ecs_inst.citations, "pg-docs-effective-cache-size")
        setting = setting._replace(inputs=(given(ecs_inst), box("RAM", format_gib(s.inp.ram_bytes))))
    else:
        setting = Setting(format_size(ecs), f"shared_buffers plus the page cache left with the services at the low end of "
                                            f"their memory ranges, at most {whose} {format_size(ceiling)}",
                          (ceiling_cite, "g62-memory"),
                          f"min({format_size(sb)} + {format_gib(cache_room)} page cache, {format_size(ceiling)}) = {format_size(ecs)}",
                          inputs)
    s.add("postgresql.effective_cache_size", "effective_cache_size", "bytes", ecs_inst, setting,
          Fix("hiera", KEY + "effective_cache_size", setting.value))
    _work_mem(s, free)


def _work_mem(s: Sizing, free: int) -> None:
    wm_inst = s.pg_setting("work_mem")
    guide = const("pg_work_mem")
    guide_bytes, inst_bytes = pg_size(guide, unit_bytes=1024) or 0, pg_size(wm_inst.value, unit_bytes=1024) or 0
    conns = s.value("postgresql.max_connections") if "postgresql.max_connections" in s.tunables else 0
    extra = max(0, guide_bytes - inst_bytes) * conns * const("pg_work_mem_ops_per_connection")
    profile_wm, _ = _profile_value_for_ram(s, "work_mem")
    if inst_bytes >= guide_bytes:
        why = (f"already the guide's {format_size(guide_bytes)}" if inst_bytes == guide_bytes else
               f"kept: the {wm_inst.origin or 'installer'} sets more than the guide's {format_size(guide_bytes)}, which it calls "
               "\"more than enough\", not a ceiling")
        s.add("postgresql.work_mem", "work_mem", "bytes", wm_inst, s.same(wm_inst, why, "gf-postgresql"),
              Fix("hiera", KEY + "work_mem", wm_inst.value))
        return
    fits = extra <= free
    want = guide if fits else wm_inst.value
    more = f"{conns} connections x {format_size(max(0, guide_bytes - inst_bytes))} more = {format_gib(extra)}"
    why = (f"the guide's {format_size(guide_bytes)}: {more} fits in the {format_gib(free)} the memory budget leaves" if fits
           else f"keep {wm_inst.value}: {more} does not fit in the {format_gib(free)} the memory budget leaves")
    if fits and profile_wm and pg_size(profile_wm, unit_bytes=1024) == guide_bytes:
        why = f"the guide's {format_size(guide_bytes)}, as the profiles use for this much RAM"
    s.add("postgresql.work_mem", "work_mem", "bytes", wm_inst,
          Setting(want, why, (cite("pg_work_mem"),), f"{guide} if {conns} x ({guide} - {wm_inst.value}) <= {format_gib(free)} free",
                  (C("pg_work_mem"), given(wm_inst), Input("max_connections", conns, "gf-postgresql"),
                   Input("RAM left by the memory budget", format_gib(free), "foretune-estimate"),
                   C("pg_work_mem_ops_per_connection"))),
          Fix("hiera", KEY + "work_mem", want))


def _profile_value_for_ram(s: Sizing, name: str) -> tuple[str | None, str | None]:
    """The PostgreSQL ``name`` of the largest size profile whose recommended RAM this box has (90 % rule).

    Below the medium profile's RAM that is the default profile, which leaves PostgreSQL's own default.
    """
    if not s.f.size_profiles:
        return None, None
    fits = [p for p in SIZES if s.inp.ram_bytes >= hardware.recommended(p).ram_bytes * hardware.ram_allowance()]
    best = fits[-1] if fits else "default"
    value = installer_hiera(s.release, best).get(PG, {}).get(name)
    if value is None:  # the profile leaves it out: PostgreSQL's own default applies, and is named as such
        return str(postgresql_default(name)["value"]), "PostgreSQL default"
    return str(value), f"{best} profile"


# -- budgets -----------------------------------------------------------------------------------
def memory(s: Sizing) -> list[MemoryItem]:
    if "postgresql.shared_buffers" in s.tunables:
        sb = pg_size(s.value("postgresql.shared_buffers")) or 0
        conns = sum(n for _, n in s.connection_budget())
        touched = memory_range("pg_shared_buffers_touched")
        blow, bhigh, bsrc = memory_range("pg_backend_mib")
        low = int(sb * touched[0] + conns * blow * MIB)
        high = int(sb * touched[1] + conns * bhigh * MIB)
        return [MemoryItem("PostgreSQL", high, f"shared_buffers + {conns} backends x {num(blow)}-{num(bhigh)} MiB", low, high,
                           tuple(dict.fromkeys((touched[2], bsrc))))]
    if s.server:
        return [memory_item("PostgreSQL", 1, "postgresql_unplanned", "before PostgreSQL is planned")]
    if s.f.pulpcore and s.katello:
        return [memory_item("PostgreSQL", 1, "capsule_postgresql", "pulpcore database only")]
    return []


COMPONENT = Component("postgresql", memory=memory)  # its own reserved connections close every budget (Sizing)
