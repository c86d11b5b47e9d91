"""Fixes that take effect: a fix that lands below a place of higher precedence for the same key (the release's
table in ``foretune.knowledge.precedence``) also removes what shadows it, and the finding names that place as the cause.

- PostgreSQL: a custom-hiera setting that postgresql.auto.conf (ALTER SYSTEM), or a file postgresql.conf includes
  after its own line, also sets;
- Puma: the installer writes FOREMAN_PUMA_* to foreman.service.d/installer.conf, so a hand-made drop-in read
  after it (override.conf, from ``systemctl edit foreman``) keeps its threads whatever the installer is told,
  and leaves the Rails pool the installer sizes for its own threads behind.
"""

from __future__ import annotations

import dataclasses
import re

from foretune.changes.build import host_of
from foretune.knowledge.precedence import (
    Shadow,
    pg_restart,
    postgresql_include_shadow,
    postgresql_shadow,
    systemd_shadow,
    table,
)
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix
from foretune.rules.base import Context, Evidence, Outcome, Rule, Status


def take_effect(rule: Rule, ctx: Context, outcome: Outcome) -> Outcome:
    """``outcome`` with every PostgreSQL custom-hiera fix preceded by what removes a postgresql.auto.conf line
    (ALTER SYSTEM) that sets the same setting: that line wins over every postgresql.conf the installer writes."""
    if outcome.status != Status.FAIL or not outcome.fixes:
        return outcome
    fact = ctx.facts["postgresql"]
    files = [(p.location, p.excerpt) for p in fact.provenance] if fact.known else []
    undo: list[Fix] = []
    restarts: list[Fix] = []  # after the installer run: a reset of a setting read only at start needs it
    evidence: list[Evidence] = []
    causes: list[str] = []
    cites = list(outcome.citations or rule.citations)
    for fix in outcome.fixes:
        if fix.kind != "hiera" or not fix.target.startswith(PG + "/"):
            continue
        setting = fix.target.split("/", 1)[1]
        include = postgresql_include_shadow(setting, ctx.facts.value("postgresql_sources") or {},
                                            (ctx.facts.value("postgresql") or {}).get(setting), host_of(ctx.facts).postgresql_version)
        if include is not None and not any(f.target == include.undo for f in (*outcome.fixes, *undo)):
            # a file postgresql.conf includes sets it after postgresql.conf's own line: the last entry wins
            undo.append(Fix("command", include.undo))
            evidence.append(Evidence("postgresql", include.location, include.line))
            causes.append(f"{include.location}, which postgresql.conf includes, sets {include.line} after postgresql.conf's "
                          f"own line, and the last entry wins: {include.reset} first, or the installer's value never takes effect")
            cites += [c for c in include.citations if c not in cites]
        shadow = postgresql_shadow(setting, files, host_of(ctx.facts).postgresql_version)
        if shadow is None or any(f.target == shadow.undo for f in (*outcome.fixes, *undo)):
            continue
        undo.append(Fix("command", shadow.undo))
        if not any(e.location == shadow.location and shadow.line in e.excerpt for e in outcome.evidence):
            evidence.append(Evidence("postgresql", shadow.location, shadow.line))
        setting = fix.target.split("/", 1)[1]
        entry = table("postgresql", host_of(ctx.facts).postgresql_version)
        restart = setting in (entry.get("restart_settings") or ())
        restart_command = pg_restart(host_of(ctx.facts).postgresql_unit)
        if restart and not any(f.target == restart_command for f in restarts):
            restarts.append(Fix("command", restart_command))
            cites += [c for c in (str(entry.get("restart_citation", "")),) if c and c not in cites]
        causes.append(f"{shadow.location} sets {shadow.line} (ALTER SYSTEM), which wins over postgresql.conf: "
                      f"{shadow.reset} first, or the installer's value never takes effect"
                      + (f"; then `{restart_command}`: {setting} is read only at start, and the installer restarts "
                         "PostgreSQL only when postgresql.conf changes" if restart else ""))
        cites += [c for c in shadow.citations if c not in cites]
    puma = _puma_shadow(ctx, outcome)
    if puma is not None and not any(f.target == puma.undo for f in outcome.fixes):  # puma-dropin-override names it
        undo.append(Fix("command", puma.undo))
        if not any(e.location == puma.location for e in outcome.evidence):
            evidence.append(Evidence("puma", puma.location, puma.line))
        undo += [fix for fix in _installer_takes_over(ctx, puma) if fix not in outcome.fixes]
        causes.append(dropin_cause(puma))
        cites += [c for c in puma.citations if c not in cites]
    if not undo:
        return outcome
    return dataclasses.replace(outcome, message=f"{outcome.message}; {'; '.join(causes)}",
                               fixes=(*undo, *outcome.fixes, *restarts), evidence=(*outcome.evidence, *evidence),
                               citations=tuple(cites))


INSTALLER_DROPIN = "installer.conf"  # puppet-foreman's foreman.service drop-in (manifests/service.pp)


def dropin_cause(puma: Shadow) -> str:
    """What a Puma or pool finding says of the hand-made drop-in that keeps its value in force."""
    return (f"the cause is {puma.location}, a hand-made drop-in read after the installer's {INSTALLER_DROPIN}: "
            f"it sets {puma.line} whatever the installer is told, and the Rails pool the installer sizes "
            f"for its own threads stays behind; {puma.reset} (then run the installer)")


def without_dropin_cause(message: str, location: str) -> str:
    """``message`` without the clause naming ``location`` as the hand-made drop-in behind it (:func:`dropin_cause`):
    for a finding listed under the drop-in's own finding, which names the file as the root cause once."""
    return re.sub(rf"; the cause is {re.escape(location)}, a hand-made drop-in read after .*?\(then run the installer\)",
                  "", message)
# fixes that set what that drop-in carries (Puma workers and threads) or what is sized from it (the Rails pool)
PUMA_TARGETS = ("foreman::foreman_service_puma_", "foreman::db_pool", "--foreman-foreman-service-puma-", "--foreman-db-pool")


def _puma_shadow(ctx: Context, outcome: Outcome) -> Shadow | None:
    """The hand-made foreman.service drop-in that sets Puma's environment after the installer's, when a fix is
    about what it sets: the workers for a worker fix, the threads for a thread or pool fix (the pool is sized for
    the threads), never a file that sets only the other."""
    wanted = {variable for f in outcome.fixes if f.kind in ("hiera", "installer") and f.target.startswith(PUMA_TARGETS)
              for variable in _variables(f.target)}
    if not wanted:
        return None
    fact = ctx.facts["puma"]
    if not fact.known:
        return None
    files = [(p.location, p.excerpt.replace(" | ", "\n")) for p in fact.provenance]
    shadow = systemd_shadow("foreman.service", "Environment", files, owned=INSTALLER_DROPIN)
    return shadow if shadow is not None and any(f"{v}=" in shadow.line for v in wanted) else None


def _variables(target: str) -> tuple[str, ...]:
    """The FOREMAN_PUMA_* variables a Puma or pool fix's value ends up in or is sized from."""
    name = target.replace("-", "_")
    if name.endswith("db_pool"):
        return ("FOREMAN_PUMA_THREADS_MAX",)
    return tuple(v for v in PUMA_ENV if name.endswith(v.removeprefix("FOREMAN_").lower()))


# the FOREMAN_PUMA_* variables and the plan's tunables the installer writes them from
PUMA_ENV = {"FOREMAN_PUMA_WORKERS": "puma.workers", "FOREMAN_PUMA_THREADS_MIN": "puma.threads_min",
            "FOREMAN_PUMA_THREADS_MAX": "puma.threads_max"}


def _installer_takes_over(ctx: Context, puma: Shadow) -> list[Fix]:
    """The plan's installer fixes for what the removed drop-in set, so the installer writes those values (and
    sizes the pool from them) instead."""
    if ctx.plan is None:
        return []
    names = [PUMA_ENV[v] for v in PUMA_ENV if f"{v}=" in puma.line and PUMA_ENV[v] in ctx.tunables]
    return [fix for name in names for fix in ctx.tunables[name].fixes]
