"""Where plan's change set keeps a site value that the audit lowers: said, with the audit's value and how to get it.

A site value above foretune's is kept by `plan --output-dir`, `--format hiera` / `installer` and `apply` (never lowered
silently). The audit may lower it: a critical finding that the box measures (OOM kills, refused connections) gives it
that right. The two sets then differ on purpose, and each kept value says so, instead of disagreeing in silence.
"""

from __future__ import annotations

from typing import Any


def _number(value: Any) -> float | None:
    try:
        return float(str(value).strip())
    except ValueError:
        return None


def audit_lowers(changes: Any, facts: Any, hosts: int | None, how: str) -> Any:
    """``changes`` (plan's set) with each kept site value that the audit of ``facts`` lowers told in its line: which
    critical finding, what the box measures, the audit's value, and ``how`` (the command that writes the audit's set).
    The audit runs only when the set keeps a site value above foretune's."""
    kept = [b for b in changes.blocked if b.change.site_value is not None and "never lowered silently" in b.why]
    if facts is None or not hasattr(facts, "value") or not kept:
        return changes
    from types import SimpleNamespace  # start-up: only when a site value is kept

    from foretune.audit.combine import combine  # start-up: only when a site value is kept
    from foretune.audit.context import build_context  # start-up: only when a site value is kept
    from foretune.audit.runner import run_all  # start-up: only when a site value is kept
    from foretune.commands.audit import change_set  # start-up: only when a site value is kept
    from foretune.rules.base import Severity  # start-up: only when a site value is kept
    from foretune.rules.registry import all_rules  # start-up: only when a site value is kept

    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    if ctx.plan is None:
        return changes
    findings = combine(run_all(all_rules(), ctx), all_rules())  # as the audit judges them: a root takes its symptoms'
    critical = {f.rule_id: f for f in findings if f.counts and f.severity >= Severity.CRITICAL}
    if not critical:
        return changes
    audit_set = change_set(SimpleNamespace(findings=findings), ctx.fix_plan or ctx.plan, facts)
    blocked = []
    for b in changes.blocked:
        theirs = audit_set.for_tunable(b.change.tunable) if b in kept else None
        site, value = _number(b.change.site_value), _number(theirs.value) if theirs is not None else None
        finding = critical.get(theirs.source) if theirs is not None else None
        if finding is None or theirs is None or theirs.op != "set" or site is None or value is None or value >= site:
            blocked.append(b)
            continue
        measured = [s.rule_id for s in finding.symptoms if s.counts and s.basis == "measured"]
        blocked.append(b._replace(why=f"{b.why}. The audit lowers it to {theirs.value}: its critical finding "
                                      f"{finding.rule_id} rests on what the box measures"
                                      f"{' (' + ', '.join(measured) + ')' if measured else ''}; {how}"))
    return changes._replace(blocked=tuple(blocked))

