"""passenger-status shows requests queued with the pool full (Passenger era)."""

from __future__ import annotations

import re

from foretune.knowledge import module_default, threshold
from foretune.plan.constants import const
from foretune.plan.model import Fix
from foretune.rules.base import Basis, Context, Outcome, Rule, Severity
from foretune.rules.passenger._passenger import passenger_era
from foretune.rules.recommend import growth_fixes
from foretune.term import plural


class PassengerQueueSaturated(Rule):
    id = "passenger-queue-saturated"
    title = "Passenger's pool has room and its queue is empty"
    component = "passenger"
    severity = Severity.HIGH
    version_added = "0.1.0"
    basis = Basis.MEASURED
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: Passenger advice "also apply directly to the capsule"
    needs = ("passenger_status",)
    citations = ("g62-passenger", "passenger-queue-default")
    # a queue at a PassengerMaxRequestQueueSize below the plan's is that limit's measured failure: one problem, listed
    # under passenger-queue-too-small (which then quotes the same passenger-status lines)
    symptom_of = ("passenger-queue-too-small",)
    symptom_facts = (("passenger-queue-too-small", ("passenger_status",)),)

    def applies(self, ctx: Context) -> str | None:
        return passenger_era(ctx)

    def check(self, ctx: Context) -> Outcome:
        status = ctx.facts.value("passenger_status")
        queued = (status.get("top_queue") or 0) + (status.get("app_queue") or 0)
        # PassengerMaxRequestQueueSize bounds each application's queue: the fullest one meets it, never a sum
        fullest = status.get("app_queue_max", status.get("app_queue")) or 0
        pool, running = status.get("max_pool_size") or 0, status.get("processes") or 0
        limit = ((ctx.facts.value("passenger") or {}).get("PassengerMaxRequestQueueSize")
                 or module_default("passenger", "max_request_queue_size"))
        # the queue and the pool it judges: passenger-status's counts and the directives that bound them (never the
        # vhost's PassengerMinInstances, which sizes neither)
        evidence = ctx.evidence("passenger_status", "passenger", whole=True,
                                about=("queue", "pool", "processes", "PassengerMaxRequestQueueSize", "PassengerMaxPoolSize"))
        if queued == 0:
            return self.passed(f"{running} of {pool} processes, nothing queued")
        fixes = growth_fixes(ctx, "passenger.max_pool_size", pool, "PassengerMaxPoolSize")
        if fullest >= limit:
            cites: tuple[str, ...] = self.citations
            if all(f.kind == "advice" for f in fixes):  # the pool cannot grow here: make the queue hold the burst
                queue_fixes = self._queue_fixes(ctx, pool, limit)
                if queue_fixes:
                    fixes = (*queue_fixes, *fixes)
                    cites = (*self.citations, "g69-apache", "foretune-estimate")
            return self.failed(f"{plural(fullest, 'request')} queued for one application, at its PassengerMaxRequestQueueSize {limit}: "
                               "further requests get HTTP 503 now", current=fullest, recommended=f"< {limit}", evidence=evidence,
                               fixes=fixes, severity=Severity.CRITICAL, observed=True, citations=cites)
        if running >= pool:
            # each application's queue against its own limit; below it requests wait but none is refused: medium
            where = f", {queued} across the queues" if queued != fullest else ""
            return self.failed(f"all {pool} Passenger processes busy and requests waiting: {fullest} queued for the fullest "
                               f"application, of its PassengerMaxRequestQueueSize {limit} (a limit per application"
                               f"{where}); requests are delayed, none refused yet", current=fullest,
                               recommended=0, evidence=evidence, fixes=fixes, observed=True, severity=Severity.MEDIUM)
        return self.passed(f"{queued} queued while processes spawn ({running} of {pool})")

    @staticmethod
    def _queue_fixes(ctx: Context, pool: int, limit: int) -> tuple[Fix, ...]:
        """The brief: the queue is "the maximum expected burst ... but below Apache's MaxClients and ServerLimit". The
        burst filled ``limit``: the queue grows to hold more of it (passenger_queue_raise_when_full, a foretune estimate),
        and MaxClients and ServerLimit to the plan's prefork sum above it (the pool, that queue, the registrations and
        the Pulp processes, as the 6.9 guide sizes ServerLimit)."""
        queue = ctx.tunables.get("passenger.max_request_queue_size")
        if queue is None or not queue.fixes:
            return ()
        want = int(limit * threshold("passenger_queue_raise_when_full"))
        fixes = [_valued(f, want) for f in queue.fixes]
        apache = ctx.facts.value("apache") or {}
        regs, pulp = const("prefork_concurrent_registrations"), min(module_default("pulp2", "workers_cap"), ctx.plan.input.cpus if ctx.plan else 1)
        clients = pool + want + regs + pulp
        for name, directive in (("apache.server_limit", "ServerLimit"), ("apache.max_clients", "MaxClients")):
            t = ctx.tunables.get(name)
            have = apache.get(directive)
            if t is not None and t.fixes and (not isinstance(have, int) or have < clients):
                fixes += [_valued(f, clients) for f in t.fixes]
        return tuple(fixes)


def _valued(fix: Fix, value: int) -> Fix:
    """``fix`` setting ``value``: a file edit's line (``PassengerMaxRequestQueueSize 200``) ends with it."""
    if fix.kind == "file" and isinstance(fix.value, str):
        return fix._replace(value=re.sub(r"\d+$", str(value), fix.value))
    return fix._replace(value=value)


RULE = PassengerQueueSaturated()
