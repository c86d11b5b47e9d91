"""Pulp: pulpcore workers and gunicorn processes, Pulp 2's workers."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan.components import pulp
from tests.plan.components.helpers import plan, run


def test_pulpcore_workers_are_one_per_cpu_up_to_8() -> None:
    # pulpcore-worker-defaults: the installer runs min(8, CPUs) workers; the guide warns more degrade through I/O
    assert run(pulp.plan, "satellite", "6.15", cpus=4)["pulp.workers"].foretune.value == 4
    t = run(pulp.plan, "satellite", "6.15", cpus=16)
    assert t["pulp.workers"].foretune.value == 8
    assert (t["pulp.api_workers"].foretune.value, t["pulp.content_workers"].foretune.value) == (5, 17)  # min(4, 16) + 1; 2 x 8 + 1
    assert run(pulp.plan, "foreman", "3.16", katello=False) == {}


def test_pulp2_workers_are_one_per_cpu_up_to_8() -> None:
    # the 6.2 brief: "The number of workers is adjustable in /etc/default/pulp_workers by changing the value of PULP_CONCURRENCY"
    t = run(pulp.plan, "satellite", "6.2", cpus=16, physical_cores=8)["pulp2.concurrency"]
    assert t.foretune.value == 8 and t.fixes[0].target == "/etc/default/pulp_workers"


def test_pulp_connections_and_wording_follow_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    budget = dict(plan("satellite", "6.15", cpus=16, ram_gib=64).connection_budget)
    assert budget["pulpcore 8 workers x 2 + 22 gunicorn"] == 8 * 2 + 22
    monkeypatch.setitem(load_data("module-defaults.yaml")["pulpcore"], "workers_cap", 6)
    monkeypatch.setitem(load_data("planner.yaml")["pulp_connections_per_worker"], "value", 3)
    p = plan("satellite", "6.15", cpus=16, ram_gib=64)
    t = p.tunables["pulp.workers"]
    assert (t.foretune.value, t.foretune.formula) == (6, "min(6, 16) = 6")
    assert t.foretune.reason.startswith("min(6, CPUs)") and t.installer.reason == "installer default min(6, CPUs)"
    assert dict(p.connection_budget)["pulpcore 6 workers x 3 + 18 gunicorn"] == 6 * 3 + 18


def test_pulpcore_gunicorn_defaults_per_release() -> None:
    t69 = plan("satellite", "6.9").tunables
    t611 = plan("satellite", "6.11").tunables
    assert (t69["pulp.api_workers"].installer.value, t69["pulp.content_workers"].installer.value) == (1, 2)
    assert (t611["pulp.api_workers"].installer.value, t611["pulp.content_workers"].installer.value) == (5, 17)
