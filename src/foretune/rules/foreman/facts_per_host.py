"""One host carries more fact values than foreman-maintain accepts."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity


class FactsPerHost(Rule):
    id = "facts-per-host-over-limit"
    title = "Fact values per host below foreman-maintain's limit"
    component = "foreman"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("max_facts_per_host",)
    citations = ("fm-fact-names",)

    def check(self, ctx: Context) -> Outcome:
        count = int(ctx.facts.value("max_facts_per_host"))
        limit = int(threshold("facts_per_host_max"))
        if count < limit:
            return self.passed(f"at most {count} fact values on one host")
        return self.failed(f"one host has {count} fact values, foreman-maintain warns from {limit}: fact uploads and "
                           "host pages slow down", current=count, recommended=f"< {limit}",
                           evidence=ctx.evidence("max_facts_per_host"))


RULE = FactsPerHost()
