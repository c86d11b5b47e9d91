"""`foretune model` on the command line: the scripted JSON contract, what-ifs side by side, one line for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

BASE = ["model", "--product", "satellite", "--version", "6.15", "--cpus", "8", "--ram", "32G"]
REG = ["--workload", "registrations", "--concurrency", "150", "--no-knee"]


def test_json_contract_keys_and_side_by_side_what_if() -> None:
    result = run_cli(*BASE, "--set", "foreman.puma_threads=16", *REG, "--format", "json")
    assert result.status == 0, result.stderr
    doc = json.loads(result.stdout)
    for key in ("throughput_per_s", "success_ratio", "p95_s", "bottleneck"):
        assert key in doc
    assert 0 <= doc["success_ratio"] <= 1 and doc["throughput_per_s"] > 0
    assert [s["label"] for s in doc["scenarios"]] == ["as planned", "with foreman.puma_threads=16"]
    asked = doc["scenarios"][1]
    assert asked["network"]["puma_threads"] == 16 and asked["network"]["db_pool"] >= 16
    assert doc["throughput_per_s"] == asked["throughput_per_s"]
    assert doc["scenarios"][0]["network"]["puma_threads"] == 5  # Satellite 6.15's installer default


def test_text_output_names_bottleneck_bound_and_classes() -> None:
    result = run_cli(*BASE, *REG)
    assert result.status == 0, result.stderr
    for text in ("throughput (registrations/s)", "first-try success", "bottleneck", "analytic bound",
                 "consumer_create", "as planned: "):
        assert text in result.stdout


def test_demands_file_from_foretune_load(tmp_path: Path) -> None:
    path = tmp_path / "load.json"
    path.write_text(json.dumps({"steps": [{"name": "POST /rhsm/consumers", "p50_ms": 500}]}), encoding="utf-8")
    result = run_cli(*BASE, *REG, "--demands", str(path), "--format", "json")
    assert result.status == 0, result.stderr
    fast = json.loads(result.stdout)
    assert fast["demands"]["source"] == f"{path} (foretune load), cited defaults for the other steps"
    # the measured step reaches the model: a consumer create 40 times slower makes registrations slower
    path.write_text(json.dumps({"steps": [{"name": "POST /rhsm/consumers", "p50_ms": 20000}]}), encoding="utf-8")
    slow = json.loads(run_cli(*BASE, *REG, "--demands", str(path), "--format", "json").stdout)
    assert slow["p95_s"] > fast["p95_s"] + 19


@pytest.mark.parametrize(("argv", "message"), [
    (["--concurrency", "10", "--set", "puma.threads"], "expected TUNABLE=VALUE"),
    (["--concurrency", "10", "--set", "foreman.magic=3"], "not a tunable the model knows"),
    (["--concurrency", "10", "--set", "puma.workers=lots"], "must be a number"),
    (["--concurrency", "10", "--set", "puma.workers=-2"], "positive number"),
    (["--workload", "downloads"], "needs --concurrency"),
    (["--workload", "registrations"], "needs --concurrency N"),
    (["--concurrency", "10", "--rate", "5"], "not both"),
    (["--concurrency", "0"], "must be at least 1"),
    (["--workload", "api"], "needs --api-rate"),
    (["--concurrency", "10", "--demands", "/nonexistent/load.json"], "load.json"),
    (["--concurrency", "10", "--version", "6.2"], "runs Passenger"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], message: str) -> None:
    result = run_cli(*BASE, *argv)
    assert result.status == 2, result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_bad_demands_file_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "load.json"
    path.write_text("{", encoding="utf-8")
    result = run_cli(*BASE, "--concurrency", "10", "--demands", str(path))
    assert result.status == 2 and "not JSON" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_capsule_is_modelled_for_downloads_only() -> None:
    result = run_cli(*BASE, "--role", "capsule", "--concurrency", "10")
    assert result.status == 2 and "model the server" in result.stderr
    ok = run_cli(*BASE, "--role", "capsule", "--workload", "downloads", "--concurrency", "20", "--packages", "3",
                 "--format", "json")
    assert ok.status == 0, ok.stderr
    assert json.loads(ok.stdout)["bottleneck"] in ("cpu", "content_workers", "apache_slots", "network")


def test_from_a_sosreport_models_what_the_box_runs() -> None:
    # the fixture's installer.conf runs 40 workers x 16 threads and its database.yml a pool of 5
    result = run_cli("model", "--from", str(REPO / "examples" / "sosreport-satellite-6.15-mistuned"), "--concurrency", "300",
                     "--no-knee", "--format", "json")
    assert result.status == 0, result.stderr
    doc = json.loads(result.stdout)
    box = doc["scenarios"][0]["network"]
    assert (box["cpus"], box["puma_workers"], box["puma_threads"], box["db_pool"]) == (16, 40, 16, 5)
    assert doc["scenarios"][0]["failures"].get("pool-timeout", 0) > 0  # a pool of 5 under 16 threads


def test_recommend_names_only_what_changes() -> None:
    # 2 workers x 8 threads on 8 CPUs: the model's knee lies near 700 hosts, 1200 at once do not hold
    result = run_cli(*BASE, "--set", "puma.workers=2", "--set", "foreman.puma_threads=8", "--set",
                     "apache.max_request_workers=1024", "--concurrency", "1200", "--no-knee", "--recommend",
                     "--format", "json")
    assert result.status == 0, result.stderr
    rec = json.loads(result.stdout)["recommendation"]
    assert rec["smallest_change"] is not None and len(rec["smallest_change"]["sets"]) == 1
    assert rec["best"]["sets"]["foreman.puma_threads"] == 16
