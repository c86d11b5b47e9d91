"""Candlepin's JVM ran out of heap (java.lang.OutOfMemoryError in its logs)."""

from __future__ import annotations

from foretune.knowledge.profiles import newest_size_value
from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.units import format_gib, jvm_option_text, jvm_size_option


class CandlepinOutOfMemory(Rule):
    id = "candlepin-out-of-memory"
    title = "Candlepin never ran out of Java heap"
    component = "candlepin"
    severity = Severity.CRITICAL
    version_added = "0.1.0"
    basis = Basis.MEASURED
    roles = frozenset({"server"})
    needs = ("log_incidents",)
    citations = ("candlepin-defaults", "fi-tuning-profiles")
    symptom_of = ("candlepin-heap-low",)

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "candlepin_oom")
        if not found:
            return self.passed("no OutOfMemoryError in the Candlepin logs")
        heap = jvm_size_option((ctx.facts.value("candlepin") or {}).get("java_opts"))
        xl_opts = str(newest_size_value("extra-large", "candlepin::java_opts"))  # the extra-large profile's heap
        xl_heap, xl_max = jvm_size_option(xl_opts), f"-Xmx{jvm_option_text(xl_opts) or '?'}"
        fixes: tuple[Fix, ...]
        killed = incidents.incidents(ctx, "oom_kill", services=("java",))
        if killed:  # the kernel kills that java for want of memory: a larger heap would make it worse (candlepin-heap-low
            # holds the heap in force); the heap the report recommends is that one, never the profile's on top
            return self.failed(f"Candlepin ran out of heap {incidents.span(found[0])}: {incidents.quote(found[0])}; heap -Xmx "
                               f"{format_gib(heap) if heap else 'unknown'}, and the kernel killed java for want of memory "
                               f"{incidents.span(killed[0])}: no heap raise until memory is freed or added",
                               current=heap, recommended="free or add memory first",
                               evidence=(*incidents.evidence(found), *ctx.evidence("candlepin", about=("JAVA_OPTS", "java_opts"))),
                               fixes=(Fix("advice", "memory", "free or add memory until the kernel stops killing java, then "
                                                              "raise Candlepin's heap"),), observed=True)
        if heap is not None and xl_heap is not None and heap < xl_heap:
            recommended, fixes = xl_opts, (ctx.hiera_fix("candlepin::java_opts", xl_opts),)
        else:
            recommended = f"more heap than {format_gib(heap) if heap else 'the current'}, with RAM to hold it"
            fixes = (Fix("advice", "candlepin::java_opts", f"raise Candlepin's -Xmx above {format_gib(heap) if heap else 'the current'} "
                                                            "(candlepin::java_opts), with RAM to hold it, then run the installer"),)
        return self.failed(f"Candlepin ran out of heap {incidents.span(found[0])}: {incidents.quote(found[0])}; "
                           f"heap -Xmx {format_gib(heap) if heap else 'unknown'} (the extra-large profiles give {xl_max})",
                           current=heap, recommended=recommended,
                           evidence=(*incidents.evidence(found), *ctx.evidence("candlepin", about=("JAVA_OPTS", "java_opts"))),
                           fixes=fixes, observed=True)


RULE = CandlepinOutOfMemory()
