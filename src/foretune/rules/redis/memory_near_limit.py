"""Redis uses nearly all of its maxmemory: keys get evicted or writes refused."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.units import format_gib


class RedisMemoryNearLimit(Rule):
    id = "redis-memory-near-limit"
    title = "Redis below its maxmemory"
    component = "redis"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    needs = ("redis",)
    citations = ("foretune-estimate",)

    def check(self, ctx: Context) -> Outcome:
        redis = ctx.facts.value("redis")
        limit, used = redis.get("maxmemory") or 0, redis.get("used_memory")
        if used is None:
            return self.skipped("Redis INFO (used_memory) not in the source")
        if not limit:
            return self.passed(f"{format_gib(used)} used, no maxmemory limit")
        share = used / limit
        if share < threshold("redis_used_max_fraction"):
            return self.passed(f"{format_gib(used)} of maxmemory {format_gib(limit)} used ({share:.0%})")
        return self.failed(f"Redis uses {format_gib(used)} of maxmemory {format_gib(limit)} ({share:.0%}): Dynflow and Pulp task data "
                           "is evicted or writes fail with OOM errors", current=used, recommended=f"maxmemory above {format_gib(used / threshold('redis_used_target_fraction'))} or 0",
                           evidence=ctx.evidence("redis"))


RULE = RedisMemoryNearLimit()
