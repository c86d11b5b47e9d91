"""PassengerMaxRequestQueueSize fits the request burst."""

from __future__ import annotations

import dataclasses

from foretune.knowledge import module_default
from foretune.rules.base import Context, Outcome, PlanRule, Severity, Status
from foretune.rules.passenger._passenger import compare
from foretune.term import plural


class QueueTooSmall(PlanRule):
    id = "passenger-queue-too-small"
    title = "PassengerMaxRequestQueueSize fits the request burst"
    component = "passenger"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    failing_when = (("http_503_burst", ()), ("http_503_share", ()), ("queue_at_capacity", ("passenger",)))
    uses_hosts = True
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: Passenger advice "also apply directly to the capsule"
    needs = ("passenger",)
    citations = ("g62-passenger", "passenger-queue-default")
    tunable = "passenger.max_request_queue_size"

    def check(self, ctx: Context) -> Outcome:
        outcome = compare(self, ctx, "PassengerMaxRequestQueueSize", lambda v, w: v >= w,
                          f"a {'Puppet' if ctx.role == 'capsule' else 'registration'} burst beyond the queue gets HTTP 503")
        status = ctx.facts.value("passenger_status") or {}
        queued = status.get("app_queue_max", status.get("app_queue")) or 0  # the limit is per application
        size = (ctx.facts.value("passenger").get("PassengerMaxRequestQueueSize")
                or module_default("passenger", "max_request_queue_size"))
        if outcome.status == Status.FAIL and queued >= size:
            return dataclasses.replace(outcome, severity=Severity.CRITICAL, observed=True,
                                       message=f"{outcome.message}; already full: passenger-status shows {plural(queued, 'request')} queued for one application",
                                       evidence=(*ctx.evidence("passenger_status", about="queue", whole=True), *outcome.evidence))
        return outcome


RULE = QueueTooSmall()
