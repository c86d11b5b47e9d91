"""Apache httpd: LimitNOFILE, the event and prefork limits, KeepAlive."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan import PlanInput, make_plan
from foretune.plan.components import apache
from tests.plan.components.helpers import GIB, hiera_and_installer, plan, run


def test_httpd_file_limit_is_the_guides() -> None:
    # Foreman guide, httpd limits: "LimitNOFILE=640000"
    assert run(apache.plan, "satellite", "6.15")["httpd.limit_nofile"].foretune.value == 640000
    # the 6.2 brief: "LimitNOFILE=1000000"
    assert plan("satellite", "6.2", physical_cores=4).tunables["httpd.limit_nofile"].foretune.value == 1000000


def test_event_mpm_above_5000_hosts_runs_64_children_of_16_threads() -> None:
    t = plan("satellite", "6.15", hosts=8000, cpus=16, ram_gib=64).tunables
    assert t["apache.server_limit"].foretune.value == 64
    assert t["apache.max_request_workers"].foretune.value == 64 * 16
    assert t["apache.server_limit"].foretune.reason == "64 processes x 16 threads = 1024 workers above 5000 hosts"


def test_prefork_serverlimit_covers_passenger_queue_registrations_and_pulp() -> None:
    # the Satellite 6.9 guide's worked example: pool + queue + 150 concurrent registrations + Pulp processes
    t = plan("satellite", "6.7", hosts=8000, cpus=16, physical_cores=8, ram_gib=64).tunables
    pool, queue = t["passenger.max_pool_size"].foretune.value, t["passenger.max_request_queue_size"].foretune.value
    assert (pool, queue) == (30, 1000)  # the medium profile's pool (above 1.5 x 8 cores) and queue (tuning/sizes/medium.yaml)
    assert t["apache.server_limit"].foretune.value == 30 + 1000 + 150 + 8
    assert t["apache.max_clients"].foretune.value == t["apache.server_limit"].foretune.value


def test_httpd_memory_counts_the_children_apache_may_start() -> None:
    item = next(m for m in plan("satellite", "6.15", hosts=8000, cpus=16, ram_gib=64).memory if m.component == "Apache httpd")
    assert item.reason == "64 event children (ServerLimit)"


def test_keepalive_goes_where_the_foreman_vhost_takes_it_from() -> None:
    # puppet-foreman 13.1.0 (foreman-installer 1.24, Satellite 6.7) manifests/config/apache.pp:
    # apache::vhost { 'foreman': ... max_keepalive_requests => $max_keepalive_requests } from foreman::max_keepalive_requests;
    # 14.0.0 (2615823 'Drop keepalive parameters', foreman-installer 2.0) leaves it to Apache's server-wide setting
    hiera, command = hiera_and_installer("satellite", "6.7")
    assert hiera["foreman::max_keepalive_requests"] == 0
    assert "apache::max_keepalive_requests" not in hiera
    assert "--foreman-max-keepalive-requests 0" in command
    hiera, _ = hiera_and_installer("satellite", "6.8")
    assert hiera["apache::max_keepalive_requests"] == 0
    assert "foreman::max_keepalive_requests" not in hiera
    capsule = make_plan(PlanInput("satellite", "6.7", hosts=3000, cpus=8, ram_bytes=32 * GIB, role="capsule"))
    from foretune.render.outputs import hiera_values
    assert hiera_values(capsule)["apache::max_keepalive_requests"] == 0  # a Capsule has no Foreman vhost
    # Katello's answers file (config/katello-answers.yaml @1.24.0) sets foreman max_keepalive_requests 10000
    answers = {"foreman::max_keepalive_requests": (10000, "answers file")}
    plan = make_plan(PlanInput("satellite", "6.7", hosts=12000, cpus=16, ram_bytes=64 * GIB, configured=answers))
    assert plan.tunables["apache.max_keepalive_requests"].installer.value == 10000


def test_event_wording_follows_the_profiles_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(load_data("hardware.yaml")["profiles"]["sizes"]["default"], "max_hosts", 4000)
    t = plan("satellite", "6.15", hosts=4500, cpus=16, ram_gib=64).tunables["apache.server_limit"]
    assert t.foretune.reason == "64 processes x 16 threads = 1024 workers above 4000 hosts"
    assert t.foretune.formula == "max(64, 64) = 64"  # the medium profile's own ServerLimit
