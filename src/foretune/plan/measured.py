"""What a source measures of the box's memory now: the shortage that holds every raise of a memory tunable.

The audit's memory rules and the change sets of `plan --from` and `apply` read the same measure, so that a box
the audit calls short of memory gets no memory raise from any path.
"""

from __future__ import annotations

from typing import Any

from foretune.knowledge import threshold
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
        [f"{format_gib(used)} of {format_gib(total)} swap in use"] if total else []) + ([f"{ooms} OOM kills since boot"] if ooms else [])
    return ", ".join(parts)
