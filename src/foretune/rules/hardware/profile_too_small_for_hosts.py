"""The active tuning profile is meant for fewer hosts than the server manages."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.values import installer_command


class ProfileTooSmallForHosts(Rule):
    id = "profile-too-small-for-hosts"
    title = "Tuning profile fits the managed host count"
    component = "hardware"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("tuning_profile",)
    citations = ("gf-quickstart",)

    def check(self, ctx: Context) -> Outcome:
        if ctx.hosts is None or ctx.hosts_assumed:
            return self.skipped("managed host count unknown (pass --hosts)")
        profile = ctx.facts.value("tuning_profile")
        wanted = hardware.profile_for_hosts(ctx.hosts)
        if profile not in SIZES:
            return self.skipped(f"profile {profile!r} has no host range")
        if SIZES.index(profile) >= SIZES.index(wanted):
            return self.passed(f"{profile} covers {ctx.hosts} hosts")
        low, high = hardware.host_range(profile)
        return self.failed(f"{profile} is meant for {low}-{high} hosts; {ctx.hosts} hosts need {wanted}",
                           current=profile, recommended=wanted, evidence=ctx.evidence("tuning_profile", "managed_hosts"),
                           fixes=(Fix("command", f"{installer_command(ctx.facts.value('product'))} --tuning {wanted}"),),
                           severity=Severity.HIGH if SIZES.index(wanted) - SIZES.index(profile) > 1 else None)


RULE = ProfileTooSmallForHosts()
