"""PassengerMaxPoolSize at least 1.5 x physical cores."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.passenger._passenger import compare


class PoolBelowCores(PlanRule):
    id = "passenger-pool-below-cores"
    title = "PassengerMaxPoolSize at least 1.5 x physical cores"
    component = "passenger"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: Passenger advice "also apply directly to the capsule"
    needs = ("passenger",)
    citations = ("g62-passenger",)
    tunable = "passenger.max_pool_size"

    def check(self, ctx: Context) -> Outcome:
        return compare(self, ctx, "PassengerMaxPoolSize", lambda v, w: v >= w, "too few Foreman and Puppet processes for the CPUs; requests queue")


RULE = PoolBelowCores()
