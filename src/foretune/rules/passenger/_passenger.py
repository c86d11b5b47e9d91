"""Shared helper: compare one Passenger setting with the plan."""

from __future__ import annotations

from collections.abc import Callable

from foretune.rules.base import Context, Evidence, Outcome, PlanRule


def compare(rule: PlanRule, ctx: Context, key: str, ok: Callable[[int, int], bool], why: str) -> Outcome:
    value = ctx.facts.value("passenger").get(key)
    t = rule.recommendation(ctx)
    want = t.foretune.value
    if value is not None and ok(value, want):
        return rule.passed(f"{key} {value}")
    shown = value if value is not None else "unset (Passenger default)"
    evidence = ctx.evidence("passenger", about=key)  # that directive's lines, not the pool's or the queue's
    if value is None:  # the files are quoted for what they lack
        evidence = tuple(Evidence(e.fact, e.location, note=f"no line sets {key}; Passenger's default applies")
                         for e in dict.fromkeys(Evidence(e.fact, e.location) for e in evidence))
    return rule.failed(f"{key} {shown}; recommended {want}: {why}", current=value, recommended=want,
                       evidence=evidence, fixes=t.fixes)


def passenger_era(ctx: Context) -> str | None:
    """A skip reason unless the release serves Foreman through Passenger (Satellite 6.8 and older)."""
    if ctx.release is None:
        return "release unknown"
    return None if ctx.release.features.passenger else f"{ctx.release.label} runs Puma, not Passenger"
