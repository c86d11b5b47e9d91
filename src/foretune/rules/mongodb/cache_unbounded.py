"""MongoDB's WiredTiger cache is unbounded or too large (Pulp 2 era)."""

from __future__ import annotations

from foretune.knowledge import module_default, threshold
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.units import GIB, format_gib


class MongodbCacheUnbounded(PlanRule):
    id = "mongodb-cache-unbounded"
    title = "MongoDB cacheSizeGB bounded to about 20 % of RAM"
    component = "mongodb"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("mongodb", "ram_bytes")
    citations = ("g69-mongodb", "fi-mongo-cache")
    tunable = "mongodb.cache_size_gb"

    def check(self, ctx: Context) -> Outcome:
        if ctx.facts.value("mongodb").get("engine") == "mmapv1":
            return self.skipped("MongoDB runs MMAPv1: there is no WiredTiger cache to bound (its memory is the page cache)")
        cache = ctx.facts.value("mongodb").get("cache_size_gb")
        t = self.recommendation(ctx)
        ram = ctx.facts.value("ram_bytes")
        ram_gib = ram / GIB
        limit = threshold("mongodb_cache_max_fraction")
        if cache is not None and cache <= ram_gib * limit:
            return self.passed(f"cacheSizeGB {cache}")
        why = ("cache unbounded: mongod takes about half the RAM" if cache is None
               else f"cacheSizeGB {cache} is more than {limit * 100:.0f} % of the {format_gib(ram)} RAM ({cache / ram_gib:.1%})")
        app = "Passenger" if ctx.release is not None and ctx.release.features.passenger else "Puma"
        return self.failed(f"MongoDB {why}; PostgreSQL and {app} lose memory; the guide's {module_default('mongodb_cache_fraction') * 100:.0f} % of RAM is "
                           f"cacheSizeGB {t.foretune.value}", current=cache,
                           recommended=t.foretune.value, evidence=ctx.evidence("mongodb", "ram_bytes", about=("cacheSizeGB:", "MemTotal:")), fixes=t.fixes)


RULE = MongodbCacheUnbounded()
