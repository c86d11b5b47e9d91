"""pumactl stats show requests waiting: every Puma thread was busy when the sosreport was taken."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.recommend import growth_fixes, recommended
from foretune.term import plural


class PumaPoolSaturated(Rule):
    id = "puma-pool-saturated"
    title = "Puma has free threads and an empty backlog"
    component = "puma"
    severity = Severity.HIGH
    version_added = "0.1.0"
    basis = Basis.MEASURED
    roles = frozenset({"server"})
    needs = ("puma_stats",)
    citations = ("gf-puma-recommendations", "gf-puma-threads")
    # threads that wait for a database connection hold their request: with the pool short of the running threads, the
    # backlog is that shortage's symptom (the finding then quotes database.yml, as the pool's finding does); workers
    # that did not boot, or a backlog, on a box whose RAM cannot hold the Puma workers are that root's symptom
    symptom_of = ("foreman-db-pool-too-small", "puma-workers-over-ram-budget")
    symptom_facts = (("foreman-db-pool-too-small", ("foreman_db_pool",)), ("puma-workers-over-ram-budget", ("puma",)))

    def check(self, ctx: Context) -> Outcome:
        stats = ctx.facts.value("puma_stats")
        workers, booted = stats.get("workers") or 0, stats.get("booted_workers") or 0
        backlog, saturated = stats.get("backlog") or 0, stats.get("saturated_workers")
        evidence = ctx.evidence("puma_stats", "puma")
        if backlog > 0 and (saturated or stats.get("pool_capacity") == 0):
            message = (f"{plural(backlog, 'request')} waited in Puma's backlog (pumactl stats: the workers' backlog summed) while "
                       f"{saturated} of {workers} workers had no free thread (pool_capacity 0): the application server is "
                       "saturated now")
            fixes = growth_fixes(ctx, "puma.workers", workers, "Puma workers")
            rec = recommended(ctx, "puma.workers")
            if rec is not None and isinstance(rec.value, int) and rec.value < workers:
                # the workers already exceed what the guide sizes for this box (puma-workers-outside-range lowers them):
                # one value, one direction; the backlog then needs hardware, not workers
                # (its fix stays with that finding: the same command is not given twice)
                fixes = (Fix("advice", "puma.workers", f"{workers} workers are more than the {rec.value} the guide sizes "
                                                      "for this hardware, and oversubscribed CPUs and RAM slow every "
                                                      f"request: set {rec.value} (the fix of puma-workers-outside-range), "
                                                      "then add hardware if the backlog stays, and raise the workers "
                                                      "with it"),)
            running, pool = stats.get("max_threads"), ctx.facts.value("foreman_db_pool")
            if running and pool and running > pool:  # threads that wait for a connection hold the request: pool first
                message += (f"; each worker runs {running} threads on a database pool of {pool}, so up to {running - pool} "
                            "of them wait for a connection: the pool comes first (foreman-db-pool-too-small)")
                fixes = (Fix("advice", "puma.workers", f"fix the database pool first ({pool} for {running} threads, see "
                                                      "foreman-db-pool-too-small); more workers or hardware only if the "
                                                      "backlog stays after it"),)
                evidence += ctx.evidence("foreman_db_pool")
            return self.failed(message, current=backlog, recommended=0, evidence=evidence, fixes=fixes, observed=True)
        if booted < workers:
            return self.failed(f"only {booted} of {workers} Puma workers booted: the others crashed or are restarting",
                               current=booted, recommended=workers, evidence=evidence, severity=Severity.MEDIUM,
                               observed=True)
        return self.passed(f"backlog {backlog}, {stats.get('pool_capacity', 'unknown')} free threads over {workers} workers")


RULE = PumaPoolSaturated()
