"""KeepAliveTimeout outside 2-5 seconds (Passenger era)."""

from __future__ import annotations

from foretune.knowledge import module_default, threshold
from foretune.rules.apache._keepalive import KeepAliveRule
from foretune.rules.base import Context, Outcome, Severity


class KeepAliveTimeout(KeepAliveRule):
    id = "apache-keepalive-timeout"
    title = "KeepAliveTimeout between 2 and 5 seconds"
    component = "apache"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: "Example capsule Apache configuration tuning: KeepAlive On"
    needs = ("apache",)
    citations = ("g62-apache", "httpd-defaults")
    tunable = "apache.keepalive_timeout"

    def check(self, ctx: Context) -> Outcome:
        timeout = ctx.facts.value("apache").get("KeepAliveTimeout")
        if timeout is None:
            return self.skipped(f"KeepAliveTimeout not set (httpd default {module_default('httpd', 'keepalive_timeout')} s)")
        low, high = threshold("keepalive_timeout_min"), threshold("keepalive_timeout_max")
        if low <= timeout <= high:
            return self.passed(f"KeepAliveTimeout {timeout}")
        t = self.recommendation(ctx)
        why = "idle connections hold httpd processes" if timeout > high else "connections close before the next request"
        return self.failed(f"KeepAliveTimeout {timeout} s: {why}", current=timeout, recommended=t.foretune.value,
                           evidence=ctx.evidence("apache", about="KeepAliveTimeout"), fixes=t.fixes)


RULE = KeepAliveTimeout()
