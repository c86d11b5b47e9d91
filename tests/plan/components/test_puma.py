"""Foreman's application server: Puma workers and threads, the database pool, Passenger on older releases."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan import PlanInput, make_plan
from foretune.plan.model import Fix
from foretune.render.outputs import apply_md, hiera_fragment, installer_command
from tests.plan.components.helpers import GIB, explain, hiera_and_installer, plan


def test_installer_workers_follow_puppet_foremans_formula() -> None:
    # puppet-foreman manifests/config.pp (18.2.0): workers = floor(min(CPUs x 1.5, RAM GiB - 1.5))
    t = plan("satellite", "6.15", cpus=16, ram_gib=64).tunables["puma.workers"]
    assert t.installer.value == 24  # min(24, 62.5)
    assert t.installer.reason == "installer formula floor(min(16 CPUs x 1.5, 64.0 GiB - 1.5))"
    assert plan("satellite", "6.15", cpus=16, ram_gib=8).tunables["puma.workers"].installer.value == 6  # min(24, 6.5)
    # from puppet-foreman 20 the formula is capped at 100 workers
    capped = make_plan(PlanInput("foreman", "3.16", hosts=80000, cpus=128, ram_bytes=256 * GIB)).tunables["puma.workers"]
    assert capped.installer.value == 100
    assert capped.installer.reason.startswith("installer formula floor(min(100, 128 CPUs x 1.5, 256.0 GiB - 1.5))")


def test_explain_words_the_installer_formula_from_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    auto = load_data("module-defaults.yaml")["puma"]["auto"]
    monkeypatch.setitem(auto, "cpu_factor", 2)
    monkeypatch.setitem(auto, "ram_reserve_gib", 4)
    monkeypatch.setitem(load_data("module-defaults.yaml")["puma"]["auto-capped"], "cap", 90)
    p = plan("satellite", "6.15", cpus=16, ram_gib=64)
    assert p.tunables["puma.workers"].installer.value == 32  # min(16 x 2, 64 - 4)
    assert "installer: 32 — installer formula floor(min(16 CPUs x 2, 64.0 GiB - 4))" in explain(p, "puma.workers")
    capped = make_plan(PlanInput("foreman", "3.16", hosts=80000, cpus=128, ram_bytes=256 * GIB))
    assert "floor(min(90, 128 CPUs x 2, 256.0 GiB - 4))" in explain(capped, "puma.workers")


def test_guides_16_threads_with_every_profile() -> None:
    # Foreman guide 5.2.4: "we recommend 16 threads with all the tuning profiles in the table above"
    for hosts in (1000, 8000, 40000):
        t = plan("satellite", "6.15", hosts=hosts, cpus=32, ram_gib=128).tunables
        assert t["puma.threads_min"].foretune.value == 16 and t["puma.threads_max"].foretune.value == 16
        assert "about 12 % less memory" in t["puma.threads_min"].foretune.reason


def test_workers_stay_in_the_guides_range_for_the_profile() -> None:
    # Foreman guide 5.2.4 table: the default profile (up to 5000 hosts) favours 4-6 workers; 6 on a roomy box
    assert plan("satellite", "6.15", hosts=3000, cpus=16, ram_gib=64).tunables["puma.workers"].foretune.value == 6


def test_passenger_pool_is_one_and_a_half_per_physical_core() -> None:
    # the 6.2 brief: PassengerMaxPoolSize "should be adjusted to 1.5 * Physical CPU Cores"
    t = plan("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_gib=48).tunables["passenger.max_pool_size"]
    assert t.foretune.value == 12
    assert t.foretune.formula == "max(6, ceil(8 x 1.5)) = 12"


def test_passenger_wording_follows_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(load_data("planner.yaml")["passenger_pool_per_core"], "value", 2)
    t = plan("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_gib=48).tunables["passenger.max_pool_size"]
    assert (t.foretune.value, t.foretune.formula) == (16, "max(6, ceil(8 x 2)) = 16")
    assert t.foretune.reason.startswith("2 x 8 physical cores")


def test_plain_foreman_db_pool_is_puppet_foremans() -> None:
    # theforeman/puppet-foreman manifests/config.pp (25.0.0 on): the + 4 applies with or without Katello:
    # "'db_pool'   => pick($foreman::db_pool, $foreman::foreman_service_puma_threads_max + 4),"
    # and its comment: "This means for systems without Katello we can reduce the amount of the pool to puma_threads_max + 1"
    p = plan(product="foreman", version="3.12", hosts=300, cpus=8, ram_bytes=32 * GIB, katello=False)
    t = p.tunables
    assert t["puma.threads_max"].installer.value == 5 and t["foreman.db_pool"].installer.value == 9
    assert t["puma.threads_max"].foretune.value == 16 and t["foreman.db_pool"].foretune.value == 17
    puma = next(n for what, n in p.connection_budget if what.startswith("Puma"))
    assert puma == t["puma.workers"].foretune.value * 17  # type: ignore[operator]
    # before puppet-foreman 25 (foreman-installer 3.11) the pool was max(db_pool 5, threads_max)
    assert plan(product="foreman", version="3.10", hosts=300, cpus=8, ram_bytes=32 * GIB,
                katello=False).tunables["foreman.db_pool"].installer.value == 5


def test_passenger_queue_default_is_cited_to_passenger() -> None:
    # phusion/passenger Users guide Apache (4.0.18), PassengerMaxRequestQueueSize: "The default value is '100'."
    # The 6.2 brief gives no default for it, only its tuned example ("PassengerMaxRequestQueueSize 200").
    t = plan(product="satellite", version="6.2", hosts=5000, cpus=16, physical_cores=8, ram_bytes=32 * GIB).tunables
    queue = t["passenger.max_request_queue_size"]
    assert queue.installer.value == 100 and queue.installer.citations == ("passenger-queue-default",)
    assert queue.foretune.value == 200


def test_rails_pool_formula_per_puppet_foreman_release() -> None:
    before = plan("foreman", "3.10").tunables
    after = plan("foreman", "3.11").tunables
    assert before["foreman.db_pool"].installer.value == 5  # max(db_pool 5, threads_max 5)
    assert after["foreman.db_pool"].installer.value == 9  # threads_max 5 + 4 (puppet-foreman 25)


def test_puppet_passenger_options_only_where_puppet_puppet_has_them() -> None:
    # puppet-puppet 9.0.0 (Satellite 6.4) manifests/server.pp has $passenger_min_instances and no start timeout;
    # 11.0.0 (foreman-installer 1.21, so Satellite 6.6) removed Passenger support
    hiera, command = hiera_and_installer("satellite", "6.4", puppet_hosts=2000)
    assert hiera["puppet::server::passenger_min_instances"] == 6
    assert "puppet::server::passenger_start_timeout" not in hiera
    assert "--puppet-server-passenger-start-timeout" not in command
    for version in ("6.6", "6.7", "6.8"):
        hiera, command = hiera_and_installer("satellite", version, puppet_hosts=2000)
        assert not [key for key in hiera if key.startswith("puppet::server::passenger")], version
        assert "--puppet-server-passenger" not in command, version
        assert hiera["foreman::passenger_min_instances"] == 6, version  # Foreman itself still runs on Passenger
    # Satellite 6.2 edits the Puppet application's vhost directly, as its brief does
    plan = make_plan(PlanInput("satellite", "6.2", hosts=12000, cpus=16, ram_bytes=64 * GIB, puppet_hosts=2000))
    edits = [(fix.target, fix.value) for t in plan.tunables.values() for fix in t.fixes if fix.kind == "file"]
    assert ("/etc/httpd/conf.d/25-puppet.conf", "PassengerStartTimeout 500") in edits


def test_capsules_tune_no_passenger_once_puppet_left_it() -> None:
    # puppet-puppet 11.0.0 (foreman-installer 1.21, Satellite 6.6) removed Passenger support; a Capsule runs no Foreman
    from foretune.render.outputs import hiera_values

    def capsule(version: str) -> dict[str, object]:
        return hiera_values(make_plan(PlanInput("satellite", version, hosts=3000, cpus=8, ram_bytes=32 * GIB, role="capsule",
                                                puppet_hosts=1000)))
    assert capsule("6.4")["apache::mod::passenger::passenger_max_pool_size"] == 12  # ceil(8 x 1.5), the 6.2 brief's rule
    assert not [key for key in capsule("6.6") if "passenger" in key]


def test_passenger_memory_and_pool_wording_follow_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    def passenger() -> tuple[str, dict[str, int]]:
        p = plan("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_gib=48)
        return next(m.reason for m in p.memory if m.component == "Foreman (Passenger)"), dict(p.connection_budget)

    reason, budget = passenger()
    assert reason == "12 processes x 243.6-280.4 MiB (6.2 brief)"  # passenger-memory-stats in the 6.2 brief
    assert budget["Passenger 12 processes x 5 pool"] == 60  # the Rails default pool of 5
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["passenger_process"], "low", 300)
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["passenger_process"], "high", 512)
    monkeypatch.setitem(load_data("module-defaults.yaml")["foreman_db_pool"], "base", 8)
    reason, budget = passenger()
    assert reason == "12 processes x 300-512 MiB (6.2 brief)"
    assert budget["Passenger 12 processes x 8 pool"] == 96


def test_ram_limit_wording_follows_the_worker_size(monkeypatch: pytest.MonkeyPatch) -> None:
    reason = plan("satellite", "6.15", hosts=3000, cpus=16, ram_gib=20).tunables["puma.workers"].foretune.reason
    assert reason.endswith("limited to 5 by RAM (~1 GiB per worker after the other services)")  # memory/puma_worker 1.0
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["puma_worker"], "high", 1.5)
    reason = plan("satellite", "6.15", hosts=3000, cpus=16, ram_gib=20).tunables["puma.workers"].foretune.reason
    assert "by RAM (~1.5 GiB per worker after the other services)" in reason


def test_satellite_62_passenger_minimums_leave_room_in_the_pool() -> None:
    # 6.2 brief 5.7: "PassengerMinInstances 6" for Foreman and for Puppet in a pool of 24, "Passenger will spawn
    # additional application processes up to PassengerMaxPoolSize". Its example: 6 + 6 in "PassengerMaxPoolSize 24",
    # half the pool. 8 physical cores: pool 1.5 x 8 = 12, where 6 + 6 would fill it: half of 12 shared, 3 each.
    p = make_plan(PlanInput("satellite", "6.2", hosts=8000, cpus=16, physical_cores=8, ram_bytes=48 * GIB, puppet_hosts=500))
    t = p.tunables
    assert t["passenger.max_pool_size"].foretune.value == 12
    assert t["passenger.min_instances"].foretune.value == 3
    assert t["passenger.puppet_min_instances"].foretune.value == 3
    # the Puppet vhost's installer value is Passenger's own default (puppet-puppet 4.3.0 sets none)
    assert t["passenger.puppet_min_instances"].installer.citations == ("passenger-min-instances", "pp-62-options")
    # 12 physical cores: pool 18, 6 + 6 is more than half of it: floor(18 / 4) = 4 each
    mid = make_plan(PlanInput("satellite", "6.2", hosts=8000, cpus=24, physical_cores=12, ram_bytes=64 * GIB, puppet_hosts=500))
    assert (mid.tunables["passenger.min_instances"].foretune.value, mid.tunables["passenger.puppet_min_instances"].foretune.value) == (4, 4)
    # PassengerStartTimeout: puppet-foreman 5.1.0 params.pp sets 600; the brief's 500 is not a reason to lower it
    assert t["passenger.start_timeout"].foretune.value == 600
    # the Puppet vhost has no PassengerStartTimeout in puppet-puppet 4.3.0: Passenger 4.0.18's 90 s applies
    assert t["passenger.puppet_start_timeout"].installer.value == 90
    # 24 physical cores: pool 36, 6 + 6 leave room
    big = make_plan(PlanInput("satellite", "6.2", hosts=8000, cpus=48, physical_cores=24, ram_bytes=96 * GIB, puppet_hosts=500))
    assert big.tunables["passenger.min_instances"].foretune.value == 6
    assert big.tunables["passenger.puppet_min_instances"].foretune.value == 6


def test_satellite_62_uses_puppet_foreman_51_installer_options() -> None:
    # puppet-foreman 5.1.0 manifests/init.pp has $passenger_min_instances, $passenger_start_timeout and
    # $passenger_prestart: kafo options --foreman-passenger-*, which the answers file keeps across installer runs
    p = make_plan(PlanInput("satellite", "6.2", hosts=8000, cpus=48, physical_cores=24, ram_bytes=96 * GIB))
    fixes = p.tunables["passenger.min_instances"].fixes
    assert [(f.kind, f.target, f.value) for f in fixes] == [("installer", "--foreman-passenger-min-instances", 6)]
    command = installer_command(p)
    assert command.splitlines()[-2:] == ["satellite-installer \\", "  --foreman-passenger-min-instances 6"]
    assert "05-foreman-ssl.conf` set `PassengerMinInstances" not in apply_md(p)
    assert "every change is an installer option (installer.sh) or a file edit" in hiera_fragment(p)
    # the Puppet vhost's lines stay file edits: puppet-puppet 4.3.0 has no such parameters
    p2 = make_plan(PlanInput("satellite", "6.2", hosts=8000, cpus=48, physical_cores=24, ram_bytes=96 * GIB, puppet_hosts=500))
    assert [(f.kind, f.target, f.value) for f in p2.tunables["passenger.puppet_min_instances"].fixes] == [
        ("file", "/etc/httpd/conf.d/25-puppet.conf", "PassengerMinInstances 6")]


def test_db_pool_says_when_the_releases_installer_used_the_older_formula() -> None:
    # the Tuning guide for Foreman 3.9 (Satellite 6.15), 5.2.7: "It is the maximum of $foreman::db_pool and
    # $foreman::foreman_service_puma_threads_max"; threads_max + 4 came with puppet-foreman 25 (Foreman 3.11)
    t = plan("satellite", "6.15", hosts=15000, cpus=16, ram_gib=64).tunables["foreman.db_pool"]
    assert (t.installer.value, t.foretune.value) == (5, 20)
    assert "the guide's pool for this release, max(db_pool, threads_max) = 16" in t.foretune.reason
    assert t.foretune.reason.count("max(db_pool, threads_max)") == 1
    assert "max(db_pool" not in plan("foreman", "3.12", hosts=15000, cpus=16, ram_gib=64).tunables["foreman.db_pool"].foretune.reason


def test_69_puma_workers_say_the_range_is_the_later_guides() -> None:
    # Satellite 6.9 Performance Tuning Guide: "tuning Profiles are not covering puma tuning as of now"; its Puma
    # section: "If you have enough CPUs, adding more workers adds more performance." The range 8-12 for medium comes
    # from the later Tuning guide (5.2.4), and the row says so, citing the 6.9 guide too.
    t = plan("satellite", "6.9", hosts=8000, cpus=8, ram_gib=32).tunables["puma.workers"]
    assert t.foretune.reason.startswith("the later Tuning guide's range 8-12 for medium (this release's guide gives none")
    assert "g69-puma" in t.foretune.citations
    assert plan("satellite", "6.15", hosts=8000, cpus=8, ram_gib=32).tunables["puma.workers"].foretune.reason.startswith(
        "guide range 8-12 for medium")


def test_passenger_per_app_cap_moves_with_the_raised_pool_on_6_3_to_6_8() -> None:
    # foreman-installer 1.14-2.4 sets apache::mod::passenger::passenger_max_instances_per_app: 6 (tuning hiera), which
    # holds an application at 6 processes whatever PassengerMaxPoolSize says ("up to PassengerMaxPoolSize or
    # PassengerMaxInstancesPerApp if set", 6.2 brief 5.4)
    key = "apache::mod::passenger::passenger_max_instances_per_app"
    # 6.7 (installer 1.24), 16 cores, 12000 hosts: --tuning large's pool 60 (> 1.5 x 16 = 24); Foreman is Passenger's only
    # application (Puppet runs on puppetserver from installer 1.21), so the cap is the whole pool: 60
    p = plan("satellite", "6.7", hosts=12000, cpus=16, ram_gib=64, puppet_hosts=2000)
    t = p.tunables["passenger.max_instances_per_app"]
    assert (t.installer.value, t.foretune.value) == (6, 60)
    assert "foretune-estimate" in t.foretune.citations and "g62-passenger-per-app" in t.foretune.citations
    hiera, _ = hiera_and_installer("satellite", "6.7")  # 12000 hosts, 16 CPUs: the same pool of 60
    assert hiera[key] == 60
    # 6.4 (installer 1.18): Foreman and Puppet both under Passenger, pool 1.5 x 16 = 24, PassengerMinInstances 6 each
    # (the brief's example; 6 + 6 <= 24 / 2): each application may take 24 - 6 = 18, never the other's minimum
    p = plan("satellite", "6.4", hosts=12000, cpus=16, ram_gib=64, puppet_hosts=2000)
    assert p.tunables["passenger.max_pool_size"].foretune.value == 24
    t = p.tunables["passenger.max_instances_per_app"]
    assert (t.installer.value, t.foretune.value) == (6, 18)
    # 6.2 (installer 1.11, no tuning hiera): Passenger has no per-application cap, nothing to move
    assert "passenger.max_instances_per_app" not in plan("satellite", "6.2", hosts=12000, cpus=16).tunables
    # 6.9 runs Puma: no Passenger
    assert "passenger.max_instances_per_app" not in plan("satellite", "6.9", hosts=12000, cpus=16).tunables


def test_foretunes_own_passenger_numbers_are_labelled_estimates() -> None:
    # the queue's step at the default profile's 5000 hosts and the even share of half the pool are foretune's, not the
    # brief's: 6.4 at 12000 hosts gets the profiles' 1000 queue; a 4-core 6.2 pool of max(6, ceil(4 x 1.5)) = 6 holds
    # less than the brief's 6 + 6, so each application gets floor(6 / (2 x 2)) = 1
    q = plan("satellite", "6.4", hosts=12000, cpus=16, ram_gib=64).tunables["passenger.max_request_queue_size"]
    assert q.foretune.value == 1000 and "foretune-estimate" in q.foretune.citations and "foretune estimate" in q.foretune.reason
    p = plan("satellite", "6.2", hosts=3000, cpus=4, ram_gib=16, puppet_hosts=500)
    m = p.tunables["passenger.min_instances"]
    assert m.foretune.value == 1 and "foretune-estimate" in m.foretune.citations


def test_the_pool_is_not_pinned_where_the_installer_derives_it_from_the_threads() -> None:
    # puppet-foreman 25+ (foreman-installer 3.11; Satellite 6.16 pins 3.12): "'db_pool' => pick($foreman::db_pool,
    # $foreman::foreman_service_puma_threads_max + 4)": with threads_max 16 passed, the pool becomes 20 by itself, and a
    # pinned 20 would stay behind a later threads change. Before 3.11 (6.15, max(db_pool 5, threads)) the pool is set.
    hiera, command = hiera_and_installer("satellite", "6.16")
    t = plan("satellite", "6.16", hosts=12000, cpus=16, ram_gib=64).tunables["foreman.db_pool"]
    assert (t.foretune.value, t.fixes) == (20, ())
    assert "--foreman-db-pool" not in command and "foreman::db_pool" not in hiera
    assert "--foreman-foreman-service-puma-threads-max 16" in command
    _, command = hiera_and_installer("satellite", "6.15")
    assert "--foreman-db-pool 20" in command
    # a site that pinned the pool keeps getting it set: the installer's formula does not apply to a pinned value
    site = {"foreman::db_pool": (5, "answers file")}
    assert plan("satellite", "6.16", hosts=12000, cpus=16, ram_gib=64, configured=site).tunables["foreman.db_pool"].fixes == (
        Fix("hiera", "foreman::db_pool", 20),)


def test_explain_derives_the_per_worker_figure_from_its_listed_inputs() -> None:
    # the guide's "around 1 GiB of RAM" per worker plus its database backends: (16 threads + 4 pool extra) x 5 MiB
    # (memory/pg_backend_mib, planned at the top of its range) = 100 MiB, so 1 + 100 / 1024 = 1.10 GiB per worker
    text = explain(plan("satellite", "6.9", hosts=7000, cpus=8, ram_gib=32), "puma.workers")
    assert "(1 GiB + (16 threads + 4) x 5 MiB backends = 1.10 GiB per worker)" in text
    assert "puma_threads = 16" in text and "db_pool_extra = 4" in text
