"""effective_cache_size far below the RAM the page cache really has."""

from __future__ import annotations

from foretune.knowledge import module_default, threshold
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import gib, pg_bytes


class EffectiveCacheSizeLow(PlanRule):
    id = "pg-effective-cache-size-low"
    title = "effective_cache_size reflects the RAM"
    component = "postgresql"
    severity = Severity.LOW
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("fi-tuning-profiles", "foretune-estimate", "pg-conf-defaults")
    tunable = "postgresql.effective_cache_size"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("postgresql").get("effective_cache_size")
        default = module_default("postgresql", "effective_cache_size")
        current = (pg_bytes(raw) if raw is not None else None) or pg_bytes(default) or 0
        t = self.recommendation(ctx)
        want = pg_bytes(t.foretune.value) or 0
        fraction = threshold("effective_cache_size_min_fraction")
        if current >= want * fraction:
            return self.passed(f"effective_cache_size {raw or f'{default} (default)'}")
        return self.failed(f"effective_cache_size {gib(current)} is under {fraction * 100:g} % of the recommended {t.foretune.value}: "
                           "the planner avoids index scans that would be cached", current=raw or default,
                           recommended=t.foretune.value, evidence=ctx.evidence("postgresql"), fixes=t.fixes)


RULE = EffectiveCacheSizeLow()
