"""PassengerMinInstances keeps Foreman warm."""

from __future__ import annotations

from typing import Any

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.passenger._passenger import compare


class MinInstancesLow(PlanRule):
    id = "passenger-min-instances-low"
    title = "PassengerMinInstances keeps Foreman warm"
    component = "passenger"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: Passenger advice "also apply directly to the capsule"
    needs = ("passenger",)
    citations = ("g62-passenger",)
    tunable = "passenger.min_instances"

    def recommendation(self, ctx: Context) -> Any:
        """Foreman's application on a server; a Capsule's Passenger serves only Puppet (the brief's capsule example)."""
        assert ctx.plan is not None
        return ctx.tunables.get(self.app_tunable(ctx)) or ctx.plan.tunables[self.app_tunable(ctx)]

    def app_tunable(self, ctx: Context) -> str:
        return "passenger.puppet_min_instances" if ctx.role == "capsule" else self.tunable

    def applies(self, ctx: Context) -> str | None:
        if ctx.plan is None:
            return ctx.no_plan_reason
        if self.app_tunable(ctx) not in ctx.plan.tunables:
            return self.not_planned(ctx)
        return None

    def check(self, ctx: Context) -> Outcome:
        return compare(self, ctx, "PassengerMinInstances", lambda v, w: v >= w, f"a burst waits while Passenger spawns {'Puppet' if ctx.role == 'capsule' else 'Foreman'} processes")


RULE = MinInstancesLow()
