"""Foreman's database pool is smaller than the threads that share it."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.distinct import RAILS_POOL
from foretune.rules.recommend import overridden_threads, puma_evidence, puma_in_force, puma_source_note

# the lines the pool is judged by: database.yml's pool and the threads each worker runs (not the worker count)
POOL_WORDS = ("pool", "FOREMAN_PUMA_THREADS_MAX", "threads_max")


class DbPoolTooSmall(PlanRule):
    id = "foreman-db-pool-too-small"
    title = "Foreman DB pool covers the Puma threads"
    component = "foreman"
    severity = Severity.HIGH
    version_added = "0.1.0"
    failing_when = (("db_pool_timeout", ()),)
    failing_min = 2  # one timeout line is evidence to watch (foreman-db-pool-timeout), not a sizing
    # a hand-made foreman.service drop-in that sets the threads leaves the pool behind: one problem, listed under the
    # drop-in's finding when both quote its FOREMAN_PUMA_THREADS_MAX line
    symptom_of = ("puma-dropin-override",)
    symptom_facts = (("puma-dropin-override", ("puma",)),)
    distinct_from = (("pg-max-connections-below-budget", RAILS_POOL), ("pg-connection-exhaustion", RAILS_POOL))
    demand_based = True
    roles = frozenset({"server"})
    needs = ("foreman_db_pool",)
    citations = ("pf-db-pool", "gf-db-pool", "pf-puma-formula")
    tunable = "foreman.db_pool"

    def check(self, ctx: Context) -> Outcome:
        pool = ctx.facts.value("foreman_db_pool")
        # the threads that run (pumactl stats, else what systemd loaded, else the drop-in or Foreman's defaults)
        run = puma_in_force(ctx)
        puma = ctx.facts.value("puma") or {}
        threads = run.threads if run else puma.get("threads_max") or module_default("puma", "auto")["threads_max"]
        source = puma_source_note(run)
        evidence = puma_evidence(ctx, run, "foreman_db_pool", about=POOL_WORDS)
        t = self.recommendation(ctx)
        if not t.fixes:  # the plan leaves the pool to the installer's threads_max + 4: below it, the site pinned one
            t = t._replace(fixes=(Fix("hiera", "foreman::db_pool", t.foretune.value),))
        assert ctx.plan is not None
        plan_threads = ctx.tunables["puma.threads_max"]
        # the margin over the threads is the plan's (it knows the release's listeners), applied to the threads in force
        margin = max(0, int(t.foretune.value) - int(plan_threads.foretune.value))
        need = threads + margin
        if pool >= need:
            return self.passed(f"pool {pool} >= {threads} threads{source} + {margin}")
        if overridden_threads(ctx) is not None:
            # the fix removes the hand-made drop-in (audit.effect) and the installer runs the plan's threads: the pool
            # is sized for those, not for the threads the removed file sets
            advice, fixes, want = f"set the pool to {t.foretune.value} for the {plan_threads.foretune.value} threads the installer runs once the drop-in is gone", t.fixes, t.foretune.value
        elif threads == plan_threads.foretune.value:
            advice, fixes, want = f"set the pool to {t.foretune.value}", t.fixes, t.foretune.value
        else:  # the pool for the threads in force; a change of the threads is puma-threads-min-below-max's to ask
            advice, want = f"set the pool to {need} for the {threads} threads in force", need
            fixes = (ctx.hiera_fix("foreman::db_pool", need),)
        installer = ctx.plan.release.features.db_pool_formula != "threads+4" and pool >= threads
        if installer and incidents.times(incidents.incidents(ctx, "db_pool_timeout")) < self.failing_min:
            # before puppet-foreman 25.0.0 (foreman-installer 3.11) the installer itself sets pool = threads_max
            # (max(db_pool 5, threads)): the release's own value is a recommendation, not a fault, until the
            # logs show the pool running out (failing_when then makes it critical)
            return self.failed(f"pool {pool} for {threads} Puma threads{source} is this release's installer value (max(db_pool 5, "
                               f"threads_max), before puppet-foreman 25.0.0 / foreman-installer 3.11 added + 4); no "
                               f"repeated 'could not obtain a connection from the pool' in the logs; recommended {need} "
                               f"({threads} threads + {margin} for the Katello listeners): {advice}", current=pool,
                               recommended=want, evidence=evidence, fixes=fixes, severity=Severity.LOW)
        return self.failed(f"pool {pool} for {threads} Puma threads{source} + {margin} = {need} connections each worker needs: "
                           f"expect 'could not obtain a connection from the pool' errors; {advice}", current=pool,
                           recommended=want, evidence=evidence, fixes=fixes)


RULE = DbPoolTooSmall()
