"""work_mem below the guide's value on a box with room for it."""

from __future__ import annotations

from foretune.knowledge.precedence import Shadow, postgresql_shadow
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.capacity.memory_over_ram import measured_shortage
from foretune.rules.postgresql._defaults import cited, pg_default, setting_evidence
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
        shadow = self._alter_system(ctx) if raw is not None else None
        if shadow is not None and (current or 0) > want:
            # ALTER SYSTEM's value wins over the postgresql.conf the installer writes: judged as a postgresql.conf value
            # would be, and named, since every later --tuning or custom-hiera change of work_mem is silently ineffective
            return self.failed(f"work_mem {shown}, set by ALTER SYSTEM ({shadow.location}: {shadow.line}), above the "
                               f"guide's {t.foretune.value} (\"Setting this value to 8 MB should be more than enough for "
                               "most of the intensive operations\"): each sort or hash of every connection may take that much, and the "
                               "installer's value never takes effect while the line stays", current=raw,
                               recommended=t.foretune.value, evidence=ctx.evidence("postgresql", about="work_mem"),
                               fixes=t.fixes, **cites)
        if (current or 0) >= want:
            return self.passed(f"work_mem {shown}", **cites)
        short = measured_shortage(ctx)
        if short:  # every connection's sorts may take work_mem each: no raise while the box is short of memory now
            return self.failed(f"work_mem {shown}: sorts and hashes of large Foreman queries spill to disk, but the box "
                               f"measures {short}: no work_mem increase until memory is freed or added "
                               "(see memory-budget-over-ram)", current=raw if default is None else default.value,
                               recommended="free or add memory first",
                               evidence=setting_evidence(ctx, "work_mem", default),
                               fixes=(Fix("advice", "memory", "free or add memory until MemAvailable recovers, then raise "
                                                              f"work_mem to {t.foretune.value}"),), **cites)
        return self.failed(f"work_mem {shown}: sorts and hashes of large Foreman queries spill to disk",
                           current=raw if default is None else default.value, recommended=t.foretune.value,
                           evidence=setting_evidence(ctx, "work_mem", default),
                           fixes=t.fixes, **cites)


    @staticmethod
    def _alter_system(ctx: Context) -> Shadow | None:
        """The postgresql.auto.conf line (ALTER SYSTEM) that sets work_mem, when one does."""
        fact = ctx.facts["postgresql"]
        version = str(ctx.facts.value("postgresql_version") or "") if ctx.facts["postgresql_version"].known else ""
        major = version.split(".")[0] if not version.startswith("9.") else ".".join(version.split(".")[:2])
        return postgresql_shadow("work_mem", [(p.location, p.excerpt) for p in fact.provenance], major or None)


RULE = WorkMemLow()
