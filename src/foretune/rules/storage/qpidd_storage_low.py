"""Too little space in /var/lib/qpidd for the katello-agent hosts."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.storage._evidence import space_evidence
from foretune.units import format_gib


class QpiddStorageLow(PlanRule):
    id = "qpidd-storage-low"
    title = "/var/lib/qpidd has 2 MiB per katello-agent host"
    component = "storage"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    unsafe_fix = True
    uses_hosts = True
    roles = frozenset({"server", "capsule"})
    needs = ("key_dirs",)
    citations = ("g69-qpid",)
    unit = "bytes"
    tunable = "qpidd.storage_bytes"

    def check(self, ctx: Context) -> Outcome:
        entry = ctx.facts.value("key_dirs").get("/var/lib/qpidd")
        if not entry or entry.get("free_bytes") is None:
            return self.skipped("/var/lib/qpidd not present")
        assert ctx.plan is not None
        need = self.recommendation(ctx).foretune.value  # the plan's 2 MiB per katello-agent host
        agents = ctx.plan.input.katello_agent_hosts
        if entry["free_bytes"] >= need:
            return self.passed(f"{format_gib(entry['free_bytes'])} free in /var/lib/qpidd for {agents} katello-agent hosts")
        if ctx.hosts_assumed:  # an assumed figure: how many hosts the free space holds
            per = const("qpidd_storage_per_host_mib")
            holds = entry["free_bytes"] // (per * 1024**2)
            return self.failed(f"/var/lib/qpidd's {format_gib(entry['free_bytes'])} free hold up to {holds} katello-agent hosts "
                               f"({per} MiB per host, the guide); below {holds} hosts it is enough", current=entry["free_bytes"],
                               recommended=need, evidence=space_evidence(ctx, entry["mountpoint"]))
        return self.failed(f"/var/lib/qpidd has {format_gib(entry['free_bytes'])} free; {agents} katello-agent hosts need {format_gib(need)}",
                           current=entry["free_bytes"], recommended=need, evidence=space_evidence(ctx, entry["mountpoint"]))


RULE = QpiddStorageLow()
