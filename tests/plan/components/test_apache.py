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


# Installer MaxRequestWorkers of the default --tuning profile per Foreman (installer) version, by hand: the default
# profile sets no apache::mod::event key beyond tuning/common.yaml (ThreadsPerChild 16; ServerLimit stays the
# module's 25). puppetlabs-apache pinned in foreman-installer's Puppetfile.lock: 7.0.0 at 3.3.0 and 3.4.0, 8.3.0 at
# 3.5.0, 8.6.0 at 3.6.0 and 3.7.0: mod/event.pp "$maxclients = 150", rendered as MaxClients 150. 10.1.1 at 3.8.0,
# 11.1.0 at 3.9.0 and 3.10.0, 12.1.0 at 3.12.0: no $maxclients (gone in 9.0.0), so Apache's ServerLimit x
# ThreadsPerChild = 25 x 16 = 400 (later installers pin later puppetlabs-apache releases).
DEFAULT_PROFILE_MAX_REQUEST_WORKERS = {"3.3": 150, "3.4": 150, "3.5": 150, "3.6": 150, "3.7": 150,
                                       "3.8": 400, "3.9": 400, "3.10": 400, "3.11": 400, "3.12": 400, "3.13": 400,
                                       "3.14": 400, "3.15": 400, "3.16": 400}


@pytest.mark.parametrize("product", ["satellite", "orcharhino", "foreman"])
def test_installer_max_request_workers_over_the_release_table(product: str) -> None:
    from foretune.knowledge.releases import known_versions, resolve_release

    checked = 0
    for version in known_versions(product):
        release = resolve_release(product, version)
        if release.features.mpm != "event":
            continue
        expected = DEFAULT_PROFILE_MAX_REQUEST_WORKERS[release.foreman_version]  # a new release needs its value here
        t = plan(product, version, hosts=3000).tunables["apache.max_request_workers"]
        assert t.installer.value == expected, (product, version)
        # the default profile: the installer's value is kept, being at most ServerLimit 25 x ThreadsPerChild 16 =
        # 400 (Apache's rule); the guide (5.3.2) raises it from the medium profile on and warns that a custom-hiera
        # value locks out later --tuning changes
        assert t.foretune.value == expected and not t.differs, (product, version)
        # medium and larger profiles set maxrequestworkers: 1024 (tuning/sizes/medium.yaml at 3.3.0 and 3.7.0)
        assert plan(product, version, hosts=8000, cpus=16, ram_gib=64).tunables["apache.max_request_workers"].installer.value == 1024
        checked += 1
    assert checked >= 3


def test_prefork_child_memory_is_worded_from_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    # the 6.2 brief's passenger-memory-stats: httpd children of 2.7-3.1 MB (planner.yaml memory/httpd_prefork_child)
    def reason() -> str:
        p = plan("satellite", "6.2", hosts=5000, cpus=16, physical_cores=8, ram_gib=32)
        return next(m.reason for m in p.memory if m.component == "Apache httpd")

    assert reason().endswith(" prefork children x 2.7-3.1 MiB (6.2 brief's passenger-memory-stats)")
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["httpd_prefork_child"], "high", 4.5)
    assert reason().endswith(" prefork children x 2.7-4.5 MiB (6.2 brief's passenger-memory-stats)")


def test_satellite_62_prefork_in_force_is_kept_while_the_pool_and_queue_fit() -> None:
    # the 6.2 brief: the Passenger queue must stay "below Apache's MaxClients and ServerLimit configuration"; a site's
    # ServerLimit 1024 with MaxClients 256 already holds pool 12 + queue 200 = 212, so neither is changed
    site = {"apache::mod::prefork::serverlimit": (1024, "answers file"), "apache::mod::prefork::maxclients": (256, "answers file")}
    t = plan("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_gib=48, configured=site).tunables
    assert t["apache.server_limit"].foretune.value == 1024
    assert t["apache.max_clients"].foretune.value == 256
