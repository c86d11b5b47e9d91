"""What a source measures of the box's memory now: the shortage that holds every raise of a memory tunable.

The audit's memory rules and the change sets of `plan --from` and `apply` read the same measure, so that a box
the audit calls short of memory gets no memory raise from any path.
"""

from __future__ import annotations

from typing import Any

from foretune.knowledge import threshold
from foretune.term import plural
from foretune.units import format_gib


def measured_shortage(facts: Any) -> str | None:
    """What ``facts`` (a FactSet) measure when the box is short of memory now (MemAvailable under the critical
    fraction with swap mostly used, or OOM kills since boot), else None (also for no facts)."""
    if facts is None or not hasattr(facts, "value"):
        return None
    ram = facts.value("ram_bytes")
    pressure = facts.value("memory_pressure") or {}
    swap = facts.value("swap") or {}
    available, ooms = pressure.get("available_bytes"), pressure.get("oom_kills")
    used, total = swap.get("used_bytes") or 0, swap.get("total_bytes") or 0
    low = available is not None and ram and available < threshold("memory_available_critical_fraction") * ram
    swapped = total and used / total >= threshold("swap_used_high_fraction")
    if not ooms and not (low and swapped):
        return None
    parts = ([f"only {format_gib(available)} of {format_gib(ram)} available"] if available is not None else []) + (
        [f"{format_gib(used)} of {format_gib(total)} swap in use"] if total else []) + ([f"{plural(ooms, 'OOM kill')} since boot"] if ooms else [])
    return ", ".join(parts)


# what a box short of memory now gets no raise of, in every set and output (the audit's pg-work-mem-low holds work_mem;
# Puma workers are held by the change set's own check): each connection's sorts may take work_mem each
SHORTAGE_HOLDS = ("postgresql.work_mem",)


def hold_when_short(plan: Any, shortage: str | None) -> Any:
    """``plan`` with each raise of :data:`SHORTAGE_HOLDS` held at the installer's value while the box measures
    ``shortage`` (what :func:`measured_shortage` says), the reason saying so; ``plan`` itself when it does not."""
    if not shortage:
        return plan
    tunables = dict(plan.tunables)
    for tid in SHORTAGE_HOLDS:
        t = tunables.get(tid)
        if t is None or not t.differs or t.installer.value is None:
            continue
        held = t.foretune._replace(value=t.installer.value, reason=f"held at {t.installer.value}: the box measures {shortage}; "
                                                               f"no raise while it is short of memory now ({t.foretune.reason})")
        fixes = tuple(f._replace(value=t.installer.value) if f.kind in ("hiera", "installer") else f for f in t.fixes)
        tunables[tid] = t._replace(foretune=held, fixes=fixes)
    return plan._replace(tunables=tunables)
