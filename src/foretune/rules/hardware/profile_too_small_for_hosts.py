"""The active tuning profile is meant for fewer hosts than the server manages."""

from __future__ import annotations

from foretune.knowledge import hardware
from foretune.knowledge.model import SIZES
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.values import installer_command
from foretune.units import format_gib


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
        wanted = hardware.profile_for_hosts(ctx.hosts)
        if profile not in SIZES:
            return self.skipped(f"profile {profile!r} has no host range")
        if SIZES.index(profile) >= SIZES.index(wanted):
            return self.passed(f"{profile} covers {ctx.hosts} hosts")
        low, high = hardware.host_range(profile)
        command = installer_command(ctx.facts.value("product"))
        message = f"{profile} is meant for {low}-{high} hosts; {ctx.hosts} hosts need {wanted}"
        fixes: tuple[Fix, ...] = (Fix("command", f"{command} --tuning {wanted}"),)
        evidence = ctx.evidence("tuning_profile", "managed_hosts")
        refused = self._refused(ctx, wanted)
        if refused:  # the installer's hardware check would refuse the profile: hardware first
            need, have, accepted = refused
            message += (f", but the installer refuses --tuning {wanted} on {have} (its hardware check needs {need.cores} "
                        f"CPUs and {need.ram_gib:g} GiB less the {100 - hardware.ram_allowance() * 100:.0f} % allowance): "
                        f"add hardware first")
            fixes = (Fix("advice", "hardware", f"add hardware to {need.cores} CPUs and {need.ram_gib:g} GiB, then "
                                               f"{command} --tuning {wanted}"),)
            if accepted and SIZES.index(accepted) > SIZES.index(profile):
                message += f"; until then {accepted} is the largest profile it accepts here"
                fixes += (Fix("command", f"{command} --tuning {accepted}"),)
            evidence += ctx.evidence("cpu_logical", "ram_bytes")
        return self.failed(message, current=profile, recommended=wanted, evidence=evidence, fixes=fixes,
                           severity=Severity.HIGH if SIZES.index(wanted) - SIZES.index(profile) > 1 else None)

    @staticmethod
    def _refused(ctx: Context, wanted: str) -> tuple[hardware.Requirement, str, str | None] | None:
        """(the check, this box, the largest size the check accepts) when the installer refuses ``wanted`` here."""
        cpus, ram, version = (ctx.facts.value(n) for n in ("cpu_logical", "ram_bytes", "foreman_version"))
        if not isinstance(cpus, int) or not isinstance(ram, int) or not version:
            return None
        need = hardware.enforced(wanted, str(version))
        if need is None or need.met_by(cpus, ram):
            return None
        accepted = [name for name in SIZES if (req := hardware.enforced(name, str(version))) is not None and req.met_by(cpus, ram)]
        return need, f"{cpus} CPUs and {format_gib(ram)}", (accepted[-1] if accepted else None)


RULE = ProfileTooSmallForHosts()
