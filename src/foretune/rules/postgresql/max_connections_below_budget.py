"""max_connections below the connection budget of the running configuration."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.rules import incidents
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.distinct import SERVER_LIMIT
from foretune.rules.recommend import recommended, running_budget, running_budget_parts, sized_for_running_workers
from foretune.rules.values import pg_int

__all__ = ["RULE", "running_budget", "running_budget_parts"]  # the budget lives in rules.recommend


class MaxConnectionsBelowBudget(PlanRule):
    id = "pg-max-connections-below-budget"
    title = "PostgreSQL max_connections covers the connection budget"
    component = "postgresql"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("pg_connection_exhaustion", ()),)
    distinct_from = (("foreman-db-pool-too-small", SERVER_LIMIT), ("foreman-db-pool-timeout", SERVER_LIMIT))
    demand_based = True
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("gf-postgresql", "pf-db-pool", "foretune-estimate")
    tunable = "postgresql.max_connections"

    def check(self, ctx: Context) -> Outcome:
        current = pg_int(ctx.facts.value("postgresql").get("max_connections"))
        if current is None:
            return self.skipped("max_connections not set in the source")
        now, parts = running_budget(ctx)
        # the services open the pool in force now; the change set raises it to threads + 4 (foreman-db-pool-too-small),
        # and max_connections must cover that too
        need, raised = running_budget(ctx, after_change=True)
        if current >= need:
            return self.passed(f"max_connections {current} >= budget {need}")
        rec = recommended(ctx, self.tunable)
        assert rec is not None
        want, fixes = rec.value, rec.fixes
        headroom = const("pg_connection_headroom")
        if want >= need * (1 + headroom):
            # the budget is what runs now; say so beside another worker count
            covers = f"{want} covers them with {headroom * 100:.0f} % headroom{sized_for_running_workers(ctx)}"
        else:  # the change set runs fewer Puma workers: the plan's figure is sized for those
            plan = ctx.fix_plan or ctx.plan
            assert plan is not None
            opens = sum(n for _, n in plan.connection_budget)
            if want <= current and opens <= current and not incidents.incidents(ctx, "pg_connection_exhaustion"):
                # nothing to change here: the excess is the Puma workers running now, which their own finding lowers
                return self.passed(f"max_connections {current} is under the {now} the services running now may open, "
                                   f"but covers the {opens} the recommended configuration opens: the Puma workers' "
                                   "finding is the fix, not this setting")
            covers = (f"{want} covers the {sum(n for _, n in plan.connection_budget)} the recommended configuration "
                      f"opens (its Puma workers replace the ones running now), with {headroom * 100:.0f} % headroom")
        if current >= now and not incidents.incidents(ctx, "pg_connection_exhaustion"):
            # no fault now: the pool the audit recommends is what outgrows max_connections
            return self.failed(f"max_connections {current} covers the {now} the services open now ({'; '.join(parts)}), "
                               f"but not the {need} they may open once the Foreman pool is raised to the Puma threads + "
                               f"{const('db_pool_extra')} (foreman-db-pool-too-small); {covers}", current=current,
                               recommended=want, severity=Severity.LOW, fixes=fixes,
                               evidence=(*ctx.evidence("postgresql", about="max_connections"),
                                         *ctx.evidence("puma", "foreman_db_pool")))
        # logged refusals with the pool in force covered: the raised pool's figure, with the parts that make it
        shown, parts = (now, parts) if current < now else (need, raised)
        once = (f" once the Foreman pool is raised to the Puma threads + {const('db_pool_extra')} as "
                f"foreman-db-pool-too-small asks ({now} with the pool in force)" if shown != now else "")
        return self.failed(f"max_connections {current} but the services may open {shown}{once} ({'; '.join(parts)}): "
                           f"expect 'remaining connection slots are reserved' errors; {covers}", current=current, recommended=want,
                           evidence=(*ctx.evidence("postgresql", about="max_connections"), *ctx.evidence("puma", "foreman_db_pool", "dynflow"),
                                     *(ctx.evidence("passenger", about="PassengerMaxPoolSize") if ctx.facts.value("passenger") else ())),
                           fixes=fixes)


RULE = MaxConnectionsBelowBudget()
