"""Pulp: pulpcore workers and gunicorn processes, Pulp 2's workers."""

from __future__ import annotations

import pytest

from foretune.changes.build import installer_option
from foretune.knowledge import load_data
from foretune.plan.components import pulp
from foretune.plan.model import Fix
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


def test_worker_count_options_only_where_the_releases_modules_have_them() -> None:
    # foreman-installer 2.1.0 (Satellite 6.8) pins puppet-pulpcore 1.1.0, whose service.pp starts pulpcore-worker@1 and
    # @2, and puppet-foreman_proxy_content 11.1.0, which has no pulpcore_worker_count: 2 workers, nothing to set
    p = plan("satellite", "6.8", cpus=16, ram_gib=64)
    t = p.tunables["pulp.workers"]
    assert (t.installer.value, t.foretune.value, t.fixes) == (2, 2, ())
    assert next(m for m in p.memory if m.component == "pulpcore workers").reason == "2 workers"
    # 6.9 (installer 2.3: puppet-pulpcore 2.1.0): worker_count, min(8, 16) = 8, through foreman_proxy_content; no
    # *_service_worker_count yet (first in puppet-pulpcore 3.1.0), so the gunicorn rows carry no key
    p = plan("satellite", "6.9", cpus=16, ram_gib=64)
    assert p.tunables["pulp.workers"].fixes == (Fix("hiera", "foreman_proxy_content::pulpcore_worker_count", 8),)
    assert p.tunables["pulp.api_workers"].fixes == () and p.tunables["pulp.content_workers"].fixes == ()
    # 6.10 (installer 3.0: puppet-pulpcore 5.0.0): the gunicorn counts are pulpcore::* keys (custom-hiera: the installer
    # has no pulpcore module); content 2 x min(8, 16) + 1 = 17
    c = plan("satellite", "6.10", cpus=16, ram_gib=64).tunables["pulp.content_workers"]
    assert c.fixes == (Fix("hiera", "pulpcore::content_service_worker_count", 17),)
    assert installer_option("pulpcore::content_service_worker_count") is None
