"""Plans and single components for the component tests: expected values in the tests are written by hand."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from foretune.plan import PlanInput, make_plan
from foretune.plan.model import Plan, Tunable
from foretune.plan.planner import Planner
from foretune.plan.sizing import Sizing
from foretune.render.explain import render

GIB = 1024**3


def inp(product: str, version: str, *, hosts: int = 3000, cpus: int = 8, ram_gib: float = 32, **extra: Any) -> PlanInput:
    extra.setdefault("ram_bytes", int(ram_gib * GIB))
    return PlanInput(product, version, hosts=hosts, cpus=cpus, **extra)


def plan(product: str, version: str, **kwargs: Any) -> Plan:
    """The whole plan (every component) for one box: 3000 hosts, 8 CPUs and 32 GiB unless given."""
    return make_plan(inp(product, version, **kwargs))


def run(step: Callable[[Sizing], None], product: str, version: str, **kwargs: Any) -> dict[str, Tunable]:
    """The tunables one component's step adds on its own, before any other component ran."""
    s = Planner(inp(product, version, **kwargs)).s
    step(s)
    return s.tunables


def explain(p: Plan, tid: str) -> str:
    """``foretune plan --explain tid`` as text."""
    return render(p, tid)


def hiera_and_installer(product: str, version: str, **extra: Any) -> tuple[dict[str, object], str]:
    """The custom-hiera values and the installer command of a 12000-host, 16-CPU, 64 GiB box."""
    from foretune.render.outputs import hiera_values, installer_command

    p = make_plan(PlanInput(product, version, hosts=12000, cpus=16, ram_bytes=64 * GIB, **extra))
    return hiera_values(p), installer_command(p)
