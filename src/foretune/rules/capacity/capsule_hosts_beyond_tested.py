"""A Capsule serves more hosts than foretune estimates for its size from the guide's Smart Proxy tests."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.term import article


class CapsuleHostsBeyondTested(Rule):
    id = "capsule-hosts-beyond-tested"
    title = "Hosts per Capsule within the estimate for its size"
    component = "capacity"
    severity = Severity.LOW  # the limit is a foretune estimate, nothing measured: it alone raises no medium finding
    version_added = "0.1.0"
    unsafe_fix = True
    uses_hosts = True
    roles = frozenset({"capsule"})
    needs = ("cpu_logical",)
    citations = ("gf-proxy", "capsule-puppet")

    def check(self, ctx: Context) -> Outcome:
        if ctx.hosts is None or ctx.hosts_assumed:
            return self.skipped("host count of this Capsule unknown (pass --hosts)")
        cpus = ctx.facts.value("cpu_logical")
        limit = threshold("capsule_hosts_per_cpu") * cpus
        if ctx.hosts <= limit:
            return self.passed(f"{ctx.hosts} hosts on {cpus} CPUs (foretune estimate for this size: about {limit})")
        return self.failed(f"{ctx.hosts} hosts on {article(cpus)} {cpus}-CPU Capsule; foretune estimates about {limit} for this size "
                           "(the guide's 4-CPU Smart Proxy finished remote execution on 2000 hosts, not on 4000)",
                           current=ctx.hosts, recommended=limit, evidence=ctx.evidence("cpu_logical") + ctx.hosts_evidence())


RULE = CapsuleHostsBeyondTested()
