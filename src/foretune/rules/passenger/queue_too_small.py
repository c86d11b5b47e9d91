"""PassengerMaxRequestQueueSize fits the request burst."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.passenger._passenger import compare


class QueueTooSmall(PlanRule):
    id = "passenger-queue-too-small"
    title = "PassengerMaxRequestQueueSize fits the request burst"
    component = "passenger"
    severity = Severity.MEDIUM
    uses_hosts = True
    roles = frozenset({"server"})
    needs = ("passenger",)
    citations = ("g62-passenger",)
    tunable = "passenger.max_request_queue_size"

    def check(self, ctx: Context) -> Outcome:
        return compare(self, ctx, "PassengerMaxRequestQueueSize", lambda v, w: v >= w, "a registration burst beyond the queue gets HTTP 503")


RULE = QueueTooSmall()
