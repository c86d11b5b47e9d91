"""Too little space in /var/lib/qpidd for the katello-agent hosts."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import gib


class QpiddStorageLow(PlanRule):
    id = "qpidd-storage-low"
    title = "/var/lib/qpidd has 2 MiB per katello-agent host"
    component = "storage"
    severity = Severity.MEDIUM
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
        from foretune.plan.constants import const

        need = const("qpidd_storage_per_host_mib") * 1024**2 * (ctx.hosts or 0)
        if entry["free_bytes"] >= need:
            return self.passed(f"{gib(entry['free_bytes'])} free in /var/lib/qpidd for {ctx.hosts} hosts")
        return self.failed(f"/var/lib/qpidd has {gib(entry['free_bytes'])} free; {ctx.hosts} katello-agent hosts need {gib(need)}",
                           current=entry["free_bytes"], recommended=need, evidence=ctx.evidence("key_dirs", about=entry["mountpoint"]))


RULE = QpiddStorageLow()
