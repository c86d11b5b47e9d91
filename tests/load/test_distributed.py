"""Locust's distributed mode on loopback: a master and one worker process against the lab, same results as a local run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib import resources

import jsonschema

from tests.load.conftest import child_env, load, registration_args
from tests.support.lab import Lab, free_port

SCHEMA = json.loads(resources.files("foretune.load").joinpath("schema/load-v1.json").read_text())


def _worker(*argv: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "foretune", "load", *argv], env=child_env(env), text=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _sent(stderr: str) -> int:
    found = re.search(r"worker done, (\d+) requests sent", stderr)
    assert found, stderr
    return int(found.group(1))


def test_master_and_one_worker_give_the_results_of_a_local_run(lab: Lab) -> None:
    port = str(free_port())
    worker = _worker("api", "--target", lab.url, "--worker", "--master-host", "127.0.0.1", "--master-port", port, "--yes",
                     env=lab.credentials)
    try:
        run = load("api", "--target", lab.url, "--master", "--master-bind-port", port, "--expect-workers", "1",
                   "--users", "2", "--step", "2", "--levels", "2", "--duration", "2", "--yes", "--format", "json",
                   env=lab.credentials, timeout=120)
        _, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert run.status == 0, run.stderr
    assert worker.returncode == 0, err
    doc = run.json()
    jsonschema.validate(doc, SCHEMA)
    counts = {s["name"]: s["count"] for s in doc["steps"]}
    assert counts["hosts_index"] > counts["organizations"] > 0
    assert [level["users"] for level in doc["levels"]] == [2, 4]
    assert all(level["steps"] for level in doc["levels"])
    assert "distributed: 1 workers" in doc["notes"]
    # every request the worker sent reached the master's results, none twice
    assert doc["requests"] == _sent(err) == sum(counts.values())


def test_a_registration_worker_names_its_run_for_cleanup(lab: Lab) -> None:
    port = str(free_port())
    worker = _worker(*registration_args(lab, "--worker", "--master-host", "127.0.0.1", "--master-port", port,
                                        "--run", "wk1"), env=lab.credentials)
    try:
        run = load(*registration_args(lab, "--master", "--master-bind-port", port, "--users", "2", "--duration", "3"),
                   env=lab.credentials, timeout=120)
        _, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert run.status == 0, run.stderr
    assert worker.returncode == 0 and "as run wk1" in err, err
    assert run.step("registration")["count"] >= 1 and run.step("consumer_create")["failures"] == {}
    assert any("run wk1" in note for note in run.json()["notes"])
    jsonschema.validate(run.json(), SCHEMA)
    trace = run.json()["registrations"]  # the worker's per-host trace reaches the master
    assert trace["total"] == run.step("registration")["count"]
    assert all(h["host"].startswith("foretune-load-wk1-") for h in trace["hosts"])
    names = lab.psql("SELECT name FROM hosts WHERE name LIKE 'foretune-load-wk1-%'").split()
    assert len(names) >= run.step("consumer_create")["count"] - run.step("consumer_create")["failures_total"]


def test_distributed_options_are_checked_before_anything_runs() -> None:
    target = ["--target", "http://127.0.0.1:9", "--yes"]
    cases = {
        ("rex-pull", "--master"): "rex-pull runs its MQTT clients in one process",
        ("api", "--master", "--arrival-rate", "5"): "open arrivals",
        ("api", "--worker"): "--worker needs --master-host",
        ("api", "--master", "--worker", "--master-host", "127.0.0.1"): "contradict",
        ("api", "--master-host", "127.0.0.1"): "--master-host goes with --worker",
        ("api", "--worker", "--master-host", "192.0.2.1"): "--master-host: 192.0.2.1 is not a loopback address",
        ("api", "--master", "--master-bind-host", "0.0.0.0"): "--master-bind-host: 0.0.0.0 is not a loopback address",
        ("api", "--worker", "--master-host", "127.0.0.1", "--master-port", "70000"): "not a TCP port",
        # str.isdigit() takes Arabic-Indic digits and int() reads them as 12: the one whole-number type refuses them
        ("api", "--worker", "--master-host", "127.0.0.1", "--master-port", "\u0661\u0662"): "not a TCP port",
    }
    for argv, message in cases.items():
        run = load(*argv, *target, env={"FORETUNE_LOAD_TOKEN": "t0ken-value"})
        assert run.status == 2, (argv, run.stderr)
        assert message in run.stderr and "Traceback" not in run.stderr, (argv, run.stderr)
