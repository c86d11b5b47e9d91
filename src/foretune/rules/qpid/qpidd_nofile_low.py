"""qpidd open-files limit below 4 x hosts + 500."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.qpid._qpid import nofile_check


class QpiddNofileLow(PlanRule):
    id = "qpidd-nofile-low"
    title = "qpidd LimitNOFILE covers the katello-agent hosts"
    component = "qpid"
    severity = Severity.HIGH
    failing_when = (("socket_exhaustion", ("qpidd",)), ("queue_at_capacity", ("qpidd",)))
    uses_hosts = True
    needs = ("qpid",)
    citations = ("g69-qpid",)
    tunable = "qpidd.limit_nofile"

    def check(self, ctx: Context) -> Outcome:
        return nofile_check(self, ctx, "qpidd_nofile", "qpidd")


RULE = QpiddNofileLow()
