"""A Capsule serves more hosts than Capsules of its size were tested with."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity


class CapsuleHostsBeyondTested(Rule):
    id = "capsule-hosts-beyond-tested"
    title = "Hosts per Capsule within the tested figures"
    component = "capacity"
    severity = Severity.MEDIUM
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
            return self.passed(f"{ctx.hosts} hosts on {cpus} CPUs (about {limit} tested)")
        return self.failed(f"{ctx.hosts} hosts on a {cpus}-CPU Capsule; Capsules of this size were tested with about {limit}",
                           current=ctx.hosts, recommended=limit, evidence=ctx.evidence("cpu_logical", "managed_hosts"))


RULE = CapsuleHostsBeyondTested()
