"""qpidd management objects recycled every 10 s (katello-agent era)."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.rules.base import Context, Evidence, Outcome, PlanRule, Severity
from foretune.rules.qpid._qpid import qpidd_absent


class MgmtPubInterval(PlanRule):
    id = "qpid-mgmt-pub-interval"
    title = "qpidd mgmt-pub-interval lowered"
    component = "qpid"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("qpid",)
    citations = ("g62-qpid",)
    tunable = "qpid.mgmt_pub_interval"

    def applies(self, ctx: Context) -> str | None:
        return qpidd_absent(self, ctx)

    def check(self, ctx: Context) -> Outcome:
        configured = ctx.facts.value("qpid").get("mgmt_pub_interval")
        interval = configured or module_default("qpid_mgmt_pub_interval")
        t = self.recommendation(ctx)
        if interval <= t.foretune.value:
            return self.passed(f"mgmt-pub-interval {interval}")
        evidence = ctx.evidence("qpid")
        if not configured:  # the file is quoted for what it lacks, not for a line it does not have
            evidence = tuple(Evidence(e.fact, e.location, note=f"no line sets mgmt-pub-interval; qpidd's default {interval} applies") for e in evidence)
        return self.failed(f"mgmt-pub-interval {interval} s: if the journal shows 'Channel ... is not attached' errors, "
                           "the guide's workaround is a lower interval",
                           current=interval, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes)


RULE = MgmtPubInterval()
