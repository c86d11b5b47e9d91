"""tuned is not running or has no active profile."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class TunedNotRunning(PlanRule):
    id = "tuned-not-running"
    title = "tuned running with an active profile"
    component = "os"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    needs = ("tuned",)
    citations = ("g62-tuned", "gf-hardware")
    tunable = "os.tuned_profile"

    def check(self, ctx: Context) -> Outcome:
        tuned = ctx.facts.value("tuned")
        t = self.recommendation(ctx)
        if tuned.get("running") and tuned.get("active"):
            return self.passed(f"tuned runs profile {tuned['active']}")
        if tuned.get("running"):  # the unit runs; which profile it applies is not in the source (no `tuned-adm active`)
            return self.skipped("tuned.service is active, but its profile is not in the source (no `tuned-adm active` "
                                "output): whether it applies one cannot be judged")
        return self.failed("tuned is not running: the box uses kernel defaults for latency and I/O",
                           current="not running", recommended=t.foretune.value, evidence=ctx.evidence("tuned"), fixes=t.fixes)


RULE = TunedNotRunning()
