"""MaxKeepAliveRequests limits requests per connection (Passenger era)."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.rules.apache._keepalive import KeepAliveRule
from foretune.rules.base import Context, Evidence, Outcome, Severity


class MaxKeepAliveRequests(KeepAliveRule):
    id = "apache-max-keepalive-requests"
    title = "MaxKeepAliveRequests unlimited"
    component = "apache"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: "Example capsule Apache configuration tuning: KeepAlive On"
    needs = ("apache",)
    citations = ("g62-apache", "httpd-defaults")
    tunable = "apache.max_keepalive_requests"

    def check(self, ctx: Context) -> Outcome:
        value = ctx.facts.value("apache").get("MaxKeepAliveRequests")
        if value == 0:
            return self.passed("MaxKeepAliveRequests 0 (unlimited)")
        t = self.recommendation(ctx)
        default = module_default("httpd", "max_keepalive_requests")
        return self.failed(f"MaxKeepAliveRequests {value if value is not None else f'{default} (default)'}: clients reconnect "
                           "after that many requests", current=value if value is not None else default, recommended=0,
                           evidence=self._evidence(ctx, value, default), fixes=t.fixes)

    @staticmethod
    def _evidence(ctx: Context, value: object, default: object) -> tuple[Evidence, ...]:
        """The directive's lines; when no file sets it, the Apache files read, quoted for what they lack."""
        evidence = ctx.evidence("apache", about="MaxKeepAliveRequests")
        if value is not None:
            return evidence
        return tuple(Evidence(e.fact, e.location, note=f"no line sets MaxKeepAliveRequests; Apache's default {default} applies")
                     for e in dict.fromkeys(Evidence(e.fact, e.location) for e in evidence))


RULE = MaxKeepAliveRequests()
