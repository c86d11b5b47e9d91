"""THP defragmentation runs synchronously on page faults."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity


class ThpDefrag(Rule):
    id = "thp-defrag-always"
    title = "THP defrag not 'always'"
    component = "os"
    severity = Severity.LOW
    version_added = "0.1.0"
    needs = ("thp",)
    citations = ("gf-hardware",)

    def check(self, ctx: Context) -> Outcome:
        defrag = ctx.facts.value("thp").get("defrag")
        if defrag != "always":
            return self.passed(f"THP defrag = {defrag}")
        if ctx.facts.value("thp").get("enabled") == "never":  # no huge-page fault ever asks for compaction
            return self.passed("THP defrag = always, but THP enabled = never: defrag has no effect")
        return self.failed("THP defrag = always: page faults stall while the kernel compacts memory",
                           current=defrag, recommended="never", evidence=ctx.evidence("thp"),
                           fixes=(Fix("command", "echo never > /sys/kernel/mm/transparent_hugepage/defrag"),))


RULE = ThpDefrag()
