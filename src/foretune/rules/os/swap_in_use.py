"""Swap is in use: the guides' rule is that a Satellite never swaps."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.values import gib


class SwapInUse(Rule):
    id = "swap-in-use"
    title = "No swap in use"
    component = "os"
    severity = Severity.MEDIUM
    needs = ("swap",)
    citations = ("g62-memory",)
    unit = "bytes"

    def check(self, ctx: Context) -> Outcome:
        swap = ctx.facts.value("swap")
        used, total = swap.get("used_bytes") or 0, swap.get("total_bytes") or 0
        if used <= threshold("swap_used_tolerance_bytes"):
            return self.passed(f"{gib(used)} of swap in use")
        high = total and used / total >= threshold("swap_used_high_fraction")
        return self.failed(f"{gib(used)} of {gib(total)} swap in use: the box is short of memory for its services",
                           current=used, recommended=0, evidence=ctx.evidence("swap", "ram_bytes"),
                           severity=Severity.HIGH if high else None)


RULE = SwapInUse()
