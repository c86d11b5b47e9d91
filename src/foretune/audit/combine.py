"""One problem, one finding: a failing finding that is a symptom of another failing finding joins it.

Which rules' failures are symptoms of which is rule metadata (``Rule.symptom_of``), not code here. A symptom joins
a root cause only when both count (failing, not waived) and the root cause quotes at least one of the symptom's
evidence lines (of the facts its rule's ``symptom_facts`` names for that root, when it names any): the log lines that made the root
cause critical (its ``failing_when``) are the ones the symptom's rule found, so an ``open-files-exhausted`` about mosquitto never joins ``httpd-nofile-low``. The joined finding
keeps the root cause's message and fix, takes the worst severity of the two, and lists the symptom under it. The
relation may chain (swap in use under the memory budget, the budget under Puma workers over the RAM); the report has
one level: every symptom is listed under the root that is no symptom itself (the metadata has no cycle).

:func:`profile_consequences` runs once the change set is known: a declared profile too small for the hosts is one
problem, and a finding whose every fix is a value the profile the audit moves to writes (Candlepin's heap, work_mem
at the larger profile) is that problem's consequence, listed under it.

:func:`fix_once` runs on the fix lines as the report prints them (after the change set has worded them): each fix
once per report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from foretune.audit.effect import without_dropin_cause
from foretune.audit.model import Finding
from foretune.rules.base import Evidence, Rule


def combine(findings: list[Finding], rules: Iterable[Rule]) -> list[Finding]:
    """``findings`` with each symptom moved under its root cause (the worst failing one its rule's ``symptom_of``
    names that quotes the symptom's evidence), in the original order otherwise."""
    rules = list(rules)
    symptom_of = {rule.id: rule.symptom_of for rule in rules}
    symptom_facts = {rule.id: dict(rule.symptom_facts) for rule in rules}
    by_rule = {f.rule_id: f for f in findings}
    parent: dict[str, str] = {}  # symptom -> the root cause it joins directly
    for f in findings:
        if not f.counts:
            continue
        facts = symptom_facts.get(f.rule_id, {})
        roots = [by_rule[r] for r in symptom_of.get(f.rule_id, ()) if r in by_rule and r != f.rule_id]
        roots = [r for r in roots if r.counts and any(_quotes(q, e) for q in r.evidence for e in f.evidence
                                                      if r.rule_id not in facts or e.fact in facts[r.rule_id])]
        if roots:
            parent[f.rule_id] = max(roots, key=lambda r: r.severity).rule_id

    def top(rule_id: str) -> str:
        """The root cause a symptom ends under: a root that is itself a symptom (the memory budget of Puma workers
        over the RAM) passes its symptoms up, so the report has one level."""
        seen = {rule_id}
        while rule_id in parent and parent[rule_id] not in seen:
            rule_id = parent[rule_id]
            seen.add(rule_id)
        return rule_id

    joined: dict[str, list[Finding]] = {}
    for f in findings:
        if f.rule_id in parent and top(f.rule_id) != f.rule_id:
            joined.setdefault(top(f.rule_id), []).append(f)
    moved = {s.rule_id for group in joined.values() for s in group}
    out = []
    for f in findings:
        if f.rule_id in moved:
            continue
        if f.rule_id in joined:
            # the root names the drop-in it quotes as the cause: its symptoms do not name it again
            symptoms = tuple(_cause_said(s, f) for s in joined[f.rule_id])
            worst = max((f, *symptoms), key=lambda x: x.severity)
            f = dataclasses.replace(f, symptoms=symptoms, severity=worst.severity,
                                    basis="measured" if any(s.basis == "measured" for s in symptoms) else f.basis)
        out.append(f)
    return _why_separate(out, {rule.id: rule.distinct_from for rule in rules})


def _why_separate(findings: list[Finding], distinct: dict[str, tuple[tuple[str, str], ...]]) -> list[Finding]:
    """Each failing finding that stays apart from another failing one that looks alike (``Rule.distinct_from``, its
    own rule's or a symptom's) says why, naming it: two root causes, each with its own fix, never one problem twice.
    Only when both are measured (the logs show each failing): two configuration risks with no error in the source
    read as two findings already, and the errors the reason names would not be in the source."""
    tops = [f for f in findings if f.counts and f.basis == "measured"]
    members = {id(f): {f.rule_id, *(s.rule_id for s in f.symptoms)} for f in tops}
    out = []
    for f in findings:
        said: list[str] = []
        for rule_id in sorted(members.get(id(f), ()), key=lambda r: r != f.rule_id):
            for other, why in distinct.get(rule_id, ()):
                where = next((o.rule_id for o in tops if o is not f and other in members[id(o)]), None)
                if where is not None and not any(where in s for s in said) and why not in f.message:
                    said.append(f"a separate problem from {where}" + (f" ({other} under it)" if other != where else "")
                                + f": {why}")
        out.append(dataclasses.replace(f, message=f"{f.message}; {'; '.join(said)}") if said else f)
    return out


# the findings whose fix is a profile change (``--tuning``): their consequences are the values that profile writes
PROFILE_ROOTS = ("profile-too-small-for-hosts", "development-profile-in-use")


def profile_consequences(findings: list[Finding], given: Iterable[str]) -> list[Finding]:
    """``findings`` with each failing finding whose every fix sets a key in ``given`` (the keys the profile change of
    the change set writes) listed under the failing profile finding as a symptom: one problem, one finding."""
    given = set(given)
    root = next((f for f in findings if f.rule_id in PROFILE_ROOTS and f.counts), None)
    if root is None or not given:
        return findings
    moved = [f for f in findings if f is not root and f.counts and not f.symptoms and f.fix_records
             and all(fix.kind == "hiera" and fix.target in given for fix in f.fix_records)]
    if not moved:
        return findings
    symptoms = (*root.symptoms, *moved)
    worst = max((root, *symptoms), key=lambda x: x.severity)
    joined = dataclasses.replace(root, symptoms=symptoms, severity=worst.severity,
                                 basis="measured" if any(s.basis == "measured" for s in symptoms) else root.basis)
    return [joined if f is root else f for f in findings if not any(f is m for m in moved)]


def _cause_said(symptom: Finding, root: Finding) -> Finding:
    """``symptom`` without the clause that names a file its root quotes as the hand-made cause (audit.effect)."""
    message = symptom.message
    for e in root.evidence:
        message = without_dropin_cause(message, e.location)
    return symptom if message == symptom.message else dataclasses.replace(symptom, message=message)


def _quotes(root: Evidence, line: Evidence) -> bool:
    """Whether the root's evidence line quotes ``line``: the same file, and every part of it (an excerpt joins a
    file's lines with ' | ') among the root's (``oom_kill 3`` in ``pswpin 912345 | pswpout 1823456 | oom_kill 3``)."""
    if root.location != line.location:
        return False
    mine = {p.strip() for p in line.excerpt.split(" | ") if p.strip()}
    return (root.excerpt, root.note) == (line.excerpt, line.note) or (bool(mine) and mine <= {p.strip() for p in root.excerpt.split(" | ")})


def fix_once(findings: list[Finding]) -> list[Finding]:
    """Each fix once per report: a symptom's fix its root cause (or an earlier symptom) already gives is not repeated
    under it, and a fix a worse (or earlier) finding already gives is left out of the later one, whose message names
    where it is (both findings stay: each judges its own setting)."""
    findings = [dataclasses.replace(f, symptoms=_symptom_fixes_once(f)) if f.symptoms else f for f in findings]
    seen: dict[str, str] = {}
    changed: dict[int, Finding] = {}
    for i in sorted(range(len(findings)), key=lambda i: -int(findings[i].severity)):
        f = findings[i]
        if not f.counts:
            continue
        repeated = [fix for fix in f.fixes if fix in seen]
        if any(fix not in seen and not _restart(fix) for fix in f.fixes):  # its own edit still needs the restart
            repeated = [fix for fix in repeated if not _restart(fix)]
        for fix in f.fixes:
            seen.setdefault(fix, f.rule_id)
        if repeated:
            where = sorted({seen[fix] for fix in repeated})
            changed[i] = dataclasses.replace(f, fixes=tuple(x for x in f.fixes if x not in repeated),
                                             message=f"{f.message}; the fix is part of {', '.join(where)}'s")
    return [changed.get(i, f) for i, f in enumerate(findings)]


def _restart(fix: str) -> bool:
    """``fix`` only makes other fix lines take effect (a restart, after a daemon-reload)."""
    return fix.startswith(("systemctl restart ", "systemctl daemon-reload && systemctl restart "))


def _symptom_fixes_once(root: Finding) -> tuple[Finding, ...]:
    """The root's symptoms, each without the fixes the root or an earlier symptom already gives."""
    seen = set(root.fixes)
    out = []
    for s in root.symptoms:
        out.append(dataclasses.replace(s, fixes=tuple(x for x in s.fixes if x not in seen)))
        seen.update(s.fixes)
    return tuple(out)
