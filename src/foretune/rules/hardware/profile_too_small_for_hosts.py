"""The active tuning profile is meant for fewer hosts than the server manages."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.recommend import profile_now
from foretune.rules.values import installer_command


class ProfileTooSmallForHosts(Rule):
    id = "profile-too-small-for-hosts"
    title = "Tuning profile fits the managed host count"
    component = "hardware"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("tuning_profile",)
    citations = ("gf-quickstart", "fi-tuning-hook")

    def check(self, ctx: Context) -> Outcome:
        if ctx.hosts is None or ctx.hosts_assumed:
            return self.skipped("managed host count unknown (pass --hosts)")
        profile = ctx.facts.value("tuning_profile")
        if profile not in SIZES:
            return self.skipped(f"profile {profile!r} has no host range")
        change = profile_now(ctx)
        if change is None:
            return self.passed(f"{profile} covers {ctx.hosts} hosts")
        wanted = change.needed
        low, high = hardware.host_range(profile)
        command = installer_command(ctx.facts.value("product"))
        counted = ctx.facts.value("managed_hosts")
        given = ctx.host_figure is not None and ctx.host_figure.source == "--hosts" and counted not in (None, ctx.hosts)
        message = (f"{profile} is meant for {low}-{high} hosts; {ctx.hosts} hosts"
                   + (f" (given with --hosts; the source counts {counted})" if given else "") + f" need {wanted}")
        fixes: tuple[Fix, ...] = (Fix("command", f"{command} --tuning {wanted}"),)
        evidence = ctx.evidence("tuning_profile") + ctx.hosts_evidence()
        need = change.refused
        if need is not None:  # the installer's hardware check would refuse the profile: hardware first
            message += (f", but the installer refuses --tuning {wanted} on {change.box} (its hardware check needs {need.cores} "
                        f"CPUs and {need.ram_gib:g} GiB less the {100 - hardware.ram_allowance() * 100:.0f} % allowance): "
                        f"add hardware first")
            fixes = (Fix("advice", "hardware", f"add hardware to {need.cores} CPUs and {need.ram_gib:g} GiB, then "
                                               f"{command} --tuning {wanted}"),)
            if change.now is not None:
                message += f"; until then {change.now} is the largest profile it accepts here"
                fixes += (Fix("command", f"{command} --tuning {change.now}"),)
            evidence += ctx.evidence("cpu_logical", "ram_bytes")
        return self.failed(message, current=profile, recommended=wanted, evidence=evidence, fixes=fixes,
                           severity=Severity.HIGH if SIZES.index(wanted) - SIZES.index(profile) > 1 else None)


RULE = ProfileTooSmallForHosts()
