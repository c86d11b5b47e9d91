"""fs.aio-max-nr below the 6.2 brief's 1000000 (6.2) or 33 x katello-agent hosts (later releases)."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.qpid._qpid import qpidd_absent


class AioMaxNrLow(PlanRule):
    id = "fs-aio-max-nr-low"
    title = "fs.aio-max-nr above 33 x hosts"
    component = "qpid"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    uses_hosts = True
    needs = ("sysctl",)
    citations = ("g62-qpid", "g69-qpid")
    tunable = "sysctl.fs_aio_max_nr"

    def applies(self, ctx: Context) -> str | None:
        return qpidd_absent(self, ctx)

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("sysctl").get("fs.aio-max-nr")
        if raw is None:
            return self.skipped("fs.aio-max-nr not in the source")
        current = int(raw)
        t = self.recommendation(ctx)
        assert ctx.plan is not None
        cites = ("g62-qpid",) if "g62-qpid" in t.foretune.citations else ("g69-qpid",)
        if current >= t.foretune.value:
            return self.passed(f"fs.aio-max-nr = {current}", citations=cites)
        if ctx.hosts_assumed and cites == ("g69-qpid",):  # an assumed figure: how many hosts the value in force holds
            holds = current // const("aio_per_host")
            return self.failed(f"fs.aio-max-nr = {current} holds qpidd's journal for up to {holds} katello-agent hosts "
                               f"({const('aio_per_host')} per host, the guide's formula); below {holds} hosts it is enough",
                               current=current, recommended=t.foretune.value,
                               evidence=ctx.evidence("sysctl", about="fs.aio-max-nr"), fixes=t.fixes, citations=cites)
        how = f": {t.foretune.formula}" if t.foretune.formula else ""
        return self.failed(f"fs.aio-max-nr = {current}; recommended {t.foretune.value} ({t.foretune.reason}{how}) "
                           "of asynchronous I/O for qpidd's journal", current=current, recommended=t.foretune.value,
                           evidence=ctx.evidence("sysctl", about="fs.aio-max-nr"), fixes=t.fixes, citations=cites)


RULE = AioMaxNrLow()
