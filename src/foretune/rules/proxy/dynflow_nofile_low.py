"""The Smart Proxy's dynflow runs with a low open-files limit."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import nofile_text, service_nofile

UNITS = ("smart_proxy_dynflow_core", "foreman-proxy")


class ProxyDynflowNofileLow(PlanRule):
    id = "proxy-dynflow-nofile-low"
    title = "Smart Proxy dynflow LimitNOFILE at the installer's value"
    component = "proxy"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("socket_exhaustion", ("foreman-proxy", "smart_proxy_dynflow_core")),)
    needs = ("service_limits",)
    citations = ("proxy-dynflow-nofile", "g62-remote-execution")
    tunable = "smart_proxy_dynflow.limit_nofile"

    def check(self, ctx: Context) -> Outcome:
        limits = ctx.facts.value("service_limits")
        found = [(u, service_nofile(limits, u)) for u in UNITS if service_nofile(limits, u) is not None]
        if ctx.release is not None and not ctx.release.features.custom_hiera and found and found[0][0] != UNITS[0]:
            # Satellite 6.2 runs remote execution's dynflow in its own smart_proxy_dynflow_core service; foreman-proxy's
            # limit is not the one its SSH connections use
            return self.skipped("smart_proxy_dynflow_core (remote execution) is not running on this host")
        if not found:
            return self.skipped("Smart Proxy dynflow service limits not in the source")
        unit, current = found[0]
        t = self.recommendation(ctx)
        if current is not None and current >= t.foretune.value:
            return self.passed(f"{unit} open files {nofile_text(limits, unit)}")
        evidence = ctx.evidence("service_limits", about=f"{unit}.service")
        if (ctx.facts.value("mqtt") or {}).get("pull_rex") and ctx.role == "capsule":
            # a Smart Proxy uses one transport; in pull-MQTT mode the hosts fetch their jobs over MQTT (mosquitto holds
            # their connections), so this limit holds no SSH connection per host: below the installer's value, low
            return self.failed(f"{unit} open files {nofile_text(limits, unit)}, below the installer's {t.foretune.value}; "
                               "remote execution here is pull-MQTT (mosquitto holds the hosts' connections, see "
                               "mosquitto-nofile-low), so no SSH connection per host needs it", current=current,
                               recommended=t.foretune.value, evidence=(*evidence, *ctx.evidence("mqtt")), fixes=t.fixes,
                               severity=Severity.LOW, citations=("proxy-dynflow-nofile", "gf-pull-rex"))
        return self.failed(f"{unit} open files {nofile_text(limits, unit)}: SSH remote execution to many hosts runs out of descriptors",
                           current=current, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes)


RULE = ProxyDynflowNofileLow()
