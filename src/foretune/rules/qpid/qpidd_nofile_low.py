"""qpidd open-files limit: the 6.2 brief's 1000000, later 4 x katello-agent hosts + 500."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.qpid._qpid import nofile_check


class QpiddNofileLow(PlanRule):
    id = "qpidd-nofile-low"
    title = "qpidd LimitNOFILE covers the katello-agent hosts"
    component = "qpid"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("socket_exhaustion", ("qpidd",)), ("queue_at_capacity", ("qpidd",)))
    uses_hosts = True
    needs = ("qpid",)
    citations = ("g62-qpid", "g69-qpid")
    tunable = "qpidd.limit_nofile"

    def check(self, ctx: Context) -> Outcome:
        return nofile_check(self, ctx, "qpidd_nofile", "qpidd")


RULE = QpiddNofileLow()
