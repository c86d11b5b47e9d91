"""Passenger-era KeepAlive checks share their gate and evidence."""

from __future__ import annotations

from foretune.rules.base import Context, PlanRule


class KeepAliveRule(PlanRule):
    def applies(self, ctx: Context) -> str | None:
        reason = super().applies(ctx)
        if reason and ctx.plan is not None:
            return "KeepAlive tuning is for the Passenger era (Satellite 6.8 and older)"
        return reason
