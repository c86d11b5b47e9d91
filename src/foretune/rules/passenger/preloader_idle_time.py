"""Passenger preloader kept alive."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, PlanRule, Severity
from foretune.rules.passenger._passenger import compare


class PreloaderIdleTime(PlanRule):
    id = "passenger-preloader-idle"
    title = "Passenger preloader kept alive"
    component = "passenger"
    severity = Severity.LOW
    version_added = "0.1.0"
    roles = frozenset({"server", "capsule"})  # 6.2 brief 5.9: Passenger advice "also apply directly to the capsule"
    needs = ("passenger",)
    citations = ("g62-passenger",)
    tunable = "passenger.max_preloader_idle_time"

    def check(self, ctx: Context) -> Outcome:
        return compare(self, ctx, "PassengerMaxPreloaderIdleTime", lambda v, w: v == w, "the preloader exits when idle and the next burst waits for a cold spawn")


RULE = PreloaderIdleTime()
