"""checkpoint_segments set on a PostgreSQL that no longer knows it."""

from __future__ import annotations

from foretune.knowledge.releases import version_key
from foretune.rules.base import Context, Outcome, Rule, Severity


class CheckpointSegmentsStale(Rule):
    id = "pg-checkpoint-segments-stale"
    title = "No checkpoint_segments on PostgreSQL 9.5+"
    component = "postgresql"
    severity = Severity.HIGH
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("fi-checkpoint-segments-removed",)

    def applies(self, ctx: Context) -> str | None:
        if ctx.release is None:
            return "product version unknown"
        if version_key(ctx.release.foreman_version) < (2, 0):
            return "this release ships a PostgreSQL that still reads checkpoint_segments"
        return None

    def check(self, ctx: Context) -> Outcome:
        value = ctx.facts.value("postgresql").get("checkpoint_segments")
        if value is None:
            return self.passed("checkpoint_segments not set")
        return self.failed(f"checkpoint_segments = {value}: PostgreSQL 12 refuses to start with it (use max_wal_size)",
                           current=value, recommended="remove it", evidence=ctx.evidence("postgresql", "custom_hiera"))


RULE = CheckpointSegmentsStale()
