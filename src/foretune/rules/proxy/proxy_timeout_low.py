"""A Capsule keeps Apache's default proxy timeout; the guide raises it to 600 s for high concurrency."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity

GUIDE_TIMEOUT = 600  # apache::mod::proxy::proxy_timeout in the guide
APACHE_DEFAULT = 60  # Apache's Timeout, which ProxyTimeout defaults to


class ProxyTimeoutLow(Rule):
    id = "capsule-proxy-timeout"
    title = "Capsule proxy timeout raised for high concurrency"
    component = "proxy"
    severity = Severity.LOW
    roles = frozenset({"capsule"})
    needs = ("apache",)
    citations = ("gf-proxy-timeout",)

    def check(self, ctx: Context) -> Outcome:
        current = ctx.facts.value("apache").get("ProxyTimeout")
        if current is not None and current >= GUIDE_TIMEOUT:
            return self.passed(f"ProxyTimeout {current}")
        shown = current if current is not None else f"not set (Apache's Timeout, {APACHE_DEFAULT} s by default)"
        return self.failed(f"ProxyTimeout {shown}: during registration bursts Capsule-to-server calls time out",
                           current=current, recommended=GUIDE_TIMEOUT,
                           evidence=ctx.evidence("apache", about="ProxyTimeout"),
                           fixes=(Fix("hiera", "apache::mod::proxy::proxy_timeout", GUIDE_TIMEOUT),))


RULE = ProxyTimeoutLow()
