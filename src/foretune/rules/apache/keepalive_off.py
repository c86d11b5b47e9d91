"""KeepAlive is off (Passenger era)."""

from __future__ import annotations

from foretune.rules.apache._keepalive import KeepAliveRule
from foretune.rules.base import Context, Outcome, Severity


class KeepAliveOff(KeepAliveRule):
    id = "apache-keepalive-off"
    title = "Apache KeepAlive on"
    component = "apache"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: "Example capsule Apache configuration tuning: KeepAlive On"
    needs = ("apache",)
    citations = ("g62-apache",)
    tunable = "apache.keepalive"

    def check(self, ctx: Context) -> Outcome:
        keepalive = ctx.facts.value("apache").get("KeepAlive")
        if keepalive is not False:
            return self.passed("KeepAlive on")
        t = self.recommendation(ctx)
        return self.failed("KeepAlive off: every request opens a new TCP/TLS connection", current="Off", recommended="On",
                           evidence=ctx.evidence("apache", about="KeepAlive"), fixes=t.fixes)


RULE = KeepAliveOff()
