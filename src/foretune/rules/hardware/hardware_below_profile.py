"""The box is smaller than the tuning profile it runs."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.units import format_gib


class HardwareBelowProfile(Rule):
    id = "hardware-below-profile"
    title = "CPUs and RAM meet the active tuning profile"
    component = "hardware"
    severity = Severity.HIGH
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("tuning_profile", "cpu_logical", "ram_bytes")
    citations = ("fi-tuning-hook", "gf-quickstart")

    def check(self, ctx: Context) -> Outcome:
        profile = ctx.facts.value("tuning_profile")
        if profile not in (*SIZES, "development"):
            return self.skipped(f"unknown tuning profile {profile!r}")
        need = hardware.recommended(profile)
        cpus, ram = ctx.facts.value("cpu_logical"), ctx.facts.value("ram_bytes")
        evidence = ctx.evidence("tuning_profile", "cpu_logical", "ram_bytes")
        have = f"{cpus} CPUs, {format_gib(ram)}"
        want = f"{need.cores} CPUs, {need.ram_gib:g} GiB ({hardware.ram_allowance() * 100:g} % = {need.ram_gib * hardware.ram_allowance():.1f} GiB)"
        if need.met_by(cpus, ram):
            return self.passed(f"{have} meets the {profile} profile ({want})")
        fits = hardware.largest_supported(cpus, ram) or "none"
        return self.failed(f"{have} is below the {profile} profile, which needs {want}; this box fits: {fits}",
                           current=have, recommended=want, evidence=evidence)


RULE = HardwareBelowProfile()
