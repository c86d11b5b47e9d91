"""The hypervisor takes CPU time from this VM (sar %steal)."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity


class CpuStealHigh(Rule):
    id = "cpu-steal-high"
    title = "Little CPU steal on a virtual machine"
    component = "os"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    basis = Basis.MEASURED
    needs = ("cpu_steal",)
    citations = ("g62-tuned", "foretune-estimate")

    def check(self, ctx: Context) -> Outcome:
        steal = ctx.facts.value("cpu_steal")
        try:
            mean, peak = float(steal["mean_percent"]), float(steal["max_percent"])
        except (KeyError, TypeError, ValueError):
            return self.skipped("cpu_steal has no mean_percent and max_percent figures")
        span = f"over {steal['samples']} sar samples in {steal['reports']} daily reports"
        if mean >= threshold("cpu_steal_mean_max_percent"):
            return self.failed(f"the hypervisor took {mean:.1f} % of CPU time on average (peak {peak:.1f} %) {span}: the "
                               "VM's CPUs are overcommitted on its host", current=f"{mean:.1f} %",
                               recommended=f"< {threshold('cpu_steal_mean_max_percent')} %",
                               evidence=ctx.evidence("cpu_steal"))
        if peak >= threshold("cpu_steal_peak_max_percent"):
            return self.failed(f"CPU steal peaked at {peak:.1f} % (average {mean:.1f} %) {span}: bursts slow down when the "
                               "host is busy", current=f"{peak:.1f} %", recommended=f"< {threshold('cpu_steal_peak_max_percent')} %",
                               evidence=ctx.evidence("cpu_steal"), severity=Severity.LOW)
        return self.passed(f"CPU steal average {mean:.1f} %, peak {peak:.1f} % {span}")


RULE = CpuStealHigh()
