"""Candlepin's JVM heap is below what the profile gives."""

from __future__ import annotations

import re

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.capacity.memory_over_ram import oom_finding
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
        killed = incidents.incidents(ctx, "oom_kill", services=("java",))
        if killed:  # the kernel already kills that java for want of memory: a larger heap would make it worse
            # an installer run (every other fix needs one) writes the profile's heap into tomcat.conf: hold the heap
            # in force in custom-hiera instead, until memory is freed or added
            held = [ctx.hiera_fix(fix.target, re.sub(r"-Xmx\S+", f"-Xmx{heap // 2**20}m", fix.value))
                    for fix in t.fixes if fix.kind == "hiera" and isinstance(fix.value, str) and "-Xmx" in fix.value]
            return self.failed(f"Candlepin -Xmx {format_gib(heap)} is below the {ctx.fix_profile} profile's "
                               f"{format_gib(t.foretune.value)}, but the kernel killed java for want of memory "
                               f"{incidents.span(killed[0])}: {incidents.quote(killed[0])}; no heap increase until "
                               "memory is freed or added" + ("; the installer run would write the profile's heap, so "
                                                             f"custom-hiera holds -Xmx {format_gib(heap)} until then" if held else ""),
                               current=heap, recommended="free or add memory first",
                               evidence=(*ctx.evidence("candlepin"), *incidents.evidence(killed)),
                               fixes=(*held, Fix("advice", "memory", "free or add memory until the OOM kills stop (see "
                                                                     f"{oom_finding(ctx)}), then raise the heap to "
                                                                     f"{format_gib(t.foretune.value)}"
                                                                     + (" (remove the held java_opts from custom-hiera)" if held else ""))))
        return self.failed(f"Candlepin -Xmx {format_gib(heap)}; the {ctx.fix_profile} profile gives {format_gib(t.foretune.value)}: "
                           "subscription checks and registrations stall in garbage collection",
                           current=heap, recommended=t.foretune.value, evidence=ctx.evidence("candlepin"), fixes=t.fixes)


RULE = CandlepinHeapBelowProfile()
