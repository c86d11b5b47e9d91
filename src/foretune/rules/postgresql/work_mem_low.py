"""work_mem below the guide's value on a box with room for it."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.postgresql._defaults import cited, pg_default
from foretune.units import pg_size


class WorkMemLow(PlanRule):
    id = "pg-work-mem-low"
    title = "PostgreSQL work_mem at the guide's value"
    component = "postgresql"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("gf-postgresql", "pg-conf-sample-90", "pg-release-94-defaults", "pg-conf-defaults")
    tunable = "postgresql.work_mem"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("postgresql").get("work_mem")
        default = pg_default(ctx, "work_mem") if raw is None else None
        current = pg_size(raw, unit_bytes=1024) if default is None else pg_size(default.value)
        shown = raw if default is None else default.shown
        cites = cited(self, default)
        t = self.recommendation(ctx)
        want = pg_size(t.foretune.value) or 0
        if (current or 0) >= want:
            return self.passed(f"work_mem {shown}", **cites)
        return self.failed(f"work_mem {shown}: sorts and hashes of large Foreman queries spill to disk",
                           current=raw if default is None else default.value, recommended=t.foretune.value,
                           evidence=(*ctx.evidence("postgresql"), *(default.evidence(ctx) if default else ())),
                           fixes=t.fixes, **cites)


RULE = WorkMemLow()
