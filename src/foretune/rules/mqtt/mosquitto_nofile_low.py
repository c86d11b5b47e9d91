"""mosquitto's open-files limit below the pull-REX host count."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import service_nofile


class MosquittoNofileLow(PlanRule):
    id = "mosquitto-nofile-low"
    title = "mosquitto LimitNOFILE covers the pull-REX hosts"
    component = "mqtt"
    severity = Severity.HIGH
    needs = ("service_limits",)
    citations = ("gf-pull-rex",)
    tunable = "mosquitto.limit_nofile"

    def check(self, ctx: Context) -> Outcome:
        current = service_nofile(ctx.facts.value("service_limits"), "mosquitto")
        if current is None:
            return self.skipped("mosquitto.service limits not in the source")
        t = self.recommendation(ctx)
        if current >= t.foretune.value:
            return self.passed(f"mosquitto LimitNOFILE={current} for {ctx.hosts} hosts")
        return self.failed(f"mosquitto LimitNOFILE={current}: only about that many pull-REX hosts can stay connected "
                           f"({ctx.hosts} managed)", current=current, recommended=t.foretune.value,
                           evidence=ctx.evidence("service_limits", "mqtt"), fixes=t.fixes)


RULE = MosquittoNofileLow()
