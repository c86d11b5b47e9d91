"""The CPU frequency governor saves power at the cost of latency (proxy for BIOS power settings)."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity


class CpuGovernorNotPerformance(Rule):
    id = "cpu-governor-powersave"
    title = "CPU frequency governor set for performance"
    component = "os"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("cpu_governor",)
    citations = ("gf-hardware",)

    def check(self, ctx: Context) -> Outcome:
        governor = ctx.facts.value("cpu_governor")
        if governor in (None, "performance", "schedutil"):
            return self.passed(f"governor: {governor or 'none (managed by the hypervisor)'}")
        return self.failed(f"CPU governor {governor}: CPUs clock down between requests",
                           current=governor, recommended="performance", evidence=ctx.evidence("cpu_governor"),
                           fixes=(Fix("command", "tuned-adm profile throughput-performance"),
                                  Fix("advice", "BIOS", "set the BIOS power profile to maximum performance")))


RULE = CpuGovernorNotPerformance()
