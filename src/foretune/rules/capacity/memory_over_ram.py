"""The configured services need more memory than the box has."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Evidence, Outcome, Rule, Severity
from foretune.rules.values import gib, java_heap_max, pg_bytes

GIB = 1024**3


def running_memory(ctx: Context) -> dict[str, float]:
    """The plan's memory budget with the configured counts substituted where the facts have them."""
    assert ctx.plan is not None
    items = {m.component: float(m.bytes) for m in ctx.plan.memory}
    puma = ctx.facts.value("puma") or {}
    if puma.get("workers") and "Foreman (Puma)" in items:
        items["Foreman (Puma)"] = puma["workers"] * GIB
    shared = pg_bytes((ctx.facts.value("postgresql") or {}).get("shared_buffers"))
    if shared and "PostgreSQL" in items and ctx.plan.tunables.get("postgresql.shared_buffers"):
        planned = pg_bytes(ctx.plan.tunables["postgresql.shared_buffers"].foretune.value) or 0
        items["PostgreSQL"] += shared - planned
    heap = java_heap_max((ctx.facts.value("candlepin") or {}).get("java_opts"))
    if heap and "Candlepin" in items:
        items["Candlepin"] = heap + 0.5 * GIB
    return items


class MemoryOverRam(Rule):
    id = "memory-budget-over-ram"
    title = "Services fit the RAM (memory budget)"
    component = "capacity"
    severity = Severity.HIGH
    failing_when = (("oom_kill", ()),)
    needs = ("ram_bytes",)
    citations = ("g62-memory", "gf-puma-autotuning", "foretune-estimate")
    unit = "bytes"

    def applies(self, ctx: Context) -> str | None:
        return None if ctx.plan else ctx.no_plan_reason

    def check(self, ctx: Context) -> Outcome:
        items = running_memory(ctx)
        total, ram = sum(items.values()), ctx.facts.value("ram_bytes")
        biggest = ", ".join(f"{k} {gib(v)}" for k, v in sorted(items.items(), key=lambda kv: -kv[1])[:4])
        if total <= ram:
            return self.passed(f"about {gib(total)} of {gib(ram)} budgeted ({biggest}, ...)")
        pressure = ctx.facts.value("memory_pressure") or {}
        available = pressure.get("available_bytes")
        if available is not None and available >= threshold("memory_available_min_fraction") * ram and not pressure.get("oom_kills"):
            return self.passed(f"the budget estimate ({gib(total)}) is above the RAM ({gib(ram)}), but the box measures "
                               f"{gib(available)} available ({available / ram:.0%}) and no OOM kill: the services use less "
                               "than budgeted")
        evidence = (*ctx.evidence("ram_bytes", "memory_pressure", "swap", "process_rss", "puma", "postgresql", "candlepin"),
                    *(Evidence("memory budget", k, gib(v)) for k, v in items.items()))
        measured = available is not None
        if available is not None:
            ooms = pressure.get("oom_kills")
            state = f"measured: only {gib(available)} available" + (f", {ooms} OOM kills" if ooms else "")
        else:
            state = "no measurement of available memory in the source"
        assert ctx.plan is not None
        planned = sum(m.bytes for m in ctx.plan.memory)
        advice = (f"even the plan's settings need about {gib(planned)}: add RAM or move load to Capsules" if planned > ram
                  else f"the plan's settings need about {gib(planned)}: apply them")
        return self.failed(f"the configured services need about {gib(total)} but the box has {gib(ram)} "
                           f"({biggest}, ...; {state}); {advice}", current=int(total), recommended=int(ram), evidence=evidence,
                           severity=None if measured else Severity.MEDIUM)


RULE = MemoryOverRam()
