"""Every fixture sosreport gives its reviewed expected facts, as a directory and as tarballs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from foretune.facts import read_source
from foretune.facts.serialize import facts_to_dict
from tests.facts.archive import CASES, FIXTURES, pack


def _observed(spec: str) -> dict[str, Any]:
    data = facts_to_dict(read_source(spec))
    out: dict[str, Any] = {"known": {}, "locations": {}, "unknown": [], "problems": data["problems"]}
    for name, entry in data["facts"].items():
        if entry.get("unknown"):
            out["unknown"].append(name)
        else:
            out["known"][name] = entry["value"]
            out["locations"][name] = entry["provenance"][0]["location"] if entry["provenance"] else None
    return out


def _expected(case: str) -> dict[str, Any]:
    return dict(json.loads((FIXTURES / f"{case}.expected.json").read_text()))


def _compare(observed: dict[str, Any], expected: dict[str, Any]) -> None:
    assert observed["problems"] == expected["problems"]
    assert sorted(observed["unknown"]) == sorted(expected["unknown"])
    for name, value in expected["known"].items():
        assert observed["known"].get(name) == value, name
    assert observed["locations"] == expected["locations"]


@pytest.mark.parametrize("case", CASES)
def test_directory_gives_expected_facts(case: str) -> None:
    _compare(_observed(str(FIXTURES / case)), _expected(case))


@pytest.mark.parametrize("case", CASES)
def test_tarball_gives_the_same_facts(case: str, tmp_path: Path) -> None:
    suffix = {"satellite-6.2": ".tar.bz2", "satellite-6.9": ".tar.gz", "capsule-6.15-pull-rex": ".tar"}.get(case, ".tar.xz")
    archive = pack(FIXTURES / case, tmp_path / f"sosreport-{case}{suffix}")
    _compare(_observed(str(archive)), _expected(case))


def test_fixtures_cover_every_era() -> None:
    facts = {case: read_source(str(FIXTURES / case)) for case in CASES}
    assert facts["satellite-6.2"].value("passenger")["PassengerMaxPoolSize"] == 20
    assert facts["satellite-6.2"].value("dynflow")["executors"] == 2
    assert facts["satellite-6.2"]["foreman_db_pool"].provenance[0].location.startswith("sos_commands/foreman/foreman-debug/")
    assert facts["satellite-6.9"].value("postgresql")["shared_buffers"] == "4GB"
    assert "rh-postgresql12" in facts["satellite-6.9"]["postgresql"].provenance[0].location
    assert facts["satellite-6.9"]["redis"].provenance[0].location == "etc/opt/rh/rh-redis5/redis.conf"
    assert facts["satellite-6.9"].value("mongodb") == {"cache_size_gb": 8.0, "engine": "wiredTiger"}  # MongoDB 3.4 default
    assert facts["satellite-6.2"].value("mongodb")["engine"] == "mmapv1"  # MongoDB 2.6 has no other engine
    assert facts["satellite-6.15"].value("apache")["mpm"] == "event"
    assert facts["orcharhino-6.9"].value("product") == "orcharhino"
    assert facts["capsule-6.15-pull-rex"].value("role") == "capsule"
    assert facts["capsule-6.15-pull-rex"].value("mqtt")["pull_rex"] is True


def test_mongod_conf_in_the_installers_flat_dotted_form() -> None:
    # puppet-mongodb writes "storage.wiredTiger.engineConfig.cacheSizeGB: 6" (one dotted key a line), which
    # mongod reads as the nested storage: wiredTiger: engineConfig: cacheSizeGB
    facts = read_source(str(FIXTURES / "satellite-6.9-tuned"))
    assert facts.value("mongodb") == {"cache_size_gb": 6.0, "engine": "wiredTiger"}


def test_example_is_mistuned_everywhere() -> None:
    facts = read_source(str(FIXTURES.parent.parent.parent / "examples" / "sosreport-satellite-6.15-mistuned"))
    assert facts.problems == []
    assert facts.value("tuning_profile") == "default"
    assert facts.value("managed_hosts") == 15120
    assert facts.value("puma") == {"workers": 40, "threads_min": 0, "threads_max": 16}
    assert facts.value("foreman_db_pool") == 5
    pg = facts.value("postgresql")
    assert (pg["max_connections"], pg["shared_buffers"], pg["work_mem"]) == ("500", "512MB", "4MB")
    assert facts.value("custom_hiera")["postgresql::server::config_entries"] == {"checkpoint_segments": 32}
    apache = facts.value("apache")
    assert apache["MaxRequestWorkers"] > apache["ServerLimit"] * apache["ThreadsPerChild"]
    assert facts.value("service_limits")["httpd.service"]["LimitNOFILE"] == 1024
    assert facts.value("dynflow")["workers"] == 1 and facts.value("dynflow")["concurrency"] == 15
    assert facts.value("pulpcore")["workers"] == facts.value("cpu_logical") == 16
    assert facts.value("candlepin")["heap_max_bytes"] == 2048 * 1024**2
    assert facts.value("thp")["enabled"] == "always"
    assert facts.value("tuned") == {"active": None, "running": False}
    assert facts.value("swap") == {"total_bytes": 4194300 * 1024, "used_bytes": 1572864 * 1024}
    assert facts.value("key_dirs")["/var/lib/pulp"]["fstype"] == "nfs4"
    pgsql = facts.value("key_dirs")["/var/lib/pgsql"]
    assert 0.06 < pgsql["free_bytes"] / pgsql["size_bytes"] < 0.08
    assert facts.value("hammer") == {"request_timeout": 120}
    assert facts.value("mqtt")["mosquitto"] is False


def test_hosts_argument_fills_missing_count() -> None:
    facts = read_source(str(FIXTURES / "satellite-6.15"), hosts=4321)
    assert facts.value("managed_hosts") == 4200  # the archive's own count wins
    facts = read_source(str(FIXTURES / "capsule-6.15-pull-rex"), hosts=4321)
    assert facts.value("managed_hosts") == 4321
    assert facts["managed_hosts"].provenance[0].location == "command line"


def test_example_tarball_equals_directory(tmp_path: Path) -> None:
    example = FIXTURES.parent.parent.parent / "examples" / "sosreport-satellite-6.15-mistuned"
    from_dir = facts_to_dict(read_source(str(example)))
    from_tar = facts_to_dict(read_source(str(pack(example, tmp_path / "example.tar.xz"))))
    assert from_tar["facts"] == from_dir["facts"]
    assert from_dir["facts"]["service_limits"]["value"]["httpd.service"]["process_nofile"] == 1024


def test_manifest_names_the_command_file(tmp_path: Path) -> None:
    import shutil

    tree = tmp_path / "sos"
    shutil.copytree(FIXTURES / "satellite-6.15", tree, symlinks=True)
    (tree / "sos_commands/kernel/sysctl_-a").rename(tree / "sos_commands/kernel/sysctl_-a.1")
    manifest = tree / "sos_reports/manifest.json"
    manifest.write_text(manifest.read_text().replace('"sos_commands/kernel/sysctl_-a"', '"sos_commands/kernel/sysctl_-a.1"'))
    facts = read_source(str(tree))
    assert facts.value("sysctl")["fs.aio-max-nr"] == "65536"
    assert facts["sysctl"].provenance[0].location == "sos_commands/kernel/sysctl_-a.1"


def test_facts_reference_is_current() -> None:
    from foretune.facts.reference import facts_reference
    from tests.conftest import REPO

    assert (REPO / "docs" / "facts.md").read_text(encoding="utf-8") == facts_reference()


def test_passenger_foreman_vhost_beats_global() -> None:
    """Passenger's vhost directive overrides the global one: Foreman runs with 05-foreman-ssl.conf's value."""
    tuned = read_source(str(FIXTURES / "satellite-6.2-tuned")).value("passenger")
    assert tuned["PassengerMinInstances"] == 6  # 05-foreman-ssl.conf 6 over passenger.conf 3
    assert tuned["PassengerMaxPreloaderIdleTime"] == 0  # only in passenger.conf: the global value applies
    assert read_source(str(FIXTURES / "satellite-6.2")).value("passenger")["PassengerMinInstances"] == 1
