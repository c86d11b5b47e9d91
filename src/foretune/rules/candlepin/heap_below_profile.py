"""Candlepin's JVM heap is below what the profile gives."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.units import format_gib, jvm_size_option


class CandlepinHeapBelowProfile(PlanRule):
    id = "candlepin-heap-low"
    title = "Candlepin heap at least the profile's"
    component = "candlepin"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("candlepin_oom", ()),)
    roles = frozenset({"server"})
    needs = ("candlepin",)
    citations = ("fi-tuning-profiles", "candlepin-defaults")
    unit = "bytes"
    tunable = "candlepin.heap_max"

    def check(self, ctx: Context) -> Outcome:
        cp = ctx.facts.value("candlepin")
        heap = cp.get("heap_max_bytes") or jvm_size_option(cp.get("java_opts"))
        if heap is None:
            return self.skipped("Candlepin -Xmx not found")
        t = self.recommendation(ctx)
        if heap >= t.foretune.value:
            return self.passed(f"Candlepin -Xmx {format_gib(heap)}")
        return self.failed(f"Candlepin -Xmx {format_gib(heap)}; the {ctx.plan.profile} profile gives {format_gib(t.foretune.value)}: "  # type: ignore[union-attr]
                           "subscription checks and registrations stall in garbage collection",
                           current=heap, recommended=t.foretune.value, evidence=ctx.evidence("candlepin"), fixes=t.fixes)


RULE = CandlepinHeapBelowProfile()
