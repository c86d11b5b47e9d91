"""work_mem below the guide's value on a box with room for it."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import pg_bytes


class WorkMemLow(PlanRule):
    id = "pg-work-mem-low"
    title = "PostgreSQL work_mem at the guide's value"
    component = "postgresql"
    severity = Severity.LOW
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("gf-postgresql", "pg-conf-defaults")
    tunable = "postgresql.work_mem"

    def check(self, ctx: Context) -> Outcome:
        raw = ctx.facts.value("postgresql").get("work_mem")
        default = module_default("postgresql", "work_mem")
        current = (pg_bytes(raw, unit_bytes=1024) if raw is not None else None) or pg_bytes(default) or 0
        t = self.recommendation(ctx)
        want = pg_bytes(t.foretune.value) or 0
        if current >= want:
            return self.passed(f"work_mem {raw or f'{default} (default)'}")
        return self.failed(f"work_mem {raw or f'{default} (default)'}: sorts and hashes of large Foreman queries spill to disk",
                           current=raw or default, recommended=t.foretune.value, evidence=ctx.evidence("postgresql"), fixes=t.fixes)


RULE = WorkMemLow()
