"""Less swap than the system requirements ask for."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.units import format_gib


class SwapNotConfigured(Rule):
    id = "swap-not-configured"
    title = "At least 4 GiB of swap configured"
    component = "os"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("swap",)
    citations = ("fd-system-requirements", "foretune-estimate")
    unit = "bytes"

    def check(self, ctx: Context) -> Outcome:
        total = ctx.facts.value("swap").get("total_bytes") or 0
        want = threshold("swap_min_bytes")
        if total >= want * threshold("swap_min_fraction_accepted"):
            return self.passed(f"{format_gib(total)} of swap configured")
        return self.failed(f"only {format_gib(total)} of swap; the requirements ask for {format_gib(want)} as a safety net",
                           current=total, recommended=want, evidence=ctx.evidence("swap"))


RULE = SwapNotConfigured()
