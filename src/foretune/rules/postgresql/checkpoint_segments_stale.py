"""checkpoint_segments set on a PostgreSQL that no longer knows it."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.knowledge.releases import version_key
from foretune.rules.base import Context, Outcome, Rule, Severity


class CheckpointSegmentsStale(Rule):
    id = "pg-checkpoint-segments-stale"
    title = "No checkpoint_segments on PostgreSQL 9.5+"
    component = "postgresql"
    severity = Severity.HIGH
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("fi-checkpoint-segments-removed", "pg-release-95-wal-size")

    def applies(self, ctx: Context) -> str | None:
        version = ctx.facts.value("postgresql_version")
        if version:  # the server in force decides; else the release's PostgreSQL (9.2 before Foreman 2.0, then 12)
            if version_key(str(version)) < version_key(str(threshold("postgresql_checkpoint_segments_removed"))):
                return f"PostgreSQL {version} still reads checkpoint_segments"
            return None
        if ctx.release is None:
            return "product version unknown"
        if version_key(ctx.release.foreman_version) < (2, 0):
            return "this release ships a PostgreSQL that still reads checkpoint_segments"
        return None

    def check(self, ctx: Context) -> Outcome:
        value = ctx.facts.value("postgresql").get("checkpoint_segments")
        if value is None:
            return self.passed("checkpoint_segments not set")
        version = ctx.facts.value("postgresql_version")
        server = f"PostgreSQL {version}" if version else "the PostgreSQL of this release (12 or later)"
        return self.failed(f"checkpoint_segments = {value}: {server} no longer knows it and refuses to start with it "
                           "(use max_wal_size)", current=value, recommended="remove it",
                           evidence=ctx.evidence("postgresql", "custom_hiera", *(("postgresql_version",) if version else ())))


RULE = CheckpointSegmentsStale()
