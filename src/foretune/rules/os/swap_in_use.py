"""Swap is in use and the box is short of memory now (MemAvailable, swap and OOM counters)."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.capacity.memory_over_ram import largest_outside, memory_fix
from foretune.term import plural
from foretune.units import format_gib


class SwapInUse(Rule):
    id = "swap-in-use"
    title = "No swap in use under memory pressure"
    component = "os"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("swap",)
    citations = ("g62-memory", "foretune-estimate")
    symptom_of = ("memory-budget-over-ram",)  # swap fills when the box is short of memory: one problem
    unit = "bytes"

    def check(self, ctx: Context) -> Outcome:
        swap = ctx.facts.value("swap")
        used, total = swap.get("used_bytes") or 0, swap.get("total_bytes") or 0
        if used <= threshold("swap_used_tolerance_bytes"):
            return self.passed(f"{format_gib(used)} of swap in use")
        ram = ctx.facts.value("ram_bytes")
        pressure = ctx.facts.value("memory_pressure") or {}
        available = pressure.get("available_bytes")
        ooms = pressure.get("oom_kills") or 0
        evidence = ctx.evidence("swap", "memory_pressure", "ram_bytes")
        if available is not None and ram and available >= threshold("memory_available_min_fraction") * ram and not ooms:
            return self.passed(f"{format_gib(used)} of swap in use, but {format_gib(available)} of {format_gib(ram)} is available "
                               f"({available / ram:.0%}): pages parked by an earlier peak, no shortage now")
        if available is not None and ram:
            severity = (Severity.HIGH if available < threshold("memory_available_critical_fraction") * ram or ooms
                        else Severity.MEDIUM)
            why = f"only {format_gib(available)} of {format_gib(ram)} available ({available / ram:.0%})" + (
                f" and {plural(ooms, 'OOM kill')} since boot" if ooms else "")
        else:
            severity = Severity.HIGH if total and used / total >= threshold("swap_used_high_fraction") else Severity.MEDIUM
            why = "available memory not in the source"
        return self.failed(f"{format_gib(used)} of {format_gib(total)} swap in use, {why}: the box is short of memory for its services",
                           current=used, recommended=0, evidence=(*evidence, *(ctx.evidence("other_processes") if largest_outside(ctx) else ())),
                           severity=severity, fixes=(memory_fix(ctx),))


RULE = SwapInUse()
