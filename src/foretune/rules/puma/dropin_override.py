"""A hand-made foreman.service drop-in sets Puma's environment after the installer's installer.conf."""

from __future__ import annotations

import re

from foretune.knowledge.precedence import Shadow, systemd_shadows
from foretune.plan.model import Fix
from foretune.rules.base import Context, Evidence, Outcome, PlanRule, Severity
from foretune.rules.recommend import PUMA_FROM, puma_in_force

INSTALLER_DROPIN = "installer.conf"  # puppet-foreman's foreman.service drop-in (manifests/service.pp)
RESTART = "systemctl restart foreman"  # the installer restarts Foreman only when installer.conf changes
# the FOREMAN_PUMA_* variables and the plan's tunables the installer writes them from
PUMA_ENV = {"FOREMAN_PUMA_WORKERS": "puma.workers", "FOREMAN_PUMA_THREADS_MIN": "puma.threads_min",
            "FOREMAN_PUMA_THREADS_MAX": "puma.threads_max"}


def puma_dropins(ctx: Context) -> list[Shadow]:
    """The foreman.service drop-ins read after installer.conf that set FOREMAN_PUMA_* (the last one wins), each with
    its Puma lines only."""
    fact = ctx.facts["puma"]
    if not fact.known:
        return []
    files = [(p.location, p.excerpt.replace(" | ", "\n")) for p in fact.provenance]
    out = []
    for shadow in systemd_shadows("foreman.service", "Environment", files, owned=INSTALLER_DROPIN):
        lines = [line for line in shadow.line.split(" | ") if "FOREMAN_PUMA_" in line]
        if lines:
            out.append(shadow._replace(line=" | ".join(lines)))
    return out


class PumaDropinOverride(PlanRule):
    id = "puma-dropin-override"
    title = "No hand-made foreman.service drop-in sets Puma after the installer's"
    component = "puma"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    roles = frozenset({"server"})
    needs = ("puma",)
    citations = ("systemd-dropin-order", "pf-db-pool", "gf-db-pool")
    tunable = "puma.threads_max"

    def check(self, ctx: Context) -> Outcome:
        dropins = puma_dropins(ctx)
        if not dropins:
            return self.passed(f"no foreman.service drop-in read after {INSTALLER_DROPIN} sets FOREMAN_PUMA_*")
        assert ctx.plan is not None
        puma = ctx.facts.value("puma") or {}
        threads: int = puma["threads_max"] if isinstance(puma.get("threads_max"), int) else 0
        pool = ctx.facts.value("foreman_db_pool") if ctx.facts["foreman_db_pool"].known else None
        plan_threads = ctx.tunables["puma.threads_max"]
        plan_pool = ctx.tunables.get("foreman.db_pool")
        # the margin over the threads is the plan's (the release's listeners), as foreman-db-pool-too-small counts it
        margin = (max(0, int(plan_pool.foretune.value) - int(plan_threads.foretune.value))
                  if plan_pool is not None and isinstance(plan_pool.foretune.value, int) else 0)
        sets = " | ".join(d.line for d in dropins)
        where = ", ".join(d.location for d in dropins)
        names = [name for name in PUMA_ENV if re.search(rf"\b{name}=", sets)]
        short = "FOREMAN_PUMA_THREADS_MAX" in names and threads > 0 and isinstance(pool, int) and pool < threads + margin
        # what runs decides whether the pool is short now (foreman-db-pool-too-small judges it): systemd may not have
        # loaded the file yet (pumactl stats, systemctl show), and then its threads run only after a daemon-reload
        run = puma_in_force(ctx)
        waiting = run is not None and run.fact != "puma" and run.threads != threads
        if short and waiting and run is not None:
            consequence = (f"; systemd does not run its threads yet ({PUMA_FROM[run.fact]}: {run.threads} per worker), "
                           f"but once it loads the file (a daemon-reload, a reboot) the Rails pool the installer sized for "
                           f"its own threads stays behind: database.yml pool {pool} for the {threads} threads this file "
                           f"sets + {margin} = {threads + margin} connections each worker needs")
        else:
            consequence = (f"; the Rails pool the installer sized for its own threads stays behind: database.yml pool "
                           f"{pool} for the {threads} threads this file runs + {margin} = {threads + margin} connections "
                           "each worker needs (foreman-db-pool-too-small, listed under this finding)" if short else "")
        fixes: list[Fix] = [Fix("command", d.undo) for d in dropins]
        # the installer then writes what the file set, at the plan's values, and the pool it sizes for them
        for name in names:
            fixes += [f for f in ctx.tunables[PUMA_ENV[name]].fixes if f not in fixes] if PUMA_ENV[name] in ctx.tunables else []
        if short and plan_pool is not None:
            fixes += [f for f in plan_pool.fixes if f not in fixes] or [Fix("hiera", "foreman::db_pool", plan_pool.foretune.value)]
        fixes.append(Fix("command", RESTART))
        return self.failed(f"{where} is a hand-made drop-in read after the installer's {INSTALLER_DROPIN}: it sets {sets} "
                           "whatever the installer is told (systemd reads drop-ins in lexical order, the last setting "
                           f"wins){consequence}. This file is the root cause: take those lines out of it (its other "
                           "settings stay; a file left with no setting goes), reload systemd, let the installer "
                           f"write the Puma settings and the pool it sizes for them, and restart foreman (the installer "
                           f"restarts it only when {INSTALLER_DROPIN} changes)",
                           current=" ".join(sets.split(" | ")), recommended=f"no drop-in after {INSTALLER_DROPIN}",
                           evidence=tuple(Evidence("puma", d.location, d.line) for d in dropins)
                           + (tuple(ctx.evidence("foreman_db_pool", about="pool")) if short else ()),
                           fixes=tuple(fixes), severity=Severity.MEDIUM if short else Severity.LOW)


RULE = PumaDropinOverride()
