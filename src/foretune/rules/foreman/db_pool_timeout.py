"""Foreman's Rails connection pool timed out: more threads wait for a connection than the pool holds."""

from __future__ import annotations

from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.recommend import overridden_threads


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
    symptom_of = ("foreman-db-pool-too-small",)

    def check(self, ctx: Context) -> Outcome:
        found = incidents.incidents(ctx, "db_pool_timeout")
        if not found:
            return self.passed("no 'could not obtain a connection from the pool' errors in production.log")
        current = ctx.facts.value("foreman_db_pool")
        t = ctx.tunables.get("foreman.db_pool")
        threads = (ctx.facts.value("puma") or {}).get("threads_max")
        plan_threads = ctx.tunables.get("puma.threads_max")
        plan_pool = int(t.foretune.value) if t is not None and t.foretune.value is not None else 0
        # the plan's margin over its threads (the release's listeners), applied to the threads in force
        margin = max(0, plan_pool - int(plan_threads.foretune.value)) if plan_threads is not None and plan_pool else 0
        if incidents.times(found) == 1 and (current is None or not threads or current >= threads + margin):
            # one line, and the pool covers the threads in force: a transient wait to watch, not a sizing
            covers = f"pool {current} covers the {threads} Puma threads in force + {margin}" if threads and current is not None else f"pool {current}"
            return self.failed(f"Rails waited in vain for a database connection once, {incidents.span(found[0])}: "
                               f"{incidents.quote(found[0])}; {covers}: one timeout is evidence to watch, not a reason "
                               "to size the pool (audit again if it repeats)", current=current, recommended="no change: watch for repeats",
                               evidence=(*incidents.evidence(found), *ctx.evidence("foreman_db_pool", "puma")),
                               severity=Severity.LOW, observed=True)
        after = overridden_threads(ctx) or threads  # the fix removes a hand-made drop-in's threads (audit.effect)
        want = max(plan_pool, after + margin if after else 0)
        if want and (current is None or want > current):
            recommended: object = want
            fixes = t.fixes if t is not None and want == plan_pool else (ctx.hiera_fix("foreman::db_pool", want),)
        else:  # the pool already covers the threads in force: raising it further is the only lever left
            recommended, fixes = f"more than {current}", ()
        demand = f" for {threads} Puma threads per worker" if threads else ""
        return self.failed(f"Rails waited in vain for a database connection {incidents.span(found[0])}: "
                           f"{incidents.quote(found[0])}; pool {current}{demand}", current=current, recommended=recommended,
                           evidence=(*incidents.evidence(found), *ctx.evidence("foreman_db_pool", "puma")),
                           fixes=fixes, observed=True)


RULE = ForemanDbPoolTimeout()
