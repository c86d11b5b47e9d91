"""One problem, one finding: a failing finding that is a symptom of another failing finding joins it.

Which rules' failures are symptoms of which is rule metadata (``Rule.symptom_of``), not code here. A symptom joins
a root cause only when both count (failing, not waived) and the root cause quotes at least one of the symptom's
evidence lines: the log lines that made the root cause critical (its ``failing_when``) are the ones the symptom's
rule found, so an ``open-files-exhausted`` about mosquitto never joins ``httpd-nofile-low``. The joined finding
keeps the root cause's message and fix, takes the worst severity of the two, and lists the symptom under it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from foretune.audit.model import Finding
from foretune.rules.base import Rule


def combine(findings: list[Finding], rules: Iterable[Rule]) -> list[Finding]:
    """``findings`` with each symptom moved under its root cause (the worst failing one its rule's ``symptom_of``
    names that quotes the symptom's evidence), in the original order otherwise."""
    symptom_of = {rule.id: rule.symptom_of for rule in rules}
    by_rule = {f.rule_id: f for f in findings}
    joined: dict[str, list[Finding]] = {}
    for f in findings:
        if not f.counts or f.rule_id in joined:  # a root cause is never itself moved under another
            continue
        lines = {(e.location, e.excerpt) for e in f.evidence}
        roots = [by_rule[r] for r in symptom_of.get(f.rule_id, ()) if r in by_rule and r != f.rule_id]
        roots = [r for r in roots if r.counts and lines & {(e.location, e.excerpt) for e in r.evidence}]
        if roots:
            joined.setdefault(max(roots, key=lambda r: r.severity).rule_id, []).append(f)
    moved = {s.rule_id for group in joined.values() for s in group}
    out = []
    for f in findings:
        if f.rule_id in moved:
            continue
        if f.rule_id in joined:
            symptoms = tuple(joined[f.rule_id])
            worst = max((f, *symptoms), key=lambda x: x.severity)
            f = dataclasses.replace(f, symptoms=symptoms, severity=worst.severity,
                                    basis="measured" if any(s.basis == "measured" for s in symptoms) else f.basis)
        out.append(f)
    return out
