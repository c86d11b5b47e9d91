"""PassengerMinInstances keeps Foreman warm."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.passenger._passenger import compare


class MinInstancesLow(PlanRule):
    id = "passenger-min-instances-low"
    title = "PassengerMinInstances keeps Foreman warm"
    component = "passenger"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("passenger",)
    citations = ("g62-passenger",)
    tunable = "passenger.min_instances"

    def check(self, ctx: Context) -> Outcome:
        return compare(self, ctx, "PassengerMinInstances", lambda v, w: v >= w, "a burst waits while Passenger spawns Foreman processes")


RULE = MinInstancesLow()
