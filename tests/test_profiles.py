"""`foretune profiles`: the installer's profiles per version, exactly as --tuning applies them."""

from __future__ import annotations

import json

import pytest
import yaml

from foretune.knowledge.profiles import installer_hiera
from foretune.knowledge.releases import resolve_release
from tests.conftest import run_cli

PG = "postgresql::server::config_entries"


def show(product: str, version: str, profile: str) -> dict[str, object]:
    result = run_cli("profiles", "show", profile, "--product", product, "--version", version, "--format", "json")
    assert result.status == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_current_large_profile_merges_postgresql_hash() -> None:
    data = show("satellite", "6.15", "large")
    assert data[PG] == {"checkpoint_completion_target": 0.9, "max_connections": 1000, "shared_buffers": "8GB",
                        "work_mem": "4MB", "log_line_prefix": "%t ", "log_min_duration_statement": 1000,
                        "log_rotation_size": 200000, "effective_cache_size": "16GB", "autovacuum_vacuum_cost_limit": 2000}
    assert data["apache::mod::event::serverlimit"] == 64
    assert data["apache::mod::event::maxrequestworkers"] == 1024
    assert "apache::mod::event::maxrequestsperchild" not in data  # removed in FI 3.9
    assert "qpid::open_file_limit" not in data
    assert "candlepin::java_opts" not in data


def test_extra_large_sets_candlepin_heap_and_work_mem() -> None:
    data = show("satellite", "6.15", "extra-large")
    assert data["candlepin::java_opts"] == "-Xms1024m -Xmx8192m"
    assert data[PG]["work_mem"] == "8MB"  # type: ignore[index]


@pytest.mark.parametrize(("product", "version", "has_segments"), [("foreman", "1.24", True), ("satellite", "6.8", False)])
def test_checkpoint_segments_only_before_foreman_2(product: str, version: str, has_segments: bool) -> None:
    data = show(product, version, "medium")
    assert ("checkpoint_segments" in data[PG]) is has_segments  # type: ignore[operator]


def test_epoch_a_keeps_passenger_prefork_and_qpid_keys() -> None:
    data = show("satellite", "6.9", "medium")
    assert data["apache::mod::passenger::passenger_max_pool_size"] == 30
    assert data["apache::mod::prefork::serverlimit"] == 1024
    assert data["qpid::router::open_file_limit"] == 150100
    assert "mongodb::server::config_data" in data


def test_epoch_b_dropped_passenger_and_mongodb() -> None:
    data = show("satellite", "6.10", "medium")
    assert not [k for k in data if "passenger" in k or "mongodb" in k]
    assert data["apache::mod::prefork::maxclients"] == 1024


def test_pre_profile_release_has_only_the_single_tuning_file() -> None:
    data = show("satellite", "6.4", "default")
    assert data["apache::mod::passenger::passenger_max_pool_size"] == 12
    assert data[PG]["max_connections"] == 500  # type: ignore[index]
    assert run_cli("profiles", "show", "medium", "--product", "satellite", "--version", "6.4").status == 2


def test_development_profile_exists_from_installer_3_4() -> None:
    assert run_cli("profiles", "show", "development", "--product", "satellite", "--version", "6.12").status == 2  # FI 3.3
    assert show("satellite", "6.13", "development") == show("satellite", "6.13", "default")


def test_capsule_gets_common_layer_only() -> None:
    release = resolve_release("satellite", "6.15")
    assert installer_hiera(release, "large", role="capsule") == installer_hiera(release, "default")


def test_yaml_output_round_trips() -> None:
    result = run_cli("profiles", "show", "medium", "--product", "orcharhino", "--version", "6.9")
    assert yaml.safe_load(result.stdout) == show("orcharhino", "6.9", "medium")


def test_diff_lists_only_differences() -> None:
    result = run_cli("profiles", "diff", "large", "extra-large", "--product", "satellite", "--version", "6.15")
    assert result.status == 0
    lines = result.stdout.splitlines()[1:]
    keys = {line.split()[0] for line in lines}
    assert keys == {f"{PG}/shared_buffers", f"{PG}/effective_cache_size", f"{PG}/work_mem", "candlepin::java_opts"}


def test_list_marks_profiles_a_version_lacks() -> None:
    result = run_cli("profiles", "list", "--product", "satellite", "--version", "6.9")
    assert "development" in result.stdout and "(not on this version)" in result.stdout
    assert "10001-20000" in result.stdout


def test_unknown_profile_is_one_line() -> None:
    result = run_cli("profiles", "show", "huge", "--product", "satellite", "--version", "6.15")
    assert result.status == 2 and "unknown profile 'huge'" in result.stderr
