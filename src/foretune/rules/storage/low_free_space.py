"""Key directories are nearly full."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.storage._evidence import space_evidence
from foretune.units import format_gib


class LowFreeSpace(Rule):
    id = "low-free-space"
    title = "Free space on the key directories"
    component = "storage"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("key_dirs",)
    citations = ("gf-hardware",)

    def check(self, ctx: Context) -> Outcome:
        low, critical = threshold("free_space_min_fraction"), threshold("free_space_critical_fraction")
        worst: tuple[float, str, dict] | None = None  # type: ignore[type-arg]
        seen = set()
        for path, entry in sorted(ctx.facts.value("key_dirs").items()):
            size, free = entry.get("size_bytes"), entry.get("free_bytes")
            if not size or free is None or entry.get("mountpoint") in seen:
                continue
            seen.add(entry.get("mountpoint"))
            share = free / size
            if worst is None or share < worst[0]:
                worst = (share, path, entry)
        if worst is None:
            return self.skipped("no sizes for the key directories")
        share, path, entry = worst
        if share >= low:
            return self.passed(f"fullest key directory {path}: {share:.0%} free")
        return self.failed(f"{path} has {share:.0%} free ({format_gib(entry['free_bytes'])} of {format_gib(entry['size_bytes'])})",
                           current=f"{share:.0%} free", recommended=f">= {low:.0%} free", evidence=space_evidence(ctx, entry["mountpoint"]),
                           severity=Severity.HIGH if share < critical else None)


RULE = LowFreeSpace()
