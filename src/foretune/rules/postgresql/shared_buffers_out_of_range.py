"""shared_buffers outside 2 GiB .. 25 % of RAM."""

from __future__ import annotations

from foretune.knowledge import load_data
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import gib, pg_bytes


class SharedBuffersOutOfRange(PlanRule):
    id = "pg-shared-buffers-out-of-range"
    title = "PostgreSQL shared_buffers between 2 GiB and 25 % of RAM"
    component = "postgresql"
    severity = Severity.MEDIUM
    roles = frozenset({"server"})
    needs = ("postgresql", "ram_bytes")
    citations = ("gf-postgresql", "g62-postgresql")
    tunable = "postgresql.shared_buffers"

    def check(self, ctx: Context) -> Outcome:
        current = pg_bytes(ctx.facts.value("postgresql").get("shared_buffers"))
        if current is None:
            return self.skipped("shared_buffers not set (PostgreSQL default 128 MB)")
        planner = load_data("planner.yaml")
        low = planner["pg_shared_buffers_min_gib"]["value"] * 1024**3
        high = ctx.facts.value("ram_bytes") * planner["pg_shared_buffers_max_fraction"]["value"]
        t = self.recommendation(ctx)
        if low <= current <= high * 1.01:
            return self.passed(f"shared_buffers {gib(current)} within {gib(low)}-{gib(high)}")
        why = "too small to cache the hot tables" if current < low else "more than a quarter of RAM starves the other services"
        return self.failed(f"shared_buffers {gib(current)}: {why}", current=ctx.facts.value("postgresql")["shared_buffers"],
                           recommended=t.foretune.value, evidence=ctx.evidence("postgresql", "ram_bytes"), fixes=t.fixes)


RULE = SharedBuffersOutOfRange()
