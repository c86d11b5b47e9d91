"""Run rules against a context: gates in order, exceptions become ERROR outcomes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

from foretune.audit.effect import take_effect
from foretune.audit.model import Finding
from foretune.changes.build import fix_key
from foretune.errors import UsageError
from foretune.facts.model import LOST
from foretune.knowledge import citation
from foretune.plan.model import Fix
from foretune.rules.base import Basis, Context, Evidence, Outcome, Rule, Severity, Status


def run_rule(rule: Rule, ctx: Context) -> Outcome:
    """Role gate, then ``applies()``, then ``needs``, then ``check()``; never raises. When the host count was lost to
    a damaged archive's damage, a verdict or fix that depends on it is not judged (:func:`without_lost_hosts`)."""
    outcome = _run_rule(rule, ctx)
    if not ctx.host_variants:
        return outcome
    try:
        return without_lost_hosts(rule, ctx, outcome)
    except Exception as exc:  # a rule bug must not end the audit
        return Outcome(Status.ERROR, f"rule failed: {type(exc).__name__}: {exc}")


def without_lost_hosts(rule: Rule, ctx: Context, outcome: Outcome) -> Outcome:
    """``outcome`` when the rule gives the same verdict, value and fixes at the fewest and the most hosts
    (``ctx.host_variants``); else not judged ("host count lost to the damage"), except a measured failure, which
    stands on its own with only the fixes every host count gives (no command sized from the assumed count)."""
    others = [_run_rule(rule, variant) for variant in ctx.host_variants]
    why = f"host count {ctx.facts['managed_hosts'].unknown_reason or LOST}"
    if all((o.status, o.recommended, o.fixes) == (outcome.status, outcome.recommended, outcome.fixes) for o in others):
        if rule.uses_hosts and outcome.status != Status.SKIP:  # its message names the assumed count
            return dataclasses.replace(outcome, message=f"{outcome.message} [the same at any host count; {why}]")
        return outcome
    if outcome.status == Status.FAIL and outcome.basis == Basis.MEASURED:
        fixes = tuple(fix for fix in outcome.fixes if all(fix in o.fixes for o in others))
        same = all(o.recommended == outcome.recommended for o in others)
        return dataclasses.replace(outcome, fixes=fixes, recommended=outcome.recommended if same else f"unknown: {LOST_HOSTS}",
                                   message=f"{outcome.message} [no fix sized for the hosts is given: {why}]")
    return Outcome(Status.SKIP, f"not judged: {why}")


LOST_HOSTS = f"host count {LOST}"  # what a verdict or value that depends on a host count the damage took says


def _run_rule(rule: Rule, ctx: Context) -> Outcome:
    try:
        if ctx.role is not None and ctx.role not in rule.roles:
            return Outcome(Status.SKIP, f"not applicable to a {ctx.role}")
        reason = rule.applies(ctx)
        if reason:
            return Outcome(Status.SKIP, reason)
        for name in rule.needs:
            fact = ctx.facts[name]
            if not fact.known:
                if fact.lost:  # a damaged archive: unknown, never taken as absent
                    return Outcome(Status.SKIP, f"not judged: {name} {fact.unknown_reason}")
                return Outcome(Status.SKIP, f"fact unknown: {name} ({fact.unknown_reason})")
        outcome = rule.check(ctx)
        cut = next((name for name in rule.needs if name == "log_incidents" and name in ctx.facts.partial), None)
        if outcome.status == Status.PASS and cut is not None:  # no incident in the logs that were read: not a pass
            return Outcome(Status.SKIP, f"not judged: {cut} {ctx.facts.partial[cut]}")
        return take_effect(rule, ctx, qualify(rule, ctx, outcome))
    except Exception as exc:  # a rule bug must not end the audit
        return Outcome(Status.ERROR, f"rule failed: {type(exc).__name__}: {exc}")


def qualify(rule: Rule, ctx: Context, outcome: Outcome) -> Outcome:
    """Calibrate a failure to what the source supports: severity from evidence.

    A limit the logs show failing is measured failure: critical, with the line quoted. A value the installer writes
    by itself (:func:`installer_writes`: the declared profile's value, its formula, a default of its Puppet modules),
    with no site setting behind it, is hygiene (low) for every component alike, unless the rule weighs demand
    against it. Then the severity is capped by the
    failure's basis (``Basis.cap``): measured state may be critical, a setting with nothing measured is at most
    medium, and a verdict resting on an assumed host count is at most low and says so.
    """
    if outcome.status != Status.FAIL:
        return outcome
    outcome = _failing_now(rule, ctx, outcome)
    outcome = _at_installer_value(rule, ctx, outcome)
    basis = evidence_basis(rule, ctx, outcome)
    severity = outcome.severity if outcome.severity is not None else rule.severity
    message = outcome.message
    if basis == Basis.ASSUMED and ctx.host_figure is not None:
        message = f"{message} [{ctx.host_figure.reason.replace('assumed: ', f'assumed {ctx.host_figure.count} hosts, ')}; give --hosts]"
    severity = min(severity, basis.cap)
    if ctx.facts.garbled and basis == Basis.MEASURED:  # deflate decodes damage into plausible data: what was measured
        # (a quoted log line, a counter) may be garbage
        severity = min(severity, Severity.HIGH)
        message = (f"{message} [read from a .tar.gz that failed its integrity check, so every member may be corrupt: "
                   "check this on the box before acting]")
    return dataclasses.replace(outcome, message=message, severity=severity, basis=basis)


def evidence_basis(rule: Rule, ctx: Context, outcome: Outcome) -> Basis:
    """What the failure rests on: measured when the source shows it, else the outcome's own basis, else assumed
    when the verdict weighs an assumed host count, else the rule's."""
    if outcome.observed:  # the logs show it failing (also when the rule itself judged an assumed figure)
        return Basis.MEASURED
    if outcome.basis is not None:
        return outcome.basis
    if rule.uses_hosts and ctx.hosts_assumed and ctx.host_figure is not None:
        return Basis.ASSUMED
    return rule.basis


def _failing_now(rule: Rule, ctx: Context, outcome: Outcome) -> Outcome:
    """A limit the logs show failing is critical, and the finding quotes the line."""
    from foretune.rules import incidents  # start-up: the incident rules load only for a measured-failure check

    found = [i for kind, services in rule.failing_when for i in incidents.incidents(ctx, kind, services=services)]
    if not found or incidents.times(found) < rule.failing_min:
        return outcome
    worst = max(found, key=lambda i: int(i.get("count") or 0))
    said = incidents.quote(worst) in outcome.message  # the rule quoted the line itself: not twice
    # one line of one file: its own count; several of one kind (a kill in dmesg and in messages, two services' kills):
    # every occurrence once, over all their times, as the symptoms listed under this finding count them; of different
    # kinds (503s in the access log, the same requests' "Request queue is full" in the error log): each count with
    # its kind, never their sum
    kinds = incidents.by_kind(found) if len(found) > 1 else None
    failing = (f"already failing: {incidents.quote(worst)}, {incidents.span(worst)}" if len(found) == 1 else
               f"already failing ({incidents.counts(kinds)}; each kind counted apart, as one failed request can show in "
               f"two logs): {incidents.quote(worst)}" if kinds else
               f"already failing {incidents.span(incidents.overall(found))}: {incidents.quote(worst)}")
    return dataclasses.replace(outcome, severity=Severity.CRITICAL, observed=True,
                               message=outcome.message if said else f"{outcome.message}; {failing}",
                               evidence=(*incidents.evidence(found), *outcome.evidence))


def _at_installer_value(rule: Rule, ctx: Context, outcome: Outcome) -> Outcome:
    tunable = ctx.plan.tunables.get(getattr(rule, "tunable", None) or "") if ctx.plan else None
    if rule.uses_hosts or rule.demand_based or outcome.observed or ctx.plan is None or tunable is None:
        return outcome
    setting = tunable.installer
    installer = setting.value
    if (setting.origin or not installer_writes(setting) or installer is None or outcome.current is None
            or str(outcome.current).strip() != str(installer).strip()):
        return outcome  # the site set it (answers, custom-hiera), the installer leaves it unset, or it differs
    severity = outcome.severity if outcome.severity is not None else rule.severity
    if severity <= Severity.LOW:
        return outcome
    note = (f" (this is the {ctx.plan.profile} profile's own value: hygiene, not a fault)" if "fi-tuning-profiles" in setting.citations
            else f" (this is the installer's own value, {setting.reason}: hygiene, not a fault)")
    return dataclasses.replace(outcome, severity=Severity.LOW, message=f"{outcome.message}{note}")


def installer_writes(setting: Any) -> bool:
    """Whether the installer's run writes this value by itself: a tuning profile's value, the installer's formula, or a
    parameter default of its Puppet modules (foreman-installer, puppet-foreman, puppet-foreman_proxy citations). A
    value it leaves unset (systemd's LimitNOFILE, the kernel's, RHEL's, a program's built-in default) is not: the
    guide asks the admin to set that one, and a rule judges it as any setting (up to medium)."""
    reason = setting.reason.lower()
    if reason.startswith("not "):
        return False
    return (any(c.startswith(("fi-", "pf-", "pfp-")) for c in setting.citations)
            or any(word in reason for word in ("installer", "--tuning", "puppet")))


def finding(rule: Rule, outcome: Outcome) -> Finding:
    from foretune.render.snippets import render_fix  # start-up: only when finding runs

    cites = tuple((c.id, c.title, c.where) for c in (citation(cid) for cid in outcome.citations or rule.citations))
    return Finding(rule_id=rule.id, title=rule.title, component=rule.component,
                   severity=outcome.severity if outcome.severity is not None else rule.severity,
                   status=outcome.status, message=outcome.message, current=outcome.current,
                   recommended=outcome.recommended, evidence=distinct_evidence(outcome.evidence),
                   basis=(outcome.basis or rule.basis).value if outcome.status == Status.FAIL else "",
                   fixes=tuple(render_fix(fix) for fix in outcome.fixes), citations=cites, unit=rule.unit,
                   fix_records=outcome.fixes,
                   recommends=tuple(pair for fix in outcome.fixes for pair in _recommends(fix)))


def distinct_evidence(evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """Each evidence line once: an excerpt another one from the same file already holds (``MemTotal`` beside
    ``MemTotal | MemAvailable``) is left out."""
    def parts(e: Evidence) -> set[str]:
        return {p.strip() for p in re.split(r"\n| \| ", e.excerpt) if p.strip()}

    out: list[Evidence] = []
    for i, e in enumerate(evidence):
        mine = parts(e)
        held = any(j != i and o.location == e.location and mine and mine <= parts(o) and (mine < parts(o) or j < i)
                   for j, o in enumerate(evidence))
        if not held:
            out.append(e)
    return tuple(out)


def _recommends(fix: Fix) -> list[tuple[str, Any]]:
    """(tunable, value) pairs a fix puts in force, named as the change set names where they are set (a hiera key,
    ``httpd.service:LimitNOFILE``, a sysctl, ``file:directive``, ``profile``); none for advice and removals."""
    if fix.kind == "hiera" and isinstance(fix.value, dict):
        return [(f"{fix.target}/{k}", v) for k, v in fix.value.items()]
    if fix.kind in ("hiera", "sysctl", "installer"):
        return [(fix.target, fix.value)]
    if fix.kind == "limit":
        return [(f"{fix.target}.service:LimitNOFILE", fix.value)]
    if fix.kind == "file":  # "PassengerMinInstances 6", "shared_buffers = 4992MB", "mgmt-pub-interval=5"
        found = re.match(r"\s*([\w.:-]+?)\s*(?:=|\s)\s*(.+)", str(fix.value))
        return [(fix_key(fix), found.group(2).strip())] if found else []
    if fix.kind == "command" and (found := re.search(r" --tuning (\S+)$", fix.target)) and not fix.target.startswith("add hardware"):
        return [("profile", found.group(1))]
    return []


def select_rules(rules: Iterable[Rule], select: list[str], ignore: list[str]) -> list[Rule]:
    """Rules whose id or component is selected (all when ``select`` is empty) and not ignored."""

    rules = list(rules)
    names = {r.id for r in rules} | {r.component for r in rules}
    unknown = [n for n in (*select, *ignore) if n not in names]
    if unknown:
        raise UsageError(f"unknown rule or component: {', '.join(unknown)} (see: foretune rules list)")
    chosen = [r for r in rules if not select or r.id in select or r.component in select]
    return [r for r in chosen if r.id not in ignore and r.component not in ignore]


def run_all(rules: Iterable[Rule], ctx: Context) -> list[Finding]:
    return [finding(rule, run_rule(rule, ctx)) for rule in rules]
