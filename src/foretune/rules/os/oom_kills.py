"""The kernel's OOM killer stopped processes: the box ran out of memory."""

from __future__ import annotations

import math
import re
from typing import Any

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity, Status
from foretune.rules.capacity.memory_over_ram import RULE as budget
from foretune.rules.capacity.memory_over_ram import largest_outside, memory_fix
from foretune.term import plural
from foretune.units import format_gib


class OomKills(Rule):
    id = "oom-kills"
    title = "The OOM killer never stopped a process"
    component = "os"
    severity = Severity.CRITICAL
    version_added = "0.1.0"
    basis = Basis.MEASURED
    citations = ("g62-memory",)
    symptom_of = ("memory-budget-over-ram", "puma-workers-over-ram-budget")

    def check(self, ctx: Context) -> Outcome:
        log_known = ctx.facts["log_incidents"].known
        pressure = ctx.facts.value("memory_pressure") or {}
        counter = pressure.get("oom_kills")
        if not log_known and counter is None:
            return self.skipped("neither logs nor /proc/vmstat's oom_kill counter in the source")
        found = incidents.incidents(ctx, "oom_kill")
        if not found and counter is None and "log_incidents" in ctx.facts.partial:  # the kill may be in what was lost
            return self.skipped(f"not judged: log_incidents {ctx.facts.partial['log_incidents']}")
        if not found and not counter:
            return self.passed("no OOM kill in the logs" + (", oom_kill 0 in /proc/vmstat" if counter == 0 else ""))
        victims = sorted({str(i.get("service")) for i in found if i.get("service")})
        kills = incidents.distinct(found)
        # the quote a reader can date: a syslog or dmesg -T copy of a kill before the ring buffer's seconds since boot
        found = sorted(found, key=lambda i: not (i.get("first") or i.get("last")))
        what = (f"killed {', '.join(victims)} {incidents.span(incidents.overall(found))}: {incidents.quote(found[0])}"
                if found else f"killed {plural(int(counter or 0), 'process', 'processes')} since boot (/proc/vmstat oom_kill)")
        if found and counter == 0:  # the counter and the logs disagree only in time: say so, not leave two figures
            what += "; /proc/vmstat's oom_kill 0 counts since the last boot, so the kill came before it"
        # point to the memory budget only when that rule fails on this source
        over = (budget.applies(ctx) is None and ctx.facts["ram_bytes"].known
                and budget.check(ctx).status == Status.FAIL)
        where = "; see memory-budget-over-ram" if over else ""
        return self.failed(f"the OOM killer {what}{where}{largest_outside(ctx)}",
                           current=kills or counter, recommended=0,
                           evidence=(*incidents.evidence(found), *ctx.evidence("memory_pressure", about="oom_kill"),
                                     *(ctx.evidence("other_processes") if largest_outside(ctx) else ())),
                           fixes=(memory_fix(ctx), *([] if over else _ram_to_add(ctx, found))), observed=True)


def _ram_to_add(ctx: Context, found: list[dict[str, Any]]) -> list[Fix]:
    """The hardware that gives the largest killed process room, when the services' budget fits RAM (so no setting
    of theirs is the cause): RAM up by what that process held when the kernel killed it (anon-rss), in whole GiB."""
    ram = ctx.facts.value("ram_bytes")
    sizes = [(int(m.group(2)) * 1024, m.group(1)) for i in found for key in i.get("keys") or ()
             for m in [re.search(r"\(([^)]+)\) anon-rss:(\d+)kB", str(key))] if m]
    if not ram or not sizes:
        return []
    held, name = max(sizes)
    total = math.ceil((int(ram) + held) / 2**30)
    return [Fix("advice", "hardware", f"add RAM to at least {total} GiB ({format_gib(int(ram))} now + the "
                                      f"{format_gib(held)} the killed {name} held, which the box could not give it), "
                                      "then audit again after a day of normal load")]


RULE = OomKills()
