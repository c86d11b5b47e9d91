"""Apache runs a different MPM than the installer manages for this release."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class MpmUnexpected(PlanRule):
    id = "apache-mpm-unexpected"
    title = "Apache MPM is the one the installer manages"
    component = "apache"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("apache",)
    citations = ("fi-event-mpm",)
    tunable = "apache.mpm"

    def check(self, ctx: Context) -> Outcome:
        mpm = ctx.facts.value("apache").get("mpm")
        want = self.recommendation(ctx).foretune.value
        if mpm == want:
            return self.passed(f"{mpm} MPM")
        return self.failed(f"Apache runs {mpm}; this release's installer manages {want}, so its tuning keys do not apply",
                           current=mpm, recommended=want, evidence=ctx.evidence("apache", about=("LoadModule", "ServerLimit")))


RULE = MpmUnexpected()
