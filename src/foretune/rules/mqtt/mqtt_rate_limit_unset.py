"""No MQTT rate limit on a Smart Proxy with thousands of pull-REX hosts."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.mqtt import pull_rex_not_planned


class MqttRateLimitUnset(PlanRule):
    id = "mqtt-rate-limit-unset"
    title = "MQTT rate limit set at scale"
    component = "mqtt"
    severity = Severity.LOW
    version_added = "0.1.0"
    uses_hosts = True
    needs = ("mqtt",)
    citations = ("gf-pull-rex", "foretune-estimate")
    tunable = "mqtt.rate_limit"

    def not_planned(self, ctx: Context) -> str:
        return pull_rex_not_planned(ctx)

    def check(self, ctx: Context) -> Outcome:
        mqtt = ctx.facts.value("mqtt")
        if not mqtt.get("pull_rex"):
            return self.skipped("pull-based REX is not enabled")
        t = self.recommendation(ctx)
        if t.foretune.value is None or mqtt.get("rate_limit"):
            return self.passed(f"rate limit {mqtt.get('rate_limit') or 'unlimited'} for {ctx.hosts} hosts")
        if ctx.hosts_assumed:  # the verdict would rest on an assumed figure: say from where a limit is asked for
            return self.failed(f"no MQTT rate limit: none is needed up to {const('mqtt_rate_limit_from_hosts')} pull-REX hosts "
                               "(a foretune estimate); beyond, a large job notifies them all at once and exhausts the Smart Proxy",
                               current=None, recommended=t.foretune.value, evidence=ctx.evidence("mqtt"), fixes=t.fixes)
        return self.failed(f"no MQTT rate limit with {ctx.hosts} pull-REX hosts: a large job notifies them all at once "
                           "and exhausts the Smart Proxy", current=None, recommended=t.foretune.value,
                           evidence=ctx.evidence("mqtt"), fixes=t.fixes)


RULE = MqttRateLimitUnset()
