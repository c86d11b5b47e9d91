"""The development tuning profile on a production server."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.values import installer_command
from foretune.term import plural
from foretune.units import GIB, format_bytes


class DevelopmentProfile(Rule):
    id = "development-profile-in-use"
    title = "Not running the development profile"
    component = "installer"
    severity = Severity.HIGH
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("tuning_profile",)
    citations = ("fi-tuning-hook",)

    def check(self, ctx: Context) -> Outcome:
        profile = ctx.facts.value("tuning_profile")
        if profile != "development":
            return self.passed(f"profile {profile}")
        want = ctx.plan.profile if ctx.plan and ctx.plan.profile != "development" else None
        if want is None:  # the declared profile is the one to leave: the largest the hardware carries
            cpus, ram = ctx.facts.value("cpu_logical"), ctx.facts.value("ram_bytes")
            want = (hardware.largest_supported(int(cpus), int(ram)) if cpus and ram else None) or "default"
        dev = hardware.recommended("development")
        return self.failed(f"the development profile is for test boxes ({plural(dev.cores, 'CPU')}, {format_bytes(dev.ram_gib * GIB)}); "
                           "it is not sized for hosts",
                           current=profile, recommended=want, evidence=ctx.evidence("tuning_profile"),
                           fixes=(Fix("command", f"{installer_command(ctx.facts.value('product'))} --tuning {want}"),))


RULE = DevelopmentProfile()
