"""Foreman's Rails connection pool timed out: more threads wait for a connection than the pool holds."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.distinct import RAILS_POOL
from foretune.rules.foreman.db_pool_too_small import POOL_WORDS
from foretune.rules.recommend import overridden_threads, puma_evidence, puma_in_force, puma_source_note

# the fix of timeouts that PostgreSQL's limit causes: that limit's, which its own finding gives as a value
SERVER_LIMIT_FIX = Fix("advice", "max_connections",
                       "raise PostgreSQL's max_connections as pg-max-connections-below-budget (or pg-connection-exhaustion) "
                       "gives it, and leave foreman::db_pool as it is: it covers the threads")


class ForemanDbPoolTimeout(Rule):
    id = "foreman-db-pool-timeout"
    title = "Foreman never waited for a database connection"
    component = "foreman"
    severity = Severity.CRITICAL
    version_added = "0.1.0"
    basis = Basis.MEASURED
    roles = frozenset({"server"})
    needs = ("log_incidents",)
    citations = ("gf-db-pool", "pf-db-pool")
    # a pool too small for its threads, or (with a pool that covers them) PostgreSQL refusing clients in the same logs:
    # the timeouts join the limit whose refusal lines they quote
    symptom_of = ("foreman-db-pool-too-small", "pg-max-connections-below-budget", "pg-connection-exhaustion")
    symptom_facts = (("pg-max-connections-below-budget", ("log_incidents",)), ("pg-connection-exhaustion", ("log_incidents",)))
    distinct_from = (("pg-max-connections-below-budget", RAILS_POOL), ("pg-connection-exhaustion", RAILS_POOL))

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "db_pool_timeout")
        if not found:
            return self.passed("no 'could not obtain a connection from the pool' errors in production.log")
        current = ctx.facts.value("foreman_db_pool")
        t = ctx.tunables.get("foreman.db_pool")
        run = puma_in_force(ctx)  # the threads that run: pumactl stats, else what systemd loaded, else the drop-in
        threads = run.threads if run else (ctx.facts.value("puma") or {}).get("threads_max")
        source = puma_source_note(run)
        plan_threads = ctx.tunables.get("puma.threads_max")
        plan_pool = int(t.foretune.value) if t is not None and t.foretune.value is not None else 0
        # the plan's margin over its threads (the release's listeners), applied to the threads in force
        margin = max(0, plan_pool - int(plan_threads.foretune.value)) if plan_threads is not None and plan_pool else 0
        refused = incidents.incidents(ctx, "pg_connection_exhaustion")
        if refused and current is not None and threads and current >= threads + margin:
            # the pool covers its threads, and PostgreSQL refused clients meanwhile: the server's limit, not the pool
            # (a pool raised while PostgreSQL refuses connections would open more of them)
            return self.failed(f"Rails waited in vain for a database connection {incidents.span(found[0])}: "
                               f"{incidents.quote(found[0])}; pool {current} covers the {threads} Puma threads in force{source} + "
                               f"{margin}, and PostgreSQL refused clients {incidents.span(refused[0])}: "
                               f"{incidents.quote(refused[0])}: the timeouts are PostgreSQL's limit running out, not the "
                               "pool's (no pool change)", current=current,
                               recommended=f"no pool change: {current} covers the threads",
                               evidence=(*incidents.evidence(found), *incidents.evidence(refused),
                                         *puma_evidence(ctx, run, "foreman_db_pool", about=POOL_WORDS)),
                               fixes=(SERVER_LIMIT_FIX,), observed=True)
        if incidents.times(found) == 1 and (current is None or not threads or current >= threads + margin):
            # one line, and the pool covers the threads in force: a transient wait to watch, not a sizing
            covers = f"pool {current} covers the {threads} Puma threads in force{source} + {margin}" if threads and current is not None else f"pool {current}"
            return self.failed(f"Rails waited in vain for a database connection once, {incidents.span(found[0])}: "
                               f"{incidents.quote(found[0])}; {covers}: one timeout is evidence to watch, not a reason "
                               "to size the pool (audit again if it repeats)", current=current, recommended="no change: watch for repeats",
                               evidence=(*incidents.evidence(found), *puma_evidence(ctx, run, "foreman_db_pool")),
                               severity=Severity.LOW, observed=True)
        after = overridden_threads(ctx) or threads  # the fix removes a hand-made drop-in's threads (audit.effect)
        # the pool for the threads that run once the fix is in (the plan's pool when those are the plan's threads)
        want = after + margin if after else plan_pool
        if want and (current is None or want > current):
            recommended: object = want
            fixes = t.fixes if t is not None and want == plan_pool else (ctx.hiera_fix("foreman::db_pool", want),)
        else:  # the pool already covers the threads in force: what holds the connections decides the next step
            recommended = f"more than {current}"
            fixes = (Fix("advice", "foreman::db_pool",
                         f"the pool {current} covers the threads: find what holds connections long (slow statements in "
                         "PostgreSQL's log, long requests in production.log) before raising foreman::db_pool above "
                         f"{current}; then set it with --foreman-db-pool and run the installer"),)
        demand = f" for {threads} Puma threads per worker{source}" if threads else ""
        return self.failed(f"Rails waited in vain for a database connection {incidents.span(found[0])}: "
                           f"{incidents.quote(found[0])}; pool {current}{demand}", current=current, recommended=recommended,
                           evidence=(*incidents.evidence(found), *puma_evidence(ctx, run, "foreman_db_pool")),
                           fixes=fixes, observed=True)


RULE = ForemanDbPoolTimeout()
