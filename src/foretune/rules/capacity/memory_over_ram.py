"""The services in force need more memory than the box has (the plan's memory budget, measured where possible)."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.plan.measured import measured_shortage as shortage_of
from foretune.plan.model import Fix, MemoryItem
from foretune.rules.base import Basis, Context, Evidence, Outcome, Rule, Severity
from foretune.term import plural
from foretune.units import format_gib, jvm_size_option, pg_size

GIB = 1024**3
# ps service -> the plan's memory items it measures. Only services whose RSS is their own memory:
# forked Puma workers and PostgreSQL backends share pages (shared_buffers, copy-on-write), so
# their summed RSS counts the same memory many times; they stay on the budget's figures.
MEASURED = {"Candlepin": ("Candlepin",), "Dynflow Sidekiq": ("Dynflow Sidekiq", "Dynflow orchestrator"),
            "Redis": ("Redis",), "Puppet server": ("Puppet server",)}


def running_memory(ctx: Context) -> list[MemoryItem]:
    """The plan's memory items, with the sizes in force and the RSS ``ps`` measured substituted where known."""
    from foretune.plan.components.candlepin import candlepin_memory  # start-up: plan code, only when the check runs
    from foretune.plan.constants import memory_range  # start-up: plan code, only when the check runs
    from foretune.plan.sizing import memory_size  # start-up: plan code, only when the check runs
    from foretune.rules.recommend import puma_in_force  # start-up: the recommendation loads only when the check runs

    assert ctx.plan is not None
    items = {m.component: m for m in ctx.plan.memory}
    run = puma_in_force(ctx)  # the workers that run: pumactl stats, else what systemd loaded, else the drop-in
    if run is not None and "Foreman (Puma)" in items:
        low, high, source = memory_range("puma_worker")
        w = run.workers
        items["Foreman (Puma)"] = MemoryItem("Foreman (Puma)", int(w * high * GIB), f"{plural(w, 'worker')} in force x ~{memory_size('puma_worker', high=True)} (guide)",
                                             int(w * low * GIB), int(w * high * GIB), (source,))
    shared = pg_size((ctx.facts.value("postgresql") or {}).get("shared_buffers"))
    if shared and "PostgreSQL" in items and ctx.plan.tunables.get("postgresql.shared_buffers"):
        planned = pg_size(ctx.plan.tunables["postgresql.shared_buffers"].foretune.value) or 0
        touched_low, touched_high, _ = memory_range("pg_shared_buffers_touched")
        pg = items["PostgreSQL"]
        delta = shared - planned
        items["PostgreSQL"] = pg._replace(
            bytes=int(pg.bytes + delta * touched_high), low_bytes=max(0, int(pg.low_bytes + delta * touched_low)),
            high_bytes=int(pg.high_bytes + delta * touched_high),
            reason=f"shared_buffers in force {format_gib(shared)}; {pg.reason.split('+', 1)[-1].strip()}")
    candlepin = ctx.facts.value("candlepin") or {}
    opts = candlepin.get("java_opts")
    heap = candlepin.get("heap_max_bytes") or jvm_size_option(opts)
    if heap and "Candlepin" in items:
        items["Candlepin"] = candlepin_memory(heap, jvm_size_option(opts, "-Xms") or GIB)
    cache_gb = (ctx.facts.value("mongodb") or {}).get("cache_size_gb")
    if cache_gb and "MongoDB cache" in items:
        fill_low, fill_high, source = memory_range("mongodb_cache_fill")
        cache = float(cache_gb) * GIB
        items["MongoDB cache"] = MemoryItem("MongoDB cache", int(cache * (fill_low + fill_high) / 2),
                                            f"cacheSizeGB {cache_gb} in force, filled as the working set grows",
                                            int(cache * fill_low), int(cache * fill_high), ("fi-mongo-cache", source))
    rss = ctx.facts.value("process_rss") or {}
    for service, components in MEASURED.items():
        measured = rss.get(service)
        if not measured or components[0] not in items:
            continue
        for component in components:
            items.pop(component, None)
        size = int(measured["rss_bytes"])
        items[components[0]] = MemoryItem(components[0], size, f"measured: {measured['processes']} processes, {format_gib(size)} RSS (ps)",
                                          size, size, ("measured",))
    return list(items.values())


PRODUCTS = {"satellite": "Satellite", "orcharhino": "orcharhino", "foreman": "Foreman"}


def box_name(ctx: Context) -> str:
    """What the box is, for "the Satellite services" and "a Satellite server": a Capsule (Smart Proxy) is named as one.

    >>> from foretune.facts.model import FactSet
    >>> box_name(Context(FactSet("x", "live"), None, "capsule", None)), box_name(Context(FactSet("x", "live"), None, None, None))
    ('Capsule', 'Satellite')
    """
    product = ctx.release.product if ctx.release is not None else "satellite"
    if ctx.role == "capsule":
        return "Capsule" if product == "satellite" else "Smart Proxy"
    return PRODUCTS.get(product, "Satellite")


def citations_of(ctx: Context, items: list[MemoryItem], cites: tuple[str, ...]) -> tuple[str, ...]:
    """The rule's citations, the Puma sizing one only when Puma workers are in the budget (not on a Capsule, nor
    under Passenger)."""
    return cites if any(m.component == "Foreman (Puma)" for m in items) else tuple(c for c in cites if c != "gf-puma-autotuning")


def largest_outside(ctx: Context) -> str:
    """``; the largest process outside the Satellite services in ps: java run by logstash (PID 2211, 9.0 GiB RSS)``,
    or "" when none holds as much as the notable size (outside_process_notable_bytes)."""
    others = ctx.facts.value("other_processes") or []
    if not others or int(others[0]["rss_bytes"]) < threshold("outside_process_notable_bytes"):
        return ""  # nothing outside the services worth moving: naming a small process would be wrong advice
    top = others[0]
    return (f"; the largest process outside the {box_name(ctx)} services in ps: {top['command']} run by {top.get('user')} "
            f"(PID {top['pid']}, {format_gib(int(top['rss_bytes']))} RSS)")


def puma_first(ctx: Context) -> tuple[str, tuple[Fix, ...]]:
    """When more Puma workers run than this audit recommends, the words and the fixes that lower them first: each
    worker holds about 1 GiB (gf-puma-autotuning), so they are the memory to free before moving anything else."""
    from foretune.rules.recommend import puma_in_force, recommended  # start-up: loads only for a memory shortage

    if _hosts_lost(ctx):  # the workers recommended depend on the count it lost
        return "", ()
    run = puma_in_force(ctx)  # the workers that run: pumactl stats, else what systemd loaded, else the drop-in
    running = run.workers if run is not None else None
    rec = recommended(ctx, "puma.workers")
    if not running or rec is None or rec.value is None or int(running) <= int(rec.value):
        return "", ()
    return (f"first lower the {running} Puma workers in force to the {rec.value} recommended (about "
            f"{format_gib((int(running) - int(rec.value)) * 2**30)} at 1 GiB each), then ", tuple(rec.fixes))


def memory_fix(ctx: Context) -> Fix:
    """The advice when the box is short of memory: move the largest process outside the services off it, or add RAM."""
    outside = largest_outside(ctx).removeprefix("; ")
    listed = bool(ctx.facts.value("other_processes"))  # ps was read, and nothing outside the services is large
    return Fix("advice", "memory", "free memory for the services: " + (
        f"{outside}: move it off this server, " if outside else
        f"no process outside the {box_name(ctx)} services holds {format_gib(threshold('outside_process_notable_bytes'))} or "
        "more in ps, so look for memory ps does not show (tmpfs and /dev/shm, slab, huge pages), " if listed else "move what does not belong on this server off it, ")
        + "or add RAM; swap empties by itself once memory is free (or run `swapoff -a && swapon -a` when MemAvailable "
        "is well above the swap in use)")


def needed(ctx: Context) -> int:
    """The memory the box needs once the audit's fixes are in: the budget of the plan at the profile the audit asks for
    (its values are the findings'), its OS and page cache floor included. The finding recommends this figure, never the
    RAM itself."""
    assert ctx.plan is not None
    return sum(m.bytes for m in (ctx.fix_plan or ctx.plan).memory)


def in_use(ctx: Context) -> int | None:
    """The memory the box measures in use: RAM less MemAvailable, plus the swap in use (None: MemAvailable unknown)."""
    ram = ctx.facts.value("ram_bytes")
    available = (ctx.facts.value("memory_pressure") or {}).get("available_bytes")
    if available is None or not ram:
        return None
    return max(int(ram) - int(available), 0) + int((ctx.facts.value("swap") or {}).get("used_bytes") or 0)


def _needs(ctx: Context) -> str:
    """``the plan's settings need about 41.5 GiB``; nothing sized when the host count was lost to the damage."""
    if _hosts_lost(ctx):
        return "what the plan's settings need depends on the host count, lost to the damage: give --hosts"
    return f"the plan's settings need about {format_gib(needed(ctx))}"


def _hosts_lost(ctx: Context) -> bool:
    """The host count was lost to a damaged archive's damage: no value sized for hosts is given."""
    return ctx.host_figure is not None and ctx.host_figure.lost


def measured_shortage(ctx: Context) -> str | None:
    """What the box measures when it is short of memory now (MemAvailable under the critical fraction with swap
    mostly used, or OOM kills since boot), else None (:func:`foretune.plan.measured.measured_shortage`)."""
    return shortage_of(ctx.facts)


class MemoryOverRam(Rule):
    id = "memory-budget-over-ram"
    title = "Services fit the RAM (memory budget)"
    component = "capacity"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("oom_kill", ()),)
    # Puma workers over what the RAM leaves them are the cause when that rule fails on the same OOM kill or meminfo
    symptom_of = ("puma-workers-over-ram-budget",)
    needs = ("ram_bytes",)
    citations = ("g62-memory", "gf-puma-autotuning", "foretune-estimate")
    unit = "bytes"

    def applies(self, ctx: Context) -> str | None:
        return None if ctx.plan else ctx.no_plan_reason

    def check(self, ctx: Context) -> Outcome:
        items = running_memory(ctx)
        ram = ctx.facts.value("ram_bytes")
        total, low = sum(m.bytes for m in items), sum(m.low_bytes for m in items)
        biggest = ", ".join(f"{m.component} {format_gib(m.bytes)}" for m in sorted(items, key=lambda m: -m.bytes)[:4])
        budget = f"about {format_gib(total)} (at least {format_gib(low)})"
        if total <= ram:
            short = measured_shortage(ctx)
            if short is None:
                return self.passed(f"{budget} of {format_gib(ram)} budgeted ({biggest}, ...)")
            # the budget fits, the box does not: the measured state wins, and the memory goes somewhere else
            first, puma_fixes = puma_first(ctx)
            used = in_use(ctx)
            return self.failed(f"the {box_name(ctx)} services budget {budget} of {format_gib(ram)}, but the box measures {short}: "
                               f"memory goes outside the budget{largest_outside(ctx)}; {first}move what does not belong on a "
                               f"{box_name(ctx)} server off it, or add RAM ({_needs(ctx)})", citations=citations_of(ctx, items, self.citations),
                               current=int(total) if used is None else used, recommended=needed(ctx),
                               evidence=(*ctx.evidence("memory_pressure", "swap", "ram_bytes"), *ctx.evidence("other_processes")),
                               fixes=(*puma_fixes, memory_fix(ctx)),
                               severity=Severity.HIGH, basis=Basis.MEASURED)
        pressure = ctx.facts.value("memory_pressure") or {}
        available, ooms = pressure.get("available_bytes"), pressure.get("oom_kills")
        healthy = available is not None and available >= threshold("memory_available_min_fraction") * ram and not ooms
        if healthy and available is not None:
            return self.passed(f"the budget, {budget}, is above the RAM ({format_gib(ram)}), but the box measures "
                               f"{format_gib(available)} available ({available / ram:.0%}) and no OOM kill: the services use less "
                               "than budgeted")
        evidence = (*ctx.evidence("ram_bytes", "memory_pressure", "swap", "process_rss", "puma", "postgresql", "candlepin"),
                    *(Evidence("memory budget", m.component,
                               f"{format_gib(m.bytes)} ({format_gib(m.low_bytes)}-{format_gib(m.high_bytes)}): {m.reason}") for m in items))
        if available is not None:
            state = f"measured: only {format_gib(available)} available" + (f", {plural(ooms, 'OOM kill')}" if ooms else "")
            severity, basis = Severity.HIGH, Basis.MEASURED
        elif low > ram:
            state, severity, basis = "no measurement of available memory in the source", Severity.MEDIUM, Basis.CONFIG
        else:
            state, severity, basis = ("no measurement of available memory in the source; even the low end fits, so watch for "
                                      "swapping under load"), Severity.LOW, Basis.CONFIG
        wanted = needed(ctx)
        first, puma_fixes = puma_first(ctx)
        advice = (_needs(ctx) if _hosts_lost(ctx) else f"even {_needs(ctx)}: add RAM or move load to Capsules" if wanted > ram
                  else f"{_needs(ctx)}: " + (first.rstrip("; ") if first else "apply them"))
        return self.failed(f"the services in force need {budget} but the box has {format_gib(ram)} "
                           f"({biggest}, ...; {state}); {advice}", current=int(total), recommended=wanted, evidence=evidence,
                           fixes=puma_fixes if puma_fixes and wanted <= ram else (*puma_fixes, Fix("advice", "memory", advice)),
                           severity=severity, basis=basis, citations=citations_of(ctx, items, self.citations))


RULE = MemoryOverRam()


def oom_finding(ctx: Context) -> str:
    """The finding the report lists the OOM kills under (combine: oom-kills is a symptom of the first of these that
    fails): puma-workers-over-ram-budget, else memory-budget-over-ram, else oom-kills itself."""
    from foretune.rules.base import Status  # start-up: only when a rule names the OOM finding
    from foretune.rules.puma.workers_over_ram import RULE as puma  # start-up: only when a rule names the OOM finding

    for rule in (puma, RULE):
        if rule.applies(ctx) is None and all(ctx.facts[n].known for n in rule.needs) and rule.check(ctx).status == Status.FAIL:
            return rule.id
    return "oom-kills"
