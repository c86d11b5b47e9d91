"""Candlepin's JVM ran out of heap (java.lang.OutOfMemoryError in its logs)."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.values import gib, java_heap_max

XL_HEAP = 8192 * 1024**2  # -Xmx8192m, the extra-large profiles' candlepin::java_opts


class CandlepinOutOfMemory(Rule):
    id = "candlepin-out-of-memory"
    title = "Candlepin never ran out of Java heap"
    component = "candlepin"
    severity = Severity.CRITICAL
    roles = frozenset({"server"})
    needs = ("log_incidents",)
    citations = ("candlepin-defaults", "fi-tuning-profiles")

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "candlepin_oom")
        if not found:
            return self.passed("no OutOfMemoryError in the Candlepin logs")
        heap = java_heap_max((ctx.facts.value("candlepin") or {}).get("java_opts"))
        fixes: tuple[Fix, ...]
        if heap is not None and heap < XL_HEAP:
            recommended, fixes = "-Xms1024m -Xmx8192m", (Fix("hiera", "candlepin::java_opts", "-Xms1024m -Xmx8192m"),)
        else:
            recommended, fixes = f"more heap than {gib(heap) if heap else 'the current'}, with RAM to hold it", ()
        return self.failed(f"Candlepin ran out of heap {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                           f"heap -Xmx {gib(heap) if heap else 'unknown'} (the extra-large profiles give -Xmx8192m)",
                           current=heap, recommended=recommended,
                           evidence=(*incidents.evidence(found), *ctx.evidence("candlepin", about=("JAVA_OPTS", "java_opts"))),
                           fixes=fixes, observed=True)


RULE = CandlepinOutOfMemory()
