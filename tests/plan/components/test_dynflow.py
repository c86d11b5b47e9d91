"""Dynflow: Sidekiq instances and threads, or dynflowd executors on older releases."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan.components import dynflow
from tests.plan.components.helpers import hiera_and_installer, plan, run


def test_sidekiq_instances_grow_with_hosts_and_threads_stay_at_five() -> None:
    # Foreman guide, Dynflow: more worker instances rather than more threads; "limited benefit" above 5 threads
    for hosts, instances in ((3000, 1), (8000, 2), (20000, 3)):
        t = run(dynflow.plan, "satellite", "6.15", hosts=hosts)
        assert t["dynflow.sidekiq_instances"].foretune.value == instances, hosts
        assert t["dynflow.sidekiq_concurrency"].foretune.value == 5
    assert run(dynflow.plan, "satellite", "6.15", role="capsule") == {}


def test_sidekiq_connections_count_threads_the_world_and_the_hosts_queue() -> None:
    budget = dict(plan("satellite", "6.15", hosts=8000, cpus=16, ram_gib=64).connection_budget)
    assert budget["Sidekiq 2 workers x (5 + 2) + orchestrator (1 + 2)"] == 2 * 7 + 3
    assert budget["Katello hosts-queue worker (1 + 2)"] == 3


def test_dynflowd_executors_follow_the_ram_tiers_of_the_tuning_files() -> None:
    # RedHatSatellite/satellite-support tuning-profiles/custom-hiera-large-64G.yaml ("Tuning suitable for a Satellite
    # with 64G of RAM"): "# Recommended settings:\n# 32-64G RAM: 2\n# 65G-128G RAM or more: 3"
    def executors(ram_gib: float) -> object:
        p = plan(product="satellite", version="6.6", hosts=8000, cpus=16, ram_gib=ram_gib)
        return p.tunables["dynflow.executors"].foretune.value

    assert executors(24) == 1  # below 32G: the README says the default settings are appropriate
    assert executors(32) == 2
    assert executors(64) == 2  # the 64G file's own box
    assert executors(62.5) == 2  # a 64 GB box less its crash-kernel reservation
    assert executors(96) == 3
    assert executors(128) == 3


def test_dynflow_worker_options_only_where_puppet_foreman_has_them() -> None:
    # puppet-foreman 16.0.0 manifests/init.pp (pinned by foreman-installer 2.3.0, Satellite 6.9) has only
    # $dynflow_pool_size; 17.0.0 (pinned by 2.5.0) adds `Integer[0] $dynflow_worker_instances`
    hiera, command = hiera_and_installer("satellite", "6.9")
    assert "foreman::dynflow_worker_instances" not in hiera
    assert "--foreman-dynflow-worker-" not in command
    hiera, command = hiera_and_installer("foreman", "2.5")
    assert hiera["foreman::dynflow_worker_instances"] == 3  # gf-dynflow: 3 workers above 10000 hosts
    assert "--foreman-dynflow-worker-instances 3" in command


def test_executor_wording_and_connections_follow_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    t = plan(product="satellite", version="6.6", hosts=8000, cpus=16, ram_gib=48).tunables["dynflow.executors"]
    assert t.foretune.reason == "executors by RAM: 1 below 28.8 GiB, 2 below 65 GiB, 3 at 65 GiB or more"
    monkeypatch.setitem(load_data("planner.yaml")["dynflowd_executors_by_ram_gib"], "value", [[20, 1], [40, 2], [None, 4]])
    monkeypatch.setitem(load_data("module-defaults.yaml")["foreman_db_pool"], "base", 7)
    p = plan(product="satellite", version="6.6", hosts=8000, cpus=16, ram_gib=48)
    t = p.tunables["dynflow.executors"]
    assert (t.foretune.value, t.foretune.reason) == (4, "executors by RAM: 1 below 20 GiB, 2 below 40 GiB, 4 at 40 GiB or more")
    assert dict(p.connection_budget)["dynflowd 4 executors x 7"] == 28  # each executor's Rails pool


def test_the_instances_step_is_labelled_foretunes_estimate() -> None:
    # the guide only says "from one worker to three" (gf-dynflow): 2 for 5001-10000 hosts is foretune's step by the
    # profiles' host ranges, so the row says so and cites foretune-estimate beside the guide
    t = plan("satellite", "6.15", hosts=7000, cpus=16, ram_gib=64).tunables["dynflow.sidekiq_instances"]
    assert t.foretune.value == 2
    assert t.foretune.citations == ("gf-dynflow", "foretune-estimate") and "foretune estimate" in t.foretune.reason


def test_62_runs_one_executor_and_the_citation_names_the_foreman_tasks_tag_that_added_the_count() -> None:
    # foreman-tasks 462e9e7d (EXECUTORS_COUNT) is first tagged v0.8.6, then v0.9.0; Satellite 6.2 ships 0.7.x
    t = plan("satellite", "6.2", cpus=16, ram_gib=64).tunables["dynflow.executors"]
    assert (t.installer.value, t.foretune.value, t.fixes) == (1, 1, ())
    where = load_data("citations-knowledge.yaml")["ft-sysconfig-62"]["where"]
    assert "first tagged v0.8.6" in where and "v0.7.20" in where
