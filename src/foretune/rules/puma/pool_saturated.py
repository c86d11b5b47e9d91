"""Every Puma thread busy: pumactl stats show requests waiting, or production.log shows as many requests open at once
as the Puma threads in force."""

from __future__ import annotations

from foretune.plan.model import Fix
from foretune.rules import incidents
from foretune.rules.base import Basis, Context, Evidence, Outcome, Rule, Severity
from foretune.rules.recommend import PUMA_FROM, PumaInForce, growth_fixes, puma_in_force, recommended
from foretune.term import plural


class PumaPoolSaturated(Rule):
    id = "puma-pool-saturated"
    title = "Puma has free threads and an empty backlog"
    component = "puma"
    severity = Severity.HIGH
    version_added = "0.1.0"
    basis = Basis.MEASURED
    roles = frozenset({"server"})
    # puma_stats (pumactl stats) is read when known; without it the rule judges production.log's Puma saturation alone
    citations = ("gf-puma-recommendations", "gf-puma-threads")
    # threads that wait for a database connection hold their request: with the pool short of the running threads, the
    # backlog is that shortage's symptom (the finding then quotes database.yml, as the pool's finding does); workers
    # that did not boot, or a backlog, on a box whose RAM cannot hold the Puma workers are that root's symptom
    symptom_of = ("foreman-db-pool-too-small", "puma-workers-over-ram-budget")
    symptom_facts = (("foreman-db-pool-too-small", ("foreman_db_pool",)), ("puma-workers-over-ram-budget", ("puma",)))

    def check(self, ctx: Context) -> Outcome:
        known = ctx.facts["puma_stats"].known
        stats = ctx.facts.value("puma_stats") if known else {}
        workers, booted = stats.get("workers") or 0, stats.get("booted_workers") or 0
        backlog, saturated = stats.get("backlog") or 0, stats.get("saturated_workers")
        # production.log's minutes with as many requests open at once as the Puma threads in force (log_incidents)
        logged = incidents.incidents(ctx, "queue_at_capacity", services=("puma",))
        run = puma_in_force(ctx)
        if backlog > 0 and (saturated or stats.get("pool_capacity") == 0):
            message = (f"{plural(backlog, 'request')} waited in Puma's backlog (pumactl stats: the workers' backlog summed) while "
                       f"{saturated} of {workers} workers had no free thread (pool_capacity 0): the application server is "
                       "saturated now")
            if logged and run:
                message += f"; {self._logged(logged[0], run)}"
            evidence = (*ctx.evidence("puma_stats", "puma"), *incidents.evidence(logged[:1] if run else []))
            return self._saturated(ctx, message, workers, stats.get("max_threads"), evidence, backlog, "backlog")
        if logged and run:
            message = f"{self._logged(logged[0], run)}: every Puma thread was busy, so a request arriving then waited"
            evidence = (*incidents.evidence(logged[:1]), *ctx.evidence(*dict.fromkeys((run.fact, "puma"))))
            minutes = int(logged[0].get("count") or 1)  # minutes at capacity; none is the aim, as no backlog is
            return self._saturated(ctx, message, run.workers, run.threads, evidence, minutes, "saturation")
        if not known:
            return self.skipped(f"fact unknown: puma_stats ({ctx.facts['puma_stats'].unknown_reason})")
        evidence = ctx.evidence("puma_stats", "puma")
        if booted < workers:
            return self.failed(f"only {booted} of {workers} Puma workers booted: the others crashed or are restarting",
                               current=booted, recommended=workers, evidence=evidence, severity=Severity.MEDIUM,
                               observed=True)
        return self.passed(f"backlog {backlog}, {stats.get('pool_capacity', 'unknown')} free threads over {workers} workers")

    @staticmethod
    def _logged(incident: dict[str, object], run: PumaInForce) -> str:
        """What production.log shows: minutes with as many requests open at once as the Puma threads in force."""
        minutes = int(str(incident.get("count") or 1))
        first, last = incident.get("first"), incident.get("last")
        when = f" ({first} .. {last})" if first and last else ""
        return (f"production.log had as many requests open at once as the {run.workers * run.threads} Puma threads in force "
                f"({PUMA_FROM[run.fact]}: {plural(run.workers, 'worker')} x {run.threads} threads) in "
                f"{plural(minutes, 'minute')}{when}: "
                f"{incidents.quote(incident)}")

    def _saturated(self, ctx: Context, message: str, workers: int, running: int | None, evidence: tuple[Evidence, ...],
                   current: int, what: str) -> Outcome:
        """The finding of a saturated pool (``what``: the backlog or the saturation it shows): more workers if the guide
        sizes more for this box, the database pool first when it is short of the running threads."""
        fixes = growth_fixes(ctx, "puma.workers", workers, "Puma workers")
        rec = recommended(ctx, "puma.workers")
        if rec is not None and isinstance(rec.value, int) and rec.value < workers:
            # the workers already exceed what the guide sizes for this box (puma-workers-outside-range lowers them):
            # one value, one direction; the saturation then needs hardware, not workers
            # (its fix stays with that finding: the same command is not given twice)
            fixes = (Fix("advice", "puma.workers", f"{workers} workers are more than the {rec.value} the guide sizes "
                                                  "for this hardware, and oversubscribed CPUs and RAM slow every "
                                                  f"request: set {rec.value} (the fix of puma-workers-outside-range), "
                                                  f"then add hardware if the {what} stays, and raise the workers "
                                                  "with it"),)
        pool = ctx.facts.value("foreman_db_pool")
        if running and pool and running > pool:  # threads that wait for a connection hold the request: pool first
            message += (f"; each worker runs {running} threads on a database pool of {pool}, so up to {running - pool} "
                        "of them wait for a connection: the pool comes first (foreman-db-pool-too-small)")
            fixes = (Fix("advice", "puma.workers", f"fix the database pool first ({pool} for {running} threads, see "
                                                  "foreman-db-pool-too-small); more workers or hardware only if the "
                                                  f"{what} stays after it"),)
            evidence += ctx.evidence("foreman_db_pool")
        return self.failed(message, current=current, recommended=0, evidence=evidence, fixes=fixes, observed=True)


RULE = PumaPoolSaturated()
