"""Judging a box: the rules run, root causes take their symptoms, waivers apply; and the profile the values are sized
for is the one the counted findings ask for.

The context's ``fix_plan`` (the plan at the profile the audit would move to) sizes every recommended value. When no
counted finding asks for that move (its finding waived, or its rule not selected), the move is not in the change set,
so the findings are judged again at the declared profile: the other fixes are then sized for the profile that stays.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Sequence

from foretune.audit.combine import combine
from foretune.audit.model import Finding
from foretune.audit.runner import run_all
from foretune.audit.waivers import Waiver, apply_waivers
from foretune.plan.refused import accepted_profile
from foretune.rules.base import Context, Rule

_TUNING = re.compile(r"--tuning \S+$")


def judge(rules: Sequence[Rule], every_rule: Sequence[Rule], ctx: Context, waivers: Sequence[Waiver] = (),
          today: datetime.date | None = None) -> tuple[Context, list[Finding], list[str]]:
    """(the context the findings were judged in, the findings, waiver warnings). ``every_rule``: the registry, which
    combine reads the root causes from."""
    findings, warnings = _judged(rules, every_rule, ctx, waivers, today)
    if _moved_unasked(ctx, findings):
        ctx = dataclasses.replace(ctx, fix_plan=None)
        findings, warnings = _judged(rules, every_rule, ctx, waivers, today)
    return ctx, findings, warnings


def asks_for_profile(findings: Sequence[Finding]) -> bool:
    """A counted finding (or a symptom under one) has a fix that runs the installer with ``--tuning``."""
    return any(_TUNING.search(str(fix.target)) and not str(fix.target).startswith("add hardware")
               for f in findings if f.counts for s in (f, *f.symptoms) for fix in s.fix_records
               if fix.kind in ("command", "installer"))


def _judged(rules: Sequence[Rule], every_rule: Sequence[Rule], ctx: Context, waivers: Sequence[Waiver],
            today: datetime.date | None) -> tuple[list[Finding], list[str]]:
    findings = combine(run_all(list(rules), ctx), list(every_rule))  # before waivers: a waived root takes its symptoms
    if not waivers:
        return findings, []
    return apply_waivers(findings, list(waivers), today or datetime.date.today())


def _moved_unasked(ctx: Context, findings: Sequence[Finding]) -> bool:
    """The values are sized for a profile move (not for a declared profile the hardware check refuses, which nothing
    sized for could take effect at) that no counted finding asks for."""
    plan, fixed = ctx.plan, ctx.fix_plan
    return (plan is not None and fixed is not None and fixed.profile != plan.profile and accepted_profile(plan) is None
            and not asks_for_profile(findings))
