"""A Capsule keeps Apache's default proxy timeout; the guide raises it to 600 s for high concurrency."""

from __future__ import annotations

from foretune.knowledge import module_default, threshold
from foretune.rules.base import Context, Evidence, Outcome, Rule, Severity


class ProxyTimeoutLow(Rule):
    id = "capsule-proxy-timeout"
    title = "Capsule proxy timeout raised for high concurrency"
    component = "proxy"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"capsule"})
    needs = ("apache",)
    citations = ("gf-proxy-timeout", "httpd-defaults")

    def applies(self, ctx: Context) -> str | None:
        if ctx.release is not None and not ctx.release.features.custom_hiera:
            return f"{ctx.release.label}'s brief gives no proxy timeout for Capsules (the Foreman tuning guide's 600 s is later)"
        return None

    def check(self, ctx: Context) -> Outcome:
        current = ctx.facts.value("apache").get("ProxyTimeout")
        want = threshold("capsule_proxy_timeout_min")
        if current is not None and current >= want:
            return self.passed(f"ProxyTimeout {current}")
        shown = current if current is not None else f"not set (Apache's Timeout, {module_default('httpd', 'timeout')} s by default)"
        return self.failed(f"ProxyTimeout {shown}: during registration bursts Capsule-to-server calls time out",
                           current=current, recommended=want,
                           evidence=ctx.evidence("apache", about="ProxyTimeout") if current is not None else
                           (Evidence("apache", "etc/httpd/", note="no line of the httpd configuration sets ProxyTimeout"),),
                           fixes=(ctx.hiera_fix("apache::mod::proxy::proxy_timeout", want),))


RULE = ProxyTimeoutLow()
