"""custom-hiera values that the tuning profiles also set: they win over every later --tuning change."""

from __future__ import annotations

from foretune.knowledge.hiera_keys import locking_keys
from foretune.knowledge.profiles import PG, flatten
from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.term import plural


class CustomHieraLocksProfile(Rule):
    id = "custom-hiera-locks-profile"
    title = "custom-hiera does not pin profile-managed keys"
    component = "installer"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("custom_hiera",)
    citations = ("fi-hiera-precedence",)

    def check(self, ctx: Context) -> Outcome:
        if ctx.release is None:
            return self.skipped("product version unknown")
        hiera = ctx.facts.value("custom_hiera") or {}
        # a key pinned at the value this audit itself recommends there (the guide's own custom-hiera procedure, as
        # for work_mem: 8MB) is a documented deliberate override, not a lock to undo
        wanted = {key: value for t in ctx.tunables.values() for fix in t.fixes if fix.kind == "hiera"
                  for key, value in (flatten({fix.target: fix.value}).items())}
        documented = {f"{PG}/work_mem": const("pg_work_mem")}  # the guide's "Append ... custom-hiera.yaml" work_mem
        pinned = flatten(hiera)
        notes = [n for n in locking_keys(ctx.release, hiera)
                 if not any(n.key in values and str(values[n.key]) == str(pinned.get(n.key)) for values in (wanted, documented))]
        if not notes:
            return self.passed("no profile-managed keys pinned")
        keys = [n.key for n in notes]
        return self.failed(f"{plural(len(keys), 'key')} pinned against --tuning: {', '.join(keys)}",
                           current=keys, recommended="only keys the profiles do not set, or documented deliberate overrides",
                           evidence=ctx.evidence("custom_hiera"))


RULE = CustomHieraLocksProfile()
