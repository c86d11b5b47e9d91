"""Secrets never reach output: snapshots (facts and raw texts) and ``facts --format json``."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

from foretune.facts import read_source
from foretune.facts.collect import collect
from tests.conftest import run_cli
from tests.facts.archive import FIXTURES

SECRETS = ("Vq8mXr2LpT6sKn4z", "Dw5hN2qK8vLx3RtF", "Kt2Wm9cQ4xYp7LnR3sV8bJ6dF1gH5zNa", "nB4Xp7yLc2QsR9eWvT6mJ3kD8fG1hZ5a",
           "Hq6Lm1Tz8Wc3Vx9Pb4Rn7Kd2Jf5Sg0Ya", "Zk3pQ8wL1sV7dN0rT5yU9hJ2mC6xB4aE", "Hw7tGc2Yq9VbN3kR", "Rm4kd9WzP2xQe7Lb")


def _fake_root(tmp_path: Path) -> Path:
    """A fake / holding a Foreman server's secret-bearing files, copied from the 6.15 fixture."""
    root = tmp_path / "root"
    fixture = FIXTURES / "satellite-6.15"
    for rel in ("etc/foreman/database.yml", "etc/foreman-installer/scenarios.d/satellite.yaml",
                "etc/foreman-installer/scenarios.d/satellite-answers.yaml", "etc/foreman-installer/custom-hiera.yaml",
                "etc/pulp/settings.py", "etc/candlepin/candlepin.conf", "etc/tomcat/tomcat.conf", "proc/meminfo"):
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((fixture / rel).read_bytes())
    (root / "etc/foreman-installer/scenarios.d/last_scenario.yaml").symlink_to("satellite.yaml")
    with (root / "etc/foreman-installer/custom-hiera.yaml").open("a") as handle:
        handle.write("foreman::initial_admin_password: Dw5hN2qK8vLx3RtF\n")
    return root


def test_snapshot_has_no_secrets_and_reads_back(tmp_path: Path) -> None:
    root = _fake_root(tmp_path)
    out = tmp_path / "snap.json.gz"
    collect(out, environ={"PATH": os.environ.get("PATH", "")}, root=str(root))
    text = gzip.decompress(out.read_bytes()).decode()
    data = json.loads(text)
    assert data["format"] == "foretune-snapshot"
    assert {"host", "time", "foretune_version"} <= set(data["metadata"])
    assert "/etc/foreman/database.yml" in data["raw"]
    assert "[redacted]" in data["raw"]["/etc/foreman/database.yml"]
    assert "pool: 9" in data["raw"]["/etc/foreman/database.yml"]
    for secret in SECRETS:
        assert secret not in text, secret
    facts = read_source(str(out))
    assert facts.source_kind == "snapshot"
    assert facts.value("foreman_db_pool") == 9
    assert facts.value("tuning_profile") == "medium"
    assert facts.value("ram_bytes") == 64 * 1024**3 - 180 * 1024**2
    assert facts["foreman_db_pool"].provenance[0].source == "snapshot"


def test_facts_json_has_no_secrets() -> None:
    for case in ("satellite-6.15", "capsule-6.15-pull-rex", "satellite-6.2"):
        result = run_cli("facts", "--format", "json", str(FIXTURES / case))
        assert result.status == 0
        for secret in SECRETS:
            assert secret not in result.stdout, (case, secret)
        data = json.loads(result.stdout)
        assert data["facts"]["installer_answers"]["value"]["foreman_proxy"]["oauth_consumer_secret"] == "[redacted]"


def test_collect_command_writes_a_snapshot_facts_accepts(tmp_path: Path) -> None:
    out = tmp_path / "host.json"
    result = run_cli("collect", "--output", str(out), "--hosts", "120", environ={"PATH": os.environ.get("PATH", "")})
    assert result.status == 0, result.stderr
    assert f"snapshot written to {out}" in result.stderr and result.stdout == ""
    shown = run_cli("facts", "--format", "json", str(out))
    assert shown.status == 0
    data = json.loads(shown.stdout)
    assert data["source"]["kind"] == "snapshot"
    assert data["facts"]["managed_hosts"]["value"] == 120
    assert run_cli("collect", "--out", str(tmp_path / "x.txt")).status == 2
