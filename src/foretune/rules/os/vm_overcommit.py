"""vm.overcommit_memory is not the kernel's heuristic default (0)."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity


class VmOvercommit(Rule):
    id = "vm-overcommit-memory"
    title = "vm.overcommit_memory at the kernel default 0"
    component = "os"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    needs = ("sysctl",)
    citations = ("fi-vm-overcommit",)

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("sysctl").get("vm.overcommit_memory")
        if raw is None:
            return self.skipped("vm.overcommit_memory not in the source")
        value = int(raw)
        if value == 0:
            return self.passed("vm.overcommit_memory = 0")
        why = ("strict accounting: large JVM and Ruby processes fail to fork or start with ENOMEM long before RAM is used"
               if value == 2 else "always overcommit: the OOM killer, not the allocation, reports the shortage")
        return self.failed(f"vm.overcommit_memory = {value} ({why}); the Katello installer refused any value above 0",
                           current=value, recommended=0, evidence=ctx.evidence("sysctl", about="vm.overcommit_memory"),
                           fixes=(Fix("sysctl", "vm.overcommit_memory", 0),),
                           severity=None if value == 2 else Severity.LOW)


RULE = VmOvercommit()
