"""mosquitto's open-files limit below the pull-REX host count."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.mqtt import pull_rex_not_planned
from foretune.rules.values import nofile_text, service_nofile


class MosquittoNofileLow(PlanRule):
    id = "mosquitto-nofile-low"
    title = "mosquitto LimitNOFILE covers the pull-REX hosts"
    component = "mqtt"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("socket_exhaustion", ("mosquitto",)),)
    uses_hosts = True
    needs = ("service_limits",)
    citations = ("gf-pull-rex",)
    tunable = "mosquitto.limit_nofile"

    def not_planned(self, ctx: Context) -> str:
        return pull_rex_not_planned(ctx, broker=True)

    def check(self, ctx: Context) -> Outcome:
        limits = ctx.facts.value("service_limits")
        current = service_nofile(limits, "mosquitto")
        if current is None:
            return self.skipped("mosquitto.service limits not in the source")
        t = self.recommendation(ctx)
        if current >= t.foretune.value:
            return self.passed(f"mosquitto open files {nofile_text(limits, 'mosquitto')} for {ctx.hosts} hosts")
        if ctx.hosts_assumed:  # the verdict would rest on an assumed figure: say how many hosts the limit in force holds
            holds = int(current / (1 + const("mosquitto_headroom")))
            return self.failed(f"mosquitto's {current} descriptors hold up to {holds} pull-REX hosts (one per host plus "
                               f"{const('mosquitto_headroom') * 100:.0f} % for reconnects, a foretune estimate); below {holds} "
                               "hosts the limit in force is enough", current=current, recommended=t.foretune.value,
                               evidence=ctx.evidence("service_limits", "mqtt", about=("mosquitto.service", "mosquitto")), fixes=t.fixes)
        return self.failed(f"mosquitto open files {nofile_text(limits, 'mosquitto')}: only about that many pull-REX hosts can stay connected "
                           f"({ctx.hosts} managed)", current=current, recommended=t.foretune.value,
                           evidence=ctx.evidence("service_limits", "mqtt", about=("mosquitto.service", "mosquitto")), fixes=t.fixes)


RULE = MosquittoNofileLow()
