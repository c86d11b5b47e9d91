"""effective_cache_size far below the RAM the page cache really has."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.postgresql._defaults import cited, pg_default, setting_evidence
from foretune.units import format_gib, pg_size


class EffectiveCacheSizeLow(PlanRule):
    id = "pg-effective-cache-size-low"
    title = "effective_cache_size reflects the RAM"
    component = "postgresql"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("fi-tuning-profiles", "foretune-estimate", "pg-conf-sample-90", "pg-release-94-defaults", "pg-conf-defaults")
    tunable = "postgresql.effective_cache_size"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("postgresql").get("effective_cache_size")
        default = pg_default(ctx, "effective_cache_size") if raw is None else None
        current = (pg_size(raw) if default is None else pg_size(default.value)) or 0
        shown = format_gib(current) if default is None else default.shown
        cites = cited(self, default)
        t = self.recommendation(ctx)
        want = pg_size(t.foretune.value) or 0
        fraction = threshold("effective_cache_size_min_fraction")
        if current >= want * fraction:
            return self.passed(f"effective_cache_size {raw if default is None else default.shown}", **cites)
        return self.failed(f"effective_cache_size {shown} is under {fraction * 100:g} % of the recommended "
                           f"{t.foretune.value}: the planner avoids index scans that would be cached",
                           current=raw if default is None else default.value, recommended=t.foretune.value,
                           evidence=setting_evidence(ctx, "effective_cache_size", default),
                           fixes=t.fixes, **cites)


RULE = EffectiveCacheSizeLow()
