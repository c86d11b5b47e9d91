"""tuned runs a profile meant for the other kind of machine."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class TunedProfileMismatch(PlanRule):
    id = "tuned-profile-mismatch"
    title = "tuned profile fits a VM or bare metal"
    component = "os"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("tuned", "virtualization")
    citations = ("g62-tuned",)
    tunable = "os.tuned_profile"

    def check(self, ctx: Context) -> Outcome:
        active = ctx.facts.value("tuned").get("active")
        if not active:
            return self.skipped("tuned has no active profile (see tuned-not-running)")
        t = self.recommendation(ctx)
        want = t.foretune.value
        if active == want or (want == "throughput-performance" and active in ("latency-performance", "network-throughput")):
            return self.passed(f"tuned profile {active} fits")
        kind = "a VM" if ctx.facts.value("virtualization") != "none" else "bare metal"
        return self.failed(f"tuned profile {active} on {kind}; {want} is the guide's choice",
                           current=active, recommended=want, evidence=ctx.evidence("tuned", "virtualization"),
                           fixes=t.fixes[1:])


RULE = TunedProfileMismatch()
