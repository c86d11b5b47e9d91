"""The kernel's OOM killer stopped processes: the box ran out of memory."""

from __future__ import annotations

from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity


class OomKills(Rule):
    id = "oom-kills"
    title = "The OOM killer never stopped a process"
    component = "os"
    severity = Severity.CRITICAL
    version_added = "0.1.0"
    basis = Basis.MEASURED
    citations = ("g62-memory",)

    def check(self, ctx: Context) -> Outcome:
        log_known = ctx.facts["log_incidents"].known
        pressure = ctx.facts.value("memory_pressure") or {}
        counter = pressure.get("oom_kills")
        if not log_known and counter is None:
            return self.skipped("neither logs nor /proc/vmstat's oom_kill counter in the source")
        found = incidents.incidents(ctx, "oom_kill")
        if not found and not counter:
            return self.passed("no OOM kill in the logs" + (", oom_kill 0 in /proc/vmstat" if counter == 0 else ""))
        victims = sorted({str(i.get("service")) for i in found if i.get("service")})
        what = (f"killed {', '.join(victims)} {incidents.span(found[0])}: {incidents.quote(found[0])}" if found
                else f"killed {counter} processes since boot (/proc/vmstat oom_kill)")
        return self.failed(f"the OOM killer {what}; the services do not fit the RAM (see memory-budget-over-ram)",
                           current=sum(int(i.get("count") or 0) for i in found) or counter, recommended=0,
                           evidence=(*incidents.evidence(found), *ctx.evidence("memory_pressure", about="oom_kill")),
                           observed=True)


RULE = OomKills()
