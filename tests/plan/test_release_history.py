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
    """No custom-hiera before foreman-installer 1.14: every fix names a file, a systemd drop-in, a sysctl, a command, or an
    option of a class parameter puppet-foreman 5.1.0 has (manifests/init.pp: $passenger_min_instances,
    $passenger_start_timeout, $passenger_prestart)."""
    for role in ("server", "capsule"):
        p = make_plan(PlanInput(product="satellite", version="6.2", role=role, hosts=8000, cpus=16, physical_cores=8,
                                ram_bytes=48 * GIB, katello_agent_hosts=6000, puppet_hosts=2000))
        kinds = {f.kind for t in p.tunables.values() for f in t.fixes}
        assert kinds <= {"file", "limit", "sysctl", "command", "advice", "installer"}, kinds
        options = {f.target for t in p.tunables.values() for f in t.fixes if f.kind == "installer"}
        assert options <= {"--foreman-passenger-min-instances", "--foreman-passenger-start-timeout", "--foreman-passenger-prestart"}
        advice = [f.target for t in p.tunables.values() for f in t.fixes if f.kind == "advice"]
        assert set(advice) <= {"/var/lib/qpidd", "Puppet", "Puppet agents"}, advice  # only true advice, never an unmapped hiera key


def test_render_refuses_custom_hiera_on_62() -> None:
    result = run_cli("render", "--product", "satellite", "--version", "6.2", "--hosts", "3000", "--cpus", "8", "--ram", "24G",
                     "--merge-into", "/nonexistent/custom-hiera.yaml")
    assert result.status == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "reads no custom-hiera.yaml" in result.stderr


def test_orcharhino_releases_map_to_the_foreman_their_makers_name() -> None:
    # theforeman/foreman-documentation PRs by ATIX: #3970 "Foreman 3.11/Katello 4.13 (orcharhino 6.11 on EL8 only;
    # orcharhino 7.0 on EL8+EL9; orcharhino 7.1 with Leapp)", "Foreman 3.9/Katello 4.11 (Satellite 6.15; orcharhino
    # 6.8/6.9/6.10)", "orcharhino 7.3 is based on Foreman 3.12", "Foreman 3.12/Katello 4.14 (Satellite 6.16; orcharhino 7.2
    # on EL9 only)"; #4182 "orcharhino 7.4 is based on Foreman 3.14"; #3385 "Foreman 3.5/Katello 4.7 (Satellite 6.13;
    # orcharhino 6.6/6.7)"; #2224 "Foreman 3.3/Katello 4.5 ... planned orcharhino 6.4"; #2144 "Foreman 3.1/Katello 4.3
    # ... orcharhino 6.2 on EL7/8"
    expected = {"6.2": "3.1", "6.4": "3.3", "6.6": "3.5", "6.7": "3.5", "6.8": "3.9", "6.9": "3.9", "6.10": "3.9",
                "6.11": "3.11", "7.0": "3.11", "7.1": "3.11", "7.2": "3.12", "7.3": "3.12", "7.4": "3.14"}
    for version, foreman in expected.items():
        assert resolve_release("orcharhino", version).foreman_version == foreman, version
    with pytest.raises(UsageError):  # no source names orcharhino 6.0's base: refused, with the known releases named
        resolve_release("orcharhino", "6.0")
