"""PostgreSQL's autovacuum is switched off: dead rows and bloat accumulate."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity


class AutovacuumOff(Rule):
    id = "pg-autovacuum-off"
    title = "PostgreSQL autovacuum on"
    component = "postgresql"
    severity = Severity.HIGH
    version_added = "0.1.0"
    needs = ("postgresql",)
    citations = ("gf-postgresql",)

    def check(self, ctx: Context) -> Outcome:
        value = str(ctx.facts.value("postgresql").get("autovacuum", "on")).strip("'\" ").lower()
        if value not in ("off", "false", "no", "0"):
            return self.passed(f"autovacuum {value}")
        return self.failed("autovacuum = off: dead rows of the busiest tables (fact values, tasks, audits, sessions) are "
                           "never reclaimed, tables and indexes bloat and queries slow down week by week",
                           current="off", recommended="on", evidence=ctx.evidence("postgresql", about="autovacuum"),
                           fixes=(ctx.hiera_fix("postgresql::server::config_entries/autovacuum", "on"),))


RULE = AutovacuumOff()
