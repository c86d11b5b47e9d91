"""custom-hiera values that the tuning profiles also set: they win over every later --tuning change."""

from __future__ import annotations

from foretune.knowledge.hiera_keys import locking_keys
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
        notes = locking_keys(ctx.release, ctx.facts.value("custom_hiera") or {})
        if not notes:
            return self.passed("no profile-managed keys pinned")
        keys = [n.key for n in notes]
        return self.failed(f"{plural(len(keys), 'key')} pinned against --tuning: {', '.join(keys)}",
                           current=keys, recommended="only keys the profiles do not set, or documented deliberate overrides",
                           evidence=ctx.evidence("custom_hiera"))


RULE = CustomHieraLocksProfile()
