"""Each value comes from the release that is planned, not a later one; tags checked with `git tag --contains` upstream."""

from __future__ import annotations

import pytest

from foretune.errors import UsageError
from foretune.knowledge import hardware
from foretune.knowledge.profiles import PG, installer_hiera
from foretune.knowledge.releases import resolve_release
from foretune.plan import PlanInput, make_plan
from tests.conftest import run_cli

GIB = 1024**3


def foreman(version: str, profile: str = "default") -> dict[str, object]:
    return installer_hiera(resolve_release("foreman", version), profile)


def test_profile_keys_start_and_end_at_their_release_tags() -> None:
    # 6bc9552 (passenger_min_instances) is first in 1.17.0
    assert "apache::mod::passenger::passenger_min_instances" not in foreman("1.16")
    assert foreman("1.17")["apache::mod::passenger::passenger_min_instances"] == 1
    # the 2.4.0 tag's common.yaml has no MongoDB cache key; 2.3.0's has
    assert "mongodb::server::config_data" in foreman("2.3")
    assert "mongodb::server::config_data" not in foreman("2.4")
    # the 3.8.0 tag has neither the qpid limits nor the event maxrequestsperchild
    assert foreman("3.7")["qpid::open_file_limit"] == 65536
    assert foreman("3.7", "medium")["apache::mod::event::maxrequestsperchild"] == 4000
    assert "qpid::open_file_limit" not in foreman("3.8")
    assert "apache::mod::event::maxrequestsperchild" not in foreman("3.8", "medium")
    assert foreman("3.8", "medium")[PG]["max_connections"] == 1000  # type: ignore[index]


def test_installer_memory_checks_start_in_their_releases() -> None:
    assert hardware.enforced("default", "1.20") is None  # no check before 1.21
    assert hardware.enforced("default", "1.21").ram_gib == 7.53  # type: ignore[union-attr]  # flat 8 GB (17-memory_check.rb)
    assert hardware.enforced("medium", "1.23") is None
    medium = hardware.enforced("medium", "1.24")  # per-profile checks in katello/hooks/pre_commit/13-hiera.rb @1.24.0
    assert medium is not None and (medium.cores, medium.ram_gib) == (8, 32)
    assert hardware.enforced("default", "1.24").ram_gib == 8  # type: ignore[union-attr]


def plan(product: str, version: str, **kw: object) -> object:
    fields: dict[str, object] = {"hosts": 3000, "cpus": 8, "ram_bytes": 32 * GIB, **kw}
    return make_plan(PlanInput(product=product, version=version, **fields))  # type: ignore[arg-type]


def test_rails_pool_formula_per_puppet_foreman_release() -> None:
    before = plan("foreman", "3.10").tunables  # type: ignore[attr-defined]
    after = plan("foreman", "3.11").tunables  # type: ignore[attr-defined]
    assert before["foreman.db_pool"].installer.value == 5  # max(db_pool 5, threads_max 5)
    assert after["foreman.db_pool"].installer.value == 9  # threads_max 5 + 4 (puppet-foreman 25)


def test_pulpcore_gunicorn_defaults_per_release() -> None:
    t69 = plan("satellite", "6.9").tunables  # type: ignore[attr-defined]
    t611 = plan("satellite", "6.11").tunables  # type: ignore[attr-defined]
    assert (t69["pulp.api_workers"].installer.value, t69["pulp.content_workers"].installer.value) == (1, 2)
    assert (t611["pulp.api_workers"].installer.value, t611["pulp.content_workers"].installer.value) == (5, 17)


def test_module_defaults_of_62_are_62s() -> None:
    t = plan("satellite", "6.2").tunables  # type: ignore[attr-defined]
    assert (t["apache.keepalive"].installer.value, t["apache.keepalive_timeout"].installer.value) == (False, 15)
    assert "candlepin.heap_max" not in t  # puppet-candlepin's -Xmx4096m default arrived after 6.2
    assert t["smart_proxy_dynflow.limit_nofile"].installer.value == 1024
    later = plan("satellite", "6.4").tunables  # type: ignore[attr-defined]
    assert later["apache.keepalive"].installer.value is True
    assert later["candlepin.heap_max"].installer.value == 4 * GIB
    assert later["mongodb.cache_size_gb"].foretune.value == 6.4  # WiredTiger from 6.4: 20 % of 32 GiB


def test_plain_foreman_runs_puma_from_21_and_has_no_katello_parts() -> None:
    assert resolve_release("foreman", "2.1").generation == "puma-prefork"
    assert resolve_release("foreman", "2.0").generation == "passenger"
    assert resolve_release("satellite", "6.8").generation == "passenger"  # Satellite waited for 6.9 (Foreman 2.3)
    p = plan("foreman", "3.16", katello=False, ram_bytes=8 * GIB, cpus=4)
    for gone in ("candlepin.heap_max", "pulp.workers", "mongodb.cache_size_gb", "qpidd.limit_nofile"):
        assert gone not in p.tunables  # type: ignore[attr-defined]
    t = p.tunables  # type: ignore[attr-defined]
    # puppet-foreman config.pp: 'db_pool' => pick($foreman::db_pool, $foreman::foreman_service_puma_threads_max + 4),
    # with or without Katello; "for systems without Katello we can reduce the amount of the pool to puma_threads_max + 1"
    assert t["foreman.db_pool"].installer.value == 9  # threads_max 5 + 4
    assert t["foreman.db_pool"].foretune.value == 17  # the guides' 16 threads + 1
    assert t["postgresql.max_connections"].installer.value == 500  # tuning/common.yaml applies to every scenario
    assert p.hardware.ok and p.hardware.required_ram_bytes == 4 * GIB  # type: ignore[attr-defined]  # Foreman alone: 4 GB
    result = run_cli("plan", "--product", "foreman", "--version", "3.16", "--no-katello", "--hosts", "300", "--cpus", "4",
                     "--ram", "8G", "--format", "installer")
    assert result.status == 0, result.stderr
    assert "--tuning" not in result.stdout


def test_no_katello_refuses_profiles_in_one_line() -> None:
    with pytest.raises(UsageError, match="plain Foreman has no --tuning"):
        plan("foreman", "3.16", katello=False, profile="medium")
    result = run_cli("plan", "--product", "foreman", "--version", "3.16", "--no-katello", "--profile", "medium",
                     "--hosts", "300", "--cpus", "4", "--ram", "8G")
    assert result.status == 2 and len(result.stderr.strip().splitlines()) == 1


def test_no_katello_is_for_plain_foreman_only() -> None:
    result = run_cli("plan", "--product", "satellite", "--version", "6.15", "--no-katello", "--hosts", "300", "--cpus", "4",
                     "--ram", "20G")
    assert result.status == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "--no-katello applies to --product foreman" in result.stderr


def test_every_62_change_is_a_file_edit_or_drop_in() -> None:
    """No custom-hiera before foreman-installer 1.14: every fix names a file, a systemd drop-in, a sysctl or a command."""
    for role in ("server", "capsule"):
        p = make_plan(PlanInput(product="satellite", version="6.2", role=role, hosts=8000, cpus=16, physical_cores=8,
                                ram_bytes=48 * GIB, katello_agent_hosts=6000, puppet_hosts=2000))
        kinds = {f.kind for t in p.tunables.values() for f in t.fixes}
        assert kinds <= {"file", "limit", "sysctl", "command", "advice"}, kinds
        advice = [f.target for t in p.tunables.values() for f in t.fixes if f.kind == "advice"]
        assert set(advice) <= {"/var/lib/qpidd", "Puppet"}, advice  # only true advice, never an unmapped hiera key


def test_render_refuses_custom_hiera_on_62() -> None:
    result = run_cli("render", "--product", "satellite", "--version", "6.2", "--hosts", "3000", "--cpus", "8", "--ram", "24G",
                     "--merge-into", "/nonexistent/custom-hiera.yaml")
    assert result.status == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "reads no custom-hiera.yaml" in result.stderr


def test_mongodb_engine_boundary_is_the_scl_hiera_tag() -> None:
    # 540f931 (rh-mongodb34 hiera, no storage engine set) is first tagged foreman-installer 1.18.0
    assert resolve_release("foreman", "1.17").features.mongodb_engine == "mmapv1"
    assert resolve_release("foreman", "1.18").features.mongodb_engine == "wiredtiger"
    assert resolve_release("satellite", "6.3").features.mongodb_engine == "mmapv1"
    t63 = plan("satellite", "6.3").tunables  # type: ignore[attr-defined]
    assert t63["mongodb.storage_engine"].installer.value == "mmapv1"
    assert "mongodb.cache_size_gb" not in t63


def test_an_upgrade_that_kept_mmapv1_gets_no_cache_advice() -> None:
    # katello-installer 3.7.0 hooks/pre/30-upgrade.rb appends mongodb::server::storage_engine: 'mmapv1' to custom-hiera.yaml
    kept = {"mongodb::server::storage_engine": ("mmapv1", "custom-hiera.yaml")}
    p = plan("satellite", "6.4", configured=kept)
    t = p.tunables  # type: ignore[attr-defined]
    assert "mongodb.cache_size_gb" not in t
    engine = t["mongodb.storage_engine"]
    assert (engine.installer.value, engine.installer.origin, engine.installer.citations) == (
        "mmapv1", "custom-hiera.yaml", ("mongodb-upgrade-mmapv1",))
    assert "upgrade from MongoDB 2.6" in engine.installer.reason
    assert [m.component for m in p.memory if m.component.startswith("MongoDB")] == ["MongoDB"]  # type: ignore[attr-defined]
    fresh = plan("satellite", "6.4", configured={"mongodb::server::storage_engine": ("wiredTiger", "custom-hiera.yaml")})
    assert fresh.tunables["mongodb.cache_size_gb"].foretune.value == 6.4  # type: ignore[attr-defined]


def test_candlepin_heap_starts_with_the_puppet_candlepin_5_pin() -> None:
    # katello-installer 3.6.0 (theforeman/foreman 9.0.x, i.e. Foreman 1.17) first pins katello/candlepin 5.0.x
    assert "candlepin.heap_max" not in plan("foreman", "1.16").tunables  # type: ignore[attr-defined]
    heap = plan("foreman", "1.17").tunables["candlepin.heap_max"].installer  # type: ignore[attr-defined]
    assert heap.value == 4096 * 1024**2
    assert heap.citations == ("candlepin-heap-history", "candlepin-defaults")
    assert "candlepin.heap_max" not in plan("satellite", "6.3").tunables  # type: ignore[attr-defined]  # Foreman 1.15


def _hiera_and_installer(product: str, version: str, **extra: object) -> tuple[dict[str, object], str]:
    from foretune.render.outputs import hiera_values, installer_command

    plan = make_plan(PlanInput(product, version, hosts=12000, cpus=16, ram_bytes=64 * GIB, **extra))  # type: ignore[arg-type]
    return hiera_values(plan), installer_command(plan)


def test_dynflow_worker_options_only_where_puppet_foreman_has_them() -> None:
    # puppet-foreman 16.0.0 manifests/init.pp (pinned by foreman-installer 2.3.0, Satellite 6.9) has only
    # $dynflow_pool_size; 17.0.0 (pinned by 2.5.0) adds `Integer[0] $dynflow_worker_instances`
    hiera, command = _hiera_and_installer("satellite", "6.9")
    assert "foreman::dynflow_worker_instances" not in hiera
    assert "--foreman-dynflow-worker-" not in command
    hiera, command = _hiera_and_installer("foreman", "2.5")
    assert hiera["foreman::dynflow_worker_instances"] == 3  # gf-dynflow: 3 workers above 10000 hosts
    assert "--foreman-dynflow-worker-instances 3" in command


def test_puppet_passenger_options_only_where_puppet_puppet_has_them() -> None:
    # puppet-puppet 9.0.0 (Satellite 6.4) manifests/server.pp has $passenger_min_instances and no start timeout;
    # 11.0.0 (foreman-installer 1.21, so Satellite 6.6) removed Passenger support
    hiera, command = _hiera_and_installer("satellite", "6.4", puppet_hosts=2000)
    assert hiera["puppet::server::passenger_min_instances"] == 6
    assert "puppet::server::passenger_start_timeout" not in hiera
    assert "--puppet-server-passenger-start-timeout" not in command
    for version in ("6.6", "6.7", "6.8"):
        hiera, command = _hiera_and_installer("satellite", version, puppet_hosts=2000)
        assert not [key for key in hiera if key.startswith("puppet::server::passenger")], version
        assert "--puppet-server-passenger" not in command, version
        assert hiera["foreman::passenger_min_instances"] == 6, version  # Foreman itself still runs on Passenger
    # Satellite 6.2 edits the Puppet application's vhost directly, as its brief does
    plan = make_plan(PlanInput("satellite", "6.2", hosts=12000, cpus=16, ram_bytes=64 * GIB, puppet_hosts=2000))
    edits = [(fix.target, fix.value) for t in plan.tunables.values() for fix in t.fixes if fix.kind == "file"]
    assert ("/etc/httpd/conf.d/25-puppet.conf", "PassengerStartTimeout 500") in edits


def test_mqtt_rate_limit_option_only_where_puppet_foreman_proxy_has_it() -> None:
    # $mqtt_rate_limit is first in puppet-foreman_proxy 24.1.0 (script.pp); foreman-installer 3.5.0 pins 24.0.x, 3.6.0 24.2.x
    key = "foreman_proxy::plugin::remote_execution::script::mqtt_rate_limit"
    hiera, command = _hiera_and_installer("satellite", "6.13", rex="pull-mqtt")
    assert key not in hiera
    assert "--foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit" not in command
    hiera, command = _hiera_and_installer("satellite", "6.14", rex="pull-mqtt")
    assert hiera[key] == 200
    assert "--foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit 200" in command


def test_keepalive_goes_where_the_foreman_vhost_takes_it_from() -> None:
    # puppet-foreman 13.1.0 (foreman-installer 1.24, Satellite 6.7) manifests/config/apache.pp:
    # apache::vhost { 'foreman': ... max_keepalive_requests => $max_keepalive_requests } from foreman::max_keepalive_requests;
    # 14.0.0 (2615823 'Drop keepalive parameters', foreman-installer 2.0) leaves it to Apache's server-wide setting
    hiera, command = _hiera_and_installer("satellite", "6.7")
    assert hiera["foreman::max_keepalive_requests"] == 0
    assert "apache::max_keepalive_requests" not in hiera
    assert "--foreman-max-keepalive-requests 0" in command
    hiera, _ = _hiera_and_installer("satellite", "6.8")
    assert hiera["apache::max_keepalive_requests"] == 0
    assert "foreman::max_keepalive_requests" not in hiera
    capsule = make_plan(PlanInput("satellite", "6.7", hosts=3000, cpus=8, ram_bytes=32 * GIB, role="capsule"))
    from foretune.render.outputs import hiera_values
    assert hiera_values(capsule)["apache::max_keepalive_requests"] == 0  # a Capsule has no Foreman vhost
    # Katello's answers file (config/katello-answers.yaml @1.24.0) sets foreman max_keepalive_requests 10000
    answers = {"foreman::max_keepalive_requests": (10000, "answers file")}
    plan = make_plan(PlanInput("satellite", "6.7", hosts=12000, cpus=16, ram_bytes=64 * GIB, configured=answers))
    assert plan.tunables["apache.max_keepalive_requests"].installer.value == 10000


def test_qpid_options_only_where_puppet_qpid_has_them() -> None:
    # puppet-qpid: $open_file_limit first in 2.2.0, $mgmt_pub_interval first in 4.1.0; Katello 3.4 (Foreman 1.15,
    # Satellite 6.3) pins katello/qpid 2.1.x, Katello 3.7 (Foreman 1.18, Satellite 6.4) 4.2.x
    def qpid_fixes(version: str) -> set[tuple[str, str, object]]:
        plan = make_plan(PlanInput("satellite", version, hosts=12000, cpus=16, ram_bytes=64 * GIB, katello_agent_hosts=3000))
        return {(fix.kind, fix.target, fix.value) for t in plan.tunables.values() if t.component.startswith("q")
                for fix in t.fixes if t.differs and fix.kind != "advice"}
    assert qpid_fixes("6.3") == {("limit", "qpidd", 65536), ("hiera", "qpid::router::open_file_limit", 150100),
                                 ("file", "/etc/qpid/qpidd.conf", "mgmt-pub-interval=5")}
    assert qpid_fixes("6.4") == {("hiera", "qpid::open_file_limit", 65536), ("hiera", "qpid::router::open_file_limit", 150100),
                                 ("hiera", "qpid::mgmt_pub_interval", 5)}


def test_capsules_tune_no_passenger_once_puppet_left_it() -> None:
    # puppet-puppet 11.0.0 (foreman-installer 1.21, Satellite 6.6) removed Passenger support; a Capsule runs no Foreman
    from foretune.render.outputs import hiera_values

    def capsule(version: str) -> dict[str, object]:
        return hiera_values(make_plan(PlanInput("satellite", version, hosts=3000, cpus=8, ram_bytes=32 * GIB, role="capsule",
                                                puppet_hosts=1000)))
    assert capsule("6.4")["apache::mod::passenger::passenger_max_pool_size"] == 12  # ceil(8 x 1.5), the 6.2 brief's rule
    assert not [key for key in capsule("6.6") if "passenger" in key]
