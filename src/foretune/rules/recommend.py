"""The one value an audit recommends for each tunable, asked for by every rule that names one.

A report must never hold two values for one tunable (a limit in one finding and another in the next, "workers 12
already reaches what the guide sizes" beside a finding that asks for 18). Every rule that recommends a value for a
tunable, in its ``recommended``, its fixes or its advice, takes it from :func:`recommended`; the profile the box
should run now comes from :func:`profile_now`. Values come from the plan at that profile (``Context.fix_plan``),
the plan the change set (``foretune.changes.build.from_audit``) is built from; where the audit asks for a value the
plan does not give (max_connections over the running budget), the change set takes the finding's.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from foretune.knowledge import hardware, module_default
from foretune.knowledge.model import SIZES
from foretune.knowledge.profiles import PG
from foretune.logs.source import puma_in_force as logs_puma_in_force
from foretune.plan.choose import profile_move
from foretune.plan.constants import const
from foretune.plan.model import Fix
from foretune.rules.base import Context
from foretune.term import plural
from foretune.units import format_gib


class Recommendation(NamedTuple):
    value: Any
    fixes: tuple[Fix, ...]
    why: str = ""  # where the value comes from, for messages


class ProfileNow(NamedTuple):
    declared: str  # the profile the box runs
    needed: str  # the profile its hosts need
    now: str | None  # the profile to apply now (None: none larger than declared until hardware is added)
    refused: hardware.Requirement | None  # the installer's hardware check that refuses ``needed`` here
    box: str  # "16 CPUs and 63.8 GiB"


class PumaInForce(NamedTuple):
    workers: int
    threads: int  # threads_max per worker
    fact: str  # puma_stats | puma_loaded | puma: the fact they come from
    configured: tuple[int, int] | None  # the ``puma`` fact's (workers, threads_max) when they differ, else None


# where the Puma workers and threads in force come from, as findings name it
PUMA_FROM = {"puma_stats": "pumactl stats", "puma_loaded": "systemctl show foreman.service",
             "puma": "the foreman.service environment"}


def puma_in_force(ctx: Context) -> PumaInForce | None:
    """Puma's workers and threads per worker that run (:func:`foretune.logs.source.puma_in_force`: pumactl stats, else
    what systemd runs foreman.service with, else the drop-in or Foreman's defaults), with the configured pair when it
    differs; None when none gives both."""
    stats, loaded, configured = (ctx.facts.value(n) if ctx.facts[n].known else None
                                 for n in ("puma_stats", "puma_loaded", "puma"))
    run = logs_puma_in_force(stats, loaded, configured)
    if run is None:
        return None
    workers, threads, name = run
    conf: tuple[int, int] | None = None
    if name != "puma" and isinstance(configured, dict):
        cw, ct = configured.get("workers"), configured.get("threads_max")
        if isinstance(cw, int) and isinstance(ct, int) and (cw, ct) != (workers, threads):
            conf = (cw, ct)
    return PumaInForce(workers, threads, name, conf)


def puma_source_note(run: PumaInForce | None) -> str:
    """`` (systemctl show foreman.service: 40 workers x 16 threads; the foreman.service environment on disk gives
    12 x 5, which systemd has not loaded)`` when the Puma values in force are not the configured ones; else ``""``
    (the configured fact's evidence shows them)."""
    if run is None or run.configured is None:
        return ""
    workers, threads = run.configured
    unused = "systemd has not loaded" if run.fact == "puma_loaded" else "the running server does not use"
    return (f" ({PUMA_FROM[run.fact]}: {plural(run.workers, 'worker')} x {plural(run.threads, 'thread')}; the "
            f"foreman.service environment on disk gives {workers} x {threads}, which {unused})")


def puma_evidence(ctx: Context, run: PumaInForce | None, *before: str, after: tuple[str, ...] = (),
                  about: str | tuple[str, ...] = ()) -> tuple[Any, ...]:
    """Evidence of the facts ``before``, the Puma values in force (the fact they come from, then the configured
    ``puma`` fact) and the facts ``after``."""
    names = tuple(dict.fromkeys((*before, *((run.fact,) if run is not None else ()), "puma", *after)))
    return ctx.evidence(*names, about=about)


def profile_now(ctx: Context) -> ProfileNow | None:
    """The profile change a counted (or given) host figure asks for (:func:`foretune.plan.choose.profile_move`);
    None when the declared profile covers the hosts or nothing is known to judge by."""
    profile = ctx.facts.value("tuning_profile") if ctx.facts["tuning_profile"].known else None
    if ctx.hosts is None or ctx.hosts_assumed or profile not in SIZES:
        return None
    cpus, ram, version = (ctx.facts.value(n) for n in ("cpu_logical", "ram_bytes", "foreman_version"))
    move = profile_move(profile, ctx.hosts, cpus, ram, version)
    if move is None:
        return None
    box = f"{cpus} CPUs and {format_gib(ram)}" if isinstance(cpus, int) and isinstance(ram, int) and version else ""
    return ProfileNow(*move, box)


def recommended(ctx: Context, tunable: str) -> Recommendation | None:
    """The value (and its fixes) this audit recommends for ``tunable``: the plan's at the profile the audit asks for
    (:attr:`Context.tunables`, the plan the change set is built from), except where what runs asks for more
    (PostgreSQL's connection budget: the services in force, measured state, beat the plan's figure)."""
    t = ctx.tunables.get(tunable)
    if t is None:
        return None
    if tunable == "postgresql.max_connections" and ctx.plan is not None and ctx.plan.input.role == "server" \
            and _running_puma_stays(ctx):
        need = running_budget(ctx, after_change=True)[0]
        # the plan's rule for max_connections, applied to what runs: budget + headroom, rounded up to 100
        covered = math.ceil(need * (1 + const("pg_connection_headroom")) / 100) * 100
        if covered > int(t.foretune.value):
            return Recommendation(covered, (ctx.hiera_fix(f"{PG}/max_connections", covered),),
                                  f"the {need} the services in force may open, with {const('pg_connection_headroom') * 100:.0f} % headroom")
    return Recommendation(t.foretune.value, t.fixes, t.foretune.reason)


def _running_puma_stays(ctx: Context) -> bool:
    """Whether the Puma workers running now still run after the change set: not when the plan gives fewer through
    the installer (its run restarts Puma with them, and max_connections is sized for those), yes when custom-hiera
    pins the count (the site's value is kept) or the plan gives as many or more."""
    run = puma_in_force(ctx)  # the workers that run: pumactl stats, else what systemd loaded, else the drop-in
    running = run.workers if run is not None else None
    planned = ctx.tunables.get("puma.workers")
    if not running or planned is None or not isinstance(planned.foretune.value, int) or running <= planned.foretune.value:
        return True
    pins = ctx.facts.value("custom_hiera") or {}
    return any(fix.target in pins for fix in planned.fixes)


def sized_for_running_workers(ctx: Context) -> str:
    """``; sized for the 40 Puma workers running now (the 18 recommended for this box need fewer)`` when a figure
    derived from the running Puma workers sits beside a different recommended worker count; else ``""``."""
    run = puma_in_force(ctx)  # the workers that run: pumactl stats, else what systemd loaded, else the drop-in
    workers = run.workers if run is not None else None
    other = recommended(ctx, "puma.workers")
    if not isinstance(workers, int) or other is None or not isinstance(other.value, int) or other.value == workers:
        return ""
    # speak only of a count the report recommends: the Puma worker finding must fail (a count inside the guide's
    # range stands, whatever the plan would pick)
    if ctx.plan is None or ctx.plan.profile not in SIZES or _puma_workers_stand(ctx, workers):
        return ""
    return (f"; sized for the {workers} Puma workers running now (the {other.value} recommended for this box need "
            f"{'fewer' if other.value < workers else 'more'})")


def _puma_workers_stand(ctx: Context, workers: int) -> bool:
    """The Puma worker count in force stands, and the report recommends no other: inside the guide's range for the
    profile the audit judges by (the test puma-workers-outside-range passes on)."""
    assert ctx.plan is not None
    low, high = hardware.puma_worker_range(ctx.plan.profile)
    change = profile_now(ctx)
    if change is not None and change.now is not None and workers > high:
        return workers <= hardware.puma_worker_range(change.now)[1]
    t = ctx.tunables.get("puma.workers")
    return low <= workers <= high or (t is not None and workers == t.foretune.value)


def growth_fixes(ctx: Context, tunable: str, current: int, setting: str) -> tuple[Fix, ...]:
    """The fixes for ``tunable`` when the audit recommends more than ``current`` (a saturated pool); when it does
    not, advice naming the value every other finding recommends: the pool already has what the guide sizes here."""
    rec = recommended(ctx, tunable)
    if rec is None:
        return ()
    if isinstance(rec.value, int) and rec.value > current:
        return rec.fixes
    reach = "reaches" if rec.value == current else "exceeds"
    return (Fix("advice", setting, f"{setting} {current} already {reach} what the guide sizes for this hardware "
                                   f"({rec.value}): more would oversubscribe the CPUs or RAM; add hardware "
                                   "(then raise it) or spread the burst"),)


def running_budget(ctx: Context, after_change: bool = False) -> tuple[int, list[str]]:
    """Connections the configured services may open: what is in force (Puma, Passenger, Sidekiq, pulpcore) where
    the facts say, the plan otherwise (``after_change``: with the Foreman pool raised to threads + 4)."""
    budget = running_budget_parts(ctx, after_change)
    return sum(n for _, n in budget), [f"{name}: {n}" for name, n in budget]


def running_budget_parts(ctx: Context, after_change: bool = False) -> list[tuple[str, int]]:
    """(consumer, connections) of the configured services: facts where known, the plan otherwise. Each Puma worker
    opens the pool in force when one is pinned (database.yml), threads + 4 otherwise; ``after_change`` sizes for
    the pool the audit recommends (at least threads + 4, foreman-db-pool-too-small), which max_connections must
    cover once that fix is applied."""
    assert ctx.plan is not None
    budget = dict(ctx.plan.connection_budget)
    run = puma_in_force(ctx)  # the Puma that runs: pumactl stats, else what systemd loaded, else the drop-in
    if run is not None:
        extra = const("db_pool_extra")
        pinned = ctx.facts.value("foreman_db_pool")  # database.yml's pool, when it sets one
        own = run.threads + extra  # what each worker needs: its threads + the pool's extra (pf-db-pool)
        pool = pinned or own
        per = max(pool, own) if after_change else pool
        budget = {k: v for k, v in budget.items() if not k.startswith("Puma")}
        # each part says its formula and where the workers and threads come from
        formula = (f"({run.threads} threads + {extra})" if not pinned or (per == own and after_change)
                   else f"database.yml pool {per}" + (f" (larger than {run.threads} threads + {extra})" if after_change else ""))
        budget[f"Puma {plural(run.workers, 'worker')} x {formula}, from {PUMA_FROM[run.fact]}"] = run.workers * per
    passenger = ctx.facts.value("passenger") or {}
    if passenger.get("PassengerMaxPoolSize"):
        # Passenger era: every Foreman process holds its own Rails pool
        pool = ctx.facts.value("foreman_db_pool") or module_default("foreman_db_pool", "base")
        budget = {k: v for k, v in budget.items() if not k.startswith("Passenger")}
        budget[f"Passenger {plural(passenger['PassengerMaxPoolSize'], 'process', 'processes')} x {pool} pool"] = passenger["PassengerMaxPoolSize"] * pool
    dynflow = ctx.facts.value("dynflow") or {}
    if dynflow.get("workers") and dynflow.get("concurrency"):
        extra = const("sidekiq_connections_extra")  # each process's Dynflow connections beside its threads'
        budget = {k: v for k, v in budget.items() if not k.startswith("Sidekiq")}
        budget[f"Sidekiq {plural(dynflow['workers'], 'worker')} x ({dynflow['concurrency']} + {extra}) + orchestrator (1 + {extra})"] = (
            dynflow["workers"] * (dynflow["concurrency"] + extra) + 1 + extra)
    pulp = ctx.facts.value("pulpcore") or {}
    if pulp.get("workers"):
        gunicorn = (pulp.get("api_workers") or 0) + (pulp.get("content_workers") or 0)
        budget = {k: v for k, v in budget.items() if not k.startswith("pulpcore")}
        per_gunicorn = const("pulp_connections_per_gunicorn")
        budget[f"pulpcore {plural(pulp['workers'], 'worker')} x {const('pulp_connections_per_worker')} + {gunicorn} gunicorn"
               + (f" x {per_gunicorn}" if per_gunicorn != 1 else "")] = (
            pulp["workers"] * const("pulp_connections_per_worker") + gunicorn * const("pulp_connections_per_gunicorn"))
    return list(budget.items())


class InstallerPuma(NamedTuple):
    workers: int | None
    threads_min: int | None
    threads_max: int
    origin: str  # "answers file" | "custom-hiera.yaml" | "" (the installer's default)


def installer_puma(ctx: Context) -> InstallerPuma | None:
    """The Puma workers and threads the installer's next run writes into foreman.service's installer.conf: custom-hiera's,
    else the answers file's, else its defaults (the plan's installer column). None when the source has neither file,
    so what the installer writes is not known."""
    t = ctx.tunables.get("puma.threads_max")
    if t is None or not isinstance(t.installer.value, int):
        return None
    if not (t.installer.origin or ctx.facts["installer_answers"].known or ctx.facts["custom_hiera"].known):
        return None
    others = [ctx.tunables.get(n) for n in ("puma.workers", "puma.threads_min")]
    workers, tmin = (o.installer.value if o is not None and isinstance(o.installer.value, int) else None for o in others)
    return InstallerPuma(workers, tmin, t.installer.value, t.installer.origin or "")


def keep_puma_flags(ctx: Context, workers: int | None, tmin: int | None, tmax: int, origin: str) -> str:
    """How to keep Puma values an installer run would replace: the installer flags (which the answers file then keeps),
    or the custom-hiera keys when custom-hiera.yaml sets them (it wins over a flag)."""
    pairs = [(k, v) for k, v in (("workers", workers), ("threads-min", tmin), ("threads-max", tmax)) if v is not None]
    if origin == "custom-hiera.yaml":
        keys = ", ".join(f"foreman::foreman_service_puma_{k.replace('-', '_')}: {v}" for k, v in pairs)
        return f"set {keys} in /etc/foreman-installer/custom-hiera.yaml (it wins over installer flags)"
    flags = " ".join(f"--foreman-foreman-service-puma-{k} {v}" for k, v in pairs)
    return f"pass {flags} to that run (the answers file then keeps them)"


def overridden_threads(ctx: Context) -> int | None:
    """The Puma threads the installer runs once a hand-made foreman.service drop-in read after its installer.conf
    (override.conf) that sets FOREMAN_PUMA_THREADS_MAX is removed, as the fix does (audit.effect): the plan's
    threads, which the installer then writes; None when no such drop-in sets the threads."""
    from foretune.knowledge.precedence import systemd_shadow  # start-up: only when a Puma rule runs

    fact = ctx.facts["puma"]
    planned = ctx.tunables.get("puma.threads_max")
    if not fact.known or planned is None or not isinstance(planned.foretune.value, int):
        return None
    files = [(p.location, p.excerpt.replace(" | ", "\n")) for p in fact.provenance]
    shadow = systemd_shadow("foreman.service", "Environment", files, owned="installer.conf")
    if shadow is None or "FOREMAN_PUMA_THREADS_MAX=" not in shadow.line:
        return None
    return planned.foretune.value
