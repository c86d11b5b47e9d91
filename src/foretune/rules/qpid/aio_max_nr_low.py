"""fs.aio-max-nr below 33 x hosts (qpidd's asynchronous I/O)."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity


class AioMaxNrLow(PlanRule):
    id = "fs-aio-max-nr-low"
    title = "fs.aio-max-nr above 33 x hosts"
    component = "qpid"
    severity = Severity.MEDIUM
    uses_hosts = True
    needs = ("sysctl",)
    citations = ("g69-qpid",)
    tunable = "sysctl.fs_aio_max_nr"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("sysctl").get("fs.aio-max-nr")
        if raw is None:
            return self.skipped("fs.aio-max-nr not in the source")
        current = int(raw)
        t = self.recommendation(ctx)
        if current >= t.foretune.value:
            return self.passed(f"fs.aio-max-nr = {current}")
        return self.failed(f"fs.aio-max-nr = {current}; recommended {t.foretune.value} ({t.foretune.reason}) "
                           "of asynchronous I/O for qpidd's journal",
                           current=current, recommended=t.foretune.value, evidence=ctx.evidence("sysctl", about="fs.aio-max-nr"), fixes=t.fixes)


RULE = AioMaxNrLow()
