"""max_connections below the connection budget of the running configuration."""

from __future__ import annotations

import math

from foretune.knowledge import module_default
from foretune.knowledge.profiles import PG
from foretune.plan.constants import const
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.values import pg_int
from foretune.term import plural


def running_budget(ctx: Context) -> tuple[int, list[str]]:
    """Connections the configured services may open: what is in force (Puma, Passenger, Sidekiq, pulpcore) where
    the facts say, the plan otherwise."""
    budget = running_budget_parts(ctx)
    return sum(n for _, n in budget), [f"{name}: {n}" for name, n in budget]


def running_budget_parts(ctx: Context) -> list[tuple[str, int]]:
    """(consumer, connections) of the configured services: facts where known, the plan otherwise."""
    assert ctx.plan is not None
    budget = dict(ctx.plan.connection_budget)
    puma = ctx.facts.value("puma") or {}
    if puma.get("workers") and puma.get("threads_max"):
        pool = ctx.facts.value("foreman_db_pool") or puma["threads_max"] + const("db_pool_extra")
        per = max(pool, puma["threads_max"] + const("db_pool_extra"))
        budget = {k: v for k, v in budget.items() if not k.startswith("Puma")}
        budget[f"Puma {plural(puma['workers'], 'worker')} x {per}"] = puma["workers"] * per
    passenger = ctx.facts.value("passenger") or {}
    if passenger.get("PassengerMaxPoolSize"):
        # Passenger era: every Foreman process holds its own Rails pool
        pool = ctx.facts.value("foreman_db_pool") or module_default("foreman_db_pool", "base")
        budget = {k: v for k, v in budget.items() if not k.startswith("Passenger")}
        budget[f"Passenger {plural(passenger['PassengerMaxPoolSize'], 'process', 'processes')} x {pool} pool"] = passenger["PassengerMaxPoolSize"] * pool
    dynflow = ctx.facts.value("dynflow") or {}
    if dynflow.get("workers") and dynflow.get("concurrency"):
        extra = const("sidekiq_connections_extra")  # each process's Dynflow connections beside its threads'
        budget = {k: v for k, v in budget.items() if not k.startswith("Sidekiq")}
        budget[f"Sidekiq {plural(dynflow['workers'], 'worker')} x ({dynflow['concurrency']} + {extra}) + orchestrator"] = (
            dynflow["workers"] * (dynflow["concurrency"] + extra) + 1 + extra)
    pulp = ctx.facts.value("pulpcore") or {}
    if pulp.get("workers"):
        gunicorn = (pulp.get("api_workers") or 0) + (pulp.get("content_workers") or 0)
        budget = {k: v for k, v in budget.items() if not k.startswith("pulpcore")}
        budget[f"pulpcore {plural(pulp['workers'], 'worker')} x {const('pulp_connections_per_worker')} + {gunicorn} gunicorn"] = (
            pulp["workers"] * const("pulp_connections_per_worker") + gunicorn * const("pulp_connections_per_gunicorn"))
    return list(budget.items())


class MaxConnectionsBelowBudget(PlanRule):
    id = "pg-max-connections-below-budget"
    title = "PostgreSQL max_connections covers the connection budget"
    component = "postgresql"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("pg_connection_exhaustion", ()),)
    demand_based = True
    roles = frozenset({"server"})
    needs = ("postgresql",)
    citations = ("gf-postgresql", "pf-db-pool", "foretune-estimate")
    tunable = "postgresql.max_connections"

    def check(self, ctx: Context) -> Outcome:
        current = pg_int(ctx.facts.value("postgresql").get("max_connections"))
        if current is None:
            return self.skipped("max_connections not set in the source")
        need, parts = running_budget(ctx)
        t = self.recommendation(ctx)
        if current >= need:
            return self.passed(f"max_connections {current} >= budget {need}")
        # the plan's rule for max_connections, applied to what runs: budget + headroom, rounded up to 100
        covered = math.ceil(need * (1 + const("pg_connection_headroom")) / 100) * 100
        want = max(t.foretune.value, covered)
        fixes = t.fixes if want == t.foretune.value else (ctx.hiera_fix(f"{PG}/max_connections", want),)
        return self.failed(f"max_connections {current} but the services may open {need} ({'; '.join(parts)}): "
                           f"expect 'remaining connection slots are reserved' errors; {want} covers them with "
                           f"{const('pg_connection_headroom') * 100:.0f} % headroom", current=current, recommended=want,
                           evidence=(*ctx.evidence("postgresql", about="max_connections"), *ctx.evidence("puma", "foreman_db_pool", "dynflow"),
                                     *(ctx.evidence("passenger", about="PassengerMaxPoolSize") if ctx.facts.value("passenger") else ())),
                           fixes=fixes)


RULE = MaxConnectionsBelowBudget()
