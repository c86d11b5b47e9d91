"""The mechanisms the tuning guides describe, shown on the lab (each test under 60 s)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli
from tests.load.conftest import load, registration_args
from tests.support.lab import Lab


def _registrations_per_second(threads: int, out: Path) -> float:
    with Lab(puma_workers=1, puma_threads=threads, pool=threads, backend_ms=10, consumer_create_ms=50) as lab:
        run = load(*registration_args(lab, "--users", "4", "--duration", "8"), env=lab.credentials)
        assert run.status == 0, run.stderr
        out.write_text(run.stdout)
        steps = {s["name"]: s for s in run.json()["steps"]}
        assert "registration" in steps, f"no registration finished in 8 s with {threads} thread(s)"
        return float(steps["registration"]["ok_rps"])


def test_more_puma_threads_with_a_covering_pool_raise_registration_throughput(tmp_path: Path) -> None:
    """Requests wait on the backend most of the time, so threads overlap them: 1 -> 8 threads, same 4 hosts.
    ``load --compare`` shows the change, beyond noise."""
    before, after = tmp_path / "1-thread.json", tmp_path / "8-threads.json"
    one, eight = _registrations_per_second(1, before), _registrations_per_second(8, after)
    assert one > 0
    assert eight > 2 * one, (one, eight)
    compared = run_cli("load", "--compare", str(before), str(after), "--format", "json")
    assert compared.status == 0, compared.stderr
    row = next(r for r in json.loads(compared.stdout)["steps"] if r["name"] == "registration")
    assert row["ok_rps"]["change"] > 1.0 and row["ok_rps"]["noise"] is False
    text = run_cli("load", "--compare", str(before), str(after)).stdout
    assert any(line.startswith("registration ") and "noise" not in line for line in text.splitlines()), text


def test_a_pool_below_the_threads_gives_pool_timeouts_seen_by_load_and_by_logs() -> None:
    with Lab(puma_workers=1, puma_threads=16, pool=2, checkout_timeout=0.5, backend_ms=100) as lab:
        run = load(*registration_args(lab, "--users", "16", "--duration", "5", "--server-logs", str(lab.logs)),
                   env={**lab.credentials, "TZ": "UTC"})  # the lab logs UTC
        assert run.status == 1
        failed = [s for s in run.json()["steps"] if s["failures"].get("500") and s["name"] != "registration"]
        assert failed
        assert any("could not obtain a connection from the pool" in e for s in failed for e in s["examples"])
        logs = run_cli("logs", str(lab.logs), "--format", "json")
        assert logs.status == 0, logs.stderr
        incidents = {i["kind"]: i for i in json.loads(logs.stdout)["incidents"]}
        assert incidents["db_pool_timeout"]["count"] >= sum(s["failures"]["500"] for s in failed) > 0
        assert "could not obtain a connection from the pool" in incidents["db_pool_timeout"]["line"]
        # --server-logs: the same incident in the result, read when the run ended; requests still queued in the lab
        # then may log more pool timeouts before `foretune logs` reads the file, never fewer
        beside = {i["kind"]: i for i in run.json()["server_logs"]["incidents"]}
        assert sum(s["failures"]["500"] for s in failed) <= beside["db_pool_timeout"]["count"] <= incidents["db_pool_timeout"]["count"]


def test_max_request_workers_below_demand_queues_then_fails() -> None:
    """Two Apache workers: 2 hosts are served at backend speed; 30 queue in the listen backlog, then time out."""
    with Lab(puma_workers=1, puma_threads=16, pool=16, server_limit=1, threads_per_child=2, max_request_workers=2,
             backend_ms=50) as lab:
        run = load(*registration_args(lab, "--users", "2", "--step", "28", "--levels", "2", "--duration", "5",
                                      "--timeout", "1.5", "--keep-going"), env=lab.credentials)
        calm, crowded = (run.step("register_script", level) for level in (0, 1))
        assert calm["failures"] == {} and calm["p50_ms"] < 500
        assert crowded["p50_ms"] > 4 * calm["p50_ms"], (calm, crowded)  # queued for a worker
        assert run.json()["saturation_users"] == 30
        assert sum(s["failures"].get("timeout", 0) for s in run.json()["levels"][1]["steps"]) > 0  # then failed
        assert "AH00484: server reached MaxRequestWorkers" in (lab.logs / "var/log/httpd/foreman-ssl_error_ssl.log").read_text()


def test_mosquitto_with_limitnofile_64_refuses_the_65th_client() -> None:
    with Lab(mosquitto_nofile=64) as lab:
        run = load("rex-pull", "--target", lab.url, "--mqtt", f"{lab.mqtt[0]}:{lab.mqtt[1]}", "--users", "65",
                   "--duration", "1", "--timeout", "5", "--yes", "--format", "json")
        connect = run.step("mqtt_connect")
        assert connect["count"] == 65
        refused = connect["failures"].get("refused", 0)
        assert refused >= 1  # the 65th at least: the broker's own descriptors come out of the same 64
        assert 65 - refused >= 40  # the others connected: a ceiling, not a broken broker
        assert run.step("mqtt_subscribe")["count"] == 65 - refused
