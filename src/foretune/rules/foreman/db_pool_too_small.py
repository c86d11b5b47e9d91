"""Foreman's database pool is smaller than the threads that share it."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Context, Evidence, Outcome, PlanRule, Severity
from foretune.rules.distinct import RAILS_POOL
from foretune.rules.recommend import (
    PumaInForce,
    installer_puma,
    keep_puma_flags,
    overridden_threads,
    puma_evidence,
    puma_in_force,
    puma_source_note,
)

# the lines the pool is judged by: database.yml's pool and the threads each worker runs (not the worker count)
POOL_WORDS = ("pool", "FOREMAN_PUMA_THREADS_MAX", "threads_max")
# the answers file's and custom-hiera's lines for the threads the installer writes
ANSWER_WORDS = tuple(f"{p}foreman_service_puma_threads_{m}" for p in ("", "foreman::") for m in ("min", "max"))


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
        # the installer run a pool fix needs rewrites installer.conf from its answers (custom-hiera, the answers file,
        # its defaults): threads a hand edit put there run only until then, so the pool is sized for what runs after
        inst = installer_puma(ctx) if overridden_threads(ctx) is None else None
        after = inst.threads_max if inst is not None and inst.threads_max != threads else None
        # unpinned, foreman-installer 3.11+ derives the pool from the threads it writes (threads_max + 4)
        derives = "foreman::db_pool" not in ctx.plan.input.configured and ctx.plan.release.features.db_pool_formula == "threads+4"
        if pool >= need and (after is None or derives or pool >= after + margin):
            return self.passed(f"pool {pool} >= {threads} threads{source} + {margin}")
        if inst is not None and after is not None:
            return self._rewritten(ctx, pool, threads, source, margin, after, inst.origin, run, evidence)
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


    def _rewritten(self, ctx: Context, pool: int, threads: int, source: str, margin: int, after: int, origin: str,
                   run: PumaInForce | None, evidence: tuple[Evidence, ...]) -> Outcome:
        """The pool sized for the ``after`` threads the installer's run writes back over hand-edited ones, with how to
        keep the hand edit instead."""
        t = self.recommendation(ctx)
        need, need_after = threads + margin, after + margin
        plan_threads = ctx.tunables["puma.threads_max"]
        if after == plan_threads.foretune.value and t.foretune.value == need_after and t.fixes:
            fixes = t.fixes
        else:
            fixes = (ctx.hiera_fix("foreman::db_pool", need_after),)
        where = {"": "the installer's default", "custom-hiera.yaml": "custom-hiera.yaml"}.get(origin, f"the {origin}")
        loaded = ctx.facts.value(run.fact) if run is not None and ctx.facts[run.fact].known else None
        tmin = loaded.get("threads_min") if isinstance(loaded, dict) and isinstance(loaded.get("threads_min"), int) else None
        # the threads only: the worker count is puma-workers-outside-range's and puma-pool-saturated's to recommend
        keep = keep_puma_flags(ctx, None, tmin, threads, origin)
        kept = f"{tmin}/{threads} threads" if tmin is not None else f"{threads} threads"
        # the answers file's (or custom-hiera's) Puma lines: where the threads the installer writes come from
        evidence = (*evidence, *(e for e in ctx.evidence("custom_hiera" if origin == "custom-hiera.yaml" else "installer_answers",
                                                         about=ANSWER_WORDS) if e not in evidence))
        if pool < need:
            head = (f"pool {pool} for {threads} Puma threads{source} + {margin} = {need} connections each worker needs: "
                    "expect 'could not obtain a connection from the pool' errors")
            severity = None
        else:
            head = f"pool {pool} covers the {threads} Puma threads in force{source} + {margin}, but not what the installer's next run puts in force"
            # not failing yet: a configuration risk (low where the release's installer itself writes max(db_pool, threads))
            pinned = "foreman::db_pool" in (ctx.plan.input.configured if ctx.plan is not None else {})
            severity = Severity.MEDIUM if pinned else Severity.LOW
        message = (f"{head}; those {threads} threads are not what the installer writes: {where} sets threads_max {after}, "
                   f"and the installer run this fix needs rewrites installer.conf from it (a hand edit there does not survive "
                   f"the run), so {after} threads run after it: set the pool to {need_after} for them ({after} + {margin}); "
                   f"to keep {kept} instead, {keep}, with a pool of {need}")
        return self.failed(message, current=pool, recommended=need_after, evidence=evidence, fixes=fixes,
                           severity=severity)


RULE = DbPoolTooSmall()
