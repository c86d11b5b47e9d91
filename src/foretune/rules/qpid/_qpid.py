"""Shared helper for the qpid open-file limits (katello-agent era).

Satellite 6.2's brief gives one flat value (LimitNOFILE=1000000) "when you plan to have a big amount
of clients with katello-agent" and no per-host formula; later guides give qpidd 4N+500 and
qdrouterd 3N+100. Each release's recommendation is its own source's; what a limit holds is sized by the later
guides' formula on 6.2 too (descriptors per client are the daemon's, not the release's), and the message says so.
"""

from __future__ import annotations

from foretune.knowledge import citation
from foretune.rules.base import Basis, Context, Outcome, PlanRule, Severity

HOLDS = {"qpidd": "queue", "qdrouterd": "connection"}
FORMULA = {"qpidd": ("qpidd_fds_per_host", "qpidd_fds_base"), "qdrouterd": ("qdrouterd_fds_per_host", "qdrouterd_fds_base")}


def qpidd_absent(rule: PlanRule, ctx: Context) -> str | None:
    """A skip reason when qpidd is not installed (Satellite 6.13 and 6.14 without katello-agent, Capsules without
    it, 6.15+): the qpid-only tunables (fs.aio-max-nr for its journal, mgmt-pub-interval) then mean nothing."""
    fact = ctx.facts["qpid"]
    reason = PlanRule.applies(rule, ctx)
    # on a qpid release the plan has no qpid rows when qpidd is absent (katello-agent opt-in): say that first
    if reason and not (ctx.plan is not None and ctx.plan.release.features.qpid and not fact.known):
        return reason
    if fact.known:
        return None
    reason = fact.unknown_reason or ""
    return reason if reason.startswith("qpidd is not installed") else f"qpidd is not installed: {reason}"


def nofile_check(rule: PlanRule, ctx: Context, key: str, daemon: str) -> Outcome:
    from foretune.plan.constants import const  # start-up: plan code, only when the check runs

    assert ctx.plan is not None
    current = ctx.facts.value("qpid").get(key)
    if current is None:
        return rule.skipped(f"{daemon} LimitNOFILE unknown")
    t = rule.recommendation(ctx)
    era62 = not ctx.plan.release.features.custom_hiera
    cites: tuple[str, ...] = ("g62-qpid",) if era62 else ("g69-qpid",)
    evidence = ctx.evidence("qpid", "service_limits", about=f"{daemon}.service")
    if t.foretune.value is None or current >= t.foretune.value:
        return rule.passed(f"{daemon} LimitNOFILE={current}", citations=cites)
    hosts = ctx.plan.input.katello_agent_hosts
    per, base = (const(k) for k in FORMULA[daemon])
    # the 6.2 brief gives no per-host figure; the later guides' formula measures what each katello-agent client holds
    # in the same daemon, so it sizes what a limit holds on 6.2 too (the recommendation stays the brief's)
    source = "the later guides' formula: the 6.2 brief gives none" if era62 else "the guide's formula"
    if era62:
        cites = (*cites, "g69-qpid")
    if ctx.hosts_assumed:  # the verdict rests on an assumed figure: say what the limit in force holds instead
        holds = max(0, (current - base) // per)
        return rule.failed(f"{daemon}'s {current} descriptors hold up to {holds} katello-agent hosts ({per} per host + "
                           f"{base}, {source}); the {'6.2 brief sets' if era62 else 'plan recommends'} "
                           f"LimitNOFILE={t.foretune.value}; below {holds} hosts the limit in force is enough",
                           current=current, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes,
                           citations=cites, basis=Basis.ASSUMED)
    if era62 and current < per * hosts + base:
        return rule.failed(f"{daemon} LimitNOFILE={current} is below {per} x {hosts} katello-agent hosts + {base} = "
                           f"{per * hosts + base} ({source}): clients beyond it cannot connect; the 6.2 brief sets "
                           f"LimitNOFILE={t.foretune.value}", current=current,
                           recommended=t.foretune.value, evidence=evidence, fixes=t.fixes, citations=cites)
    need = per * hosts + base
    if current >= need:
        # the limit holds the given hosts: nothing runs out, so the release's figure is a low recommendation
        why = f"the 6.2 brief: \"{citation('g62-qpid').quotes[0].text}\"" if era62 else t.foretune.reason
        return rule.failed(f"{daemon} LimitNOFILE={current} covers {per} x {hosts} katello-agent hosts + {base} = {need} "
                           f"({source}), but is below {t.foretune.value} ({why})", current=current,
                           recommended=t.foretune.value, evidence=evidence, fixes=t.fixes, severity=Severity.LOW,
                           citations=cites)
    return rule.failed(f"{daemon} LimitNOFILE={current} is below {per} x {hosts} katello-agent hosts + {base} = {need}: "
                       f"clients beyond it cannot connect; recommended {t.foretune.value} ({t.foretune.reason})",
                       current=current, recommended=t.foretune.value, evidence=evidence, fixes=t.fixes, citations=cites)
