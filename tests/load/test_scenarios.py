"""Every scenario against the lab: it runs, the figures add up, and the JSON follows its schema."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from importlib import resources
from pathlib import Path

import jsonschema

from foretune.load import plan
from tests.load.conftest import child_env, load, registration_args
from tests.support.lab import Lab

SCHEMA = json.loads(resources.files("foretune.load").joinpath("schema/load-v1.json").read_text())


def test_registration_runs_every_step_in_the_traced_counts(lab: Lab) -> None:
    run = load(*registration_args(lab, "--users", "3", "--duration", "3"), env=lab.credentials)
    assert run.status == 0, run.stderr
    doc = run.json()
    jsonschema.validate(doc, SCHEMA)
    flows = run.step("registration")["count"]
    assert flows >= 1  # how many finish in 3 s depends on the machine's load; the counts per flow do not
    # each finished registration made 12 status and 13 compliance calls (started ones may add a few)
    assert run.step("status")["count"] >= 12 * flows
    assert run.step("compliance")["count"] >= 13 * flows
    assert run.step("consumer_create")["failures"] == {}
    names = lab.psql("SELECT name FROM hosts ORDER BY id").split()
    assert names and all(n.startswith(f"foretune-load-{doc['run']}-") for n in names)
    assert lab.psql("SELECT count(*) FROM hosts WHERE profile IS NOT NULL") == str(run.step("upload_profiles")["count"])


def test_registration_sends_the_numeric_organization_id(lab: Lab) -> None:
    # the lab, as Foreman, finds the organization by id (its one organization is 1): another id is not found
    wrong = load(*registration_args(lab, "--users", "1", "--duration", "1", "--organization-id", "2"), env=lab.credentials)
    assert wrong.status == 1
    assert wrong.step("register_script")["failures"].get("404", 0) > 0
    assert "consumer_create" not in {s["name"] for s in wrong.json()["steps"]}  # the flow ends at the failed call


def test_content_downloads_packages_and_reports_throughput(lab: Lab) -> None:
    run = load("content", "--target", lab.url, "--repo", lab.content_path, "--packages", "4", "--users", "2",
               "--duration", "3", "--yes", "--format", "json")
    assert run.status == 0, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    package = run.step("package")
    assert package["count"] >= 4 * run.step("download")["count"] > 0
    assert package["mb_per_s"] > 0 and package["failures"] == {}


def test_api_mix_is_read_mostly_and_authenticated(lab: Lab) -> None:
    run = load("api", "--target", lab.url, "--users", "2", "--duration", "2", "--yes", "--format", "json", env=lab.credentials)
    assert run.status == 0, run.stderr
    counts = {s["name"]: s["count"] for s in run.json()["steps"]}
    assert counts["hosts_index"] > counts["organizations"] > 0
    unauthorized = load("api", "--target", lab.url, "--users", "1", "--duration", "1", "--yes", "--format", "json",
                        env={**lab.credentials, "FORETUNE_LOAD_TOKEN": "wrong"})
    assert unauthorized.status == 2 and unauthorized.stdout == ""  # the pre-flight request: one line, no run
    assert "401 Unauthorized from GET /api/v2/hosts: check FORETUNE_LOAD_USER and FORETUNE_LOAD_TOKEN" in unauthorized.stderr


def test_the_stub_answers_the_api_mix_without_the_serving_path(lab: Lab) -> None:
    """The benchmark's cheap target (bench/load_throughput.py runs the engine with the path kept; the CLI's --target
    keeps only scheme://host:port): every call of the mix answered by Apache from a file, nothing reaching Puma."""
    log = lab.production_log
    before = log.stat().st_size if log.exists() else 0
    for call, _ in plan.api_mix():
        path = call.path.format(page=2, id=7)
        with urllib.request.urlopen(f"{lab.url}/stub{path}", timeout=10) as response:
            assert response.status == 200, path
            body = json.loads(response.read())
        if call.step == "hosts_index":
            assert [row["id"] for row in body["results"]][:3] == [1, 2, 3]  # ids for the host show calls
    assert (log.stat().st_size if log.exists() else 0) == before


def test_rex_pull_connects_every_client_and_fans_out(lab: Lab) -> None:
    run = load("rex-pull", "--target", lab.url, "--mqtt", f"{lab.mqtt[0]}:{lab.mqtt[1]}", "--users", "65",
               "--duration", "2", "--yes", "--format", "json")
    assert run.status == 0, run.stderr
    jsonschema.validate(run.json(), SCHEMA)
    assert run.step("mqtt_connect")["count"] == 65 and run.step("mqtt_connect")["failures"] == {}
    assert run.step("mqtt_subscribe")["count"] == 65
    assert run.step("notification")["count"] >= 65
    assert run.step("job_fetch")["count"] > 0 and run.step("job_fetch")["failures"] == {}
    # each delivered notification has its job fetch (a pull client fetches its job before it takes the next),
    # apart from those still in flight when the run stopped, which the notes give and no failure counts
    doc = run.json()
    delivered = run.step("notification")["count"] - run.step("notification")["failures_total"]
    left = next((n for n in doc["notes"] if "job fetches not yet done" in n), "")
    fetches_left = int(left.split(" and ")[1].split()[0]) if left else 0
    assert run.step("job_fetch")["count"] + fetches_left == delivered, (doc["notes"], delivered)


def test_open_arrivals_start_hosts_at_the_rate(lab: Lab) -> None:
    run = load(*registration_args(lab, "--arrival-rate", "5", "--users", "20", "--duration", "3"), env=lab.credentials)
    assert run.status == 0, run.stderr
    arrivals = run.step("arrival")["count"]
    assert 4 <= arrivals <= 35  # Poisson with mean 15: far outside this is not the rate
    assert run.json()["shape"]["arrival_rate"] == 5


def test_request_cap_and_time_limit_stop_the_run(lab: Lab) -> None:
    capped = load("api", "--target", lab.url, "--users", "2", "--duration", "30", "--max-requests", "50", "--yes",
                  "--format", "json", env=lab.credentials)
    assert capped.json()["stopped_by"] == "request-cap"
    assert 50 <= capped.json()["requests"] <= 50 + 1  # the other user may have one request in flight
    started = time.monotonic()
    limited = load("api", "--target", lab.url, "--users", "2", "--duration", "30", "--time-limit", "2", "--yes",
                   "--format", "json", env=lab.credentials)
    assert limited.json()["stopped_by"] == "time-limit"
    assert time.monotonic() - started < 15


def _requests_since(log: Path, offset: int) -> int:
    """Requests Puma logged after ``offset`` (the pre-flight request is one: wait for the run's own)."""
    if not log.exists():
        return 0
    with log.open("rb") as handle:
        handle.seek(offset)
        return handle.read().count(b"Started ")


def test_ctrl_c_stops_the_users_and_still_writes_the_report(lab: Lab, tmp_path: Path) -> None:
    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, "-m", "foretune", "load", "api", "--target", lab.url, "--users", "2",
                             "--duration", "60", "--yes", "--output", str(out)], env=child_env(lab.credentials),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = lab.production_log
    before = log.stat().st_size if log.exists() else 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _requests_since(log, before) < 5 and proc.poll() is None:
        time.sleep(0.2)  # until the users are sending (Locust's import takes seconds on a busy machine)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True and doc["stopped_by"] == "interrupt"
    assert doc["requests"] > 0 and doc["duration_s"] < 30
    assert "interrupted" in err
    assert proc.returncode == 130  # as --help's exit status says


def test_ctrl_c_again_while_stopping_still_writes_the_report(lab: Lab, tmp_path: Path) -> None:
    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, "-m", "foretune", "load", "api", "--target", lab.url, "--users", "2",
                             "--duration", "60", "--yes", "--output", str(out)], env=child_env(lab.credentials),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = lab.production_log
    before = log.stat().st_size if log.exists() else 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _requests_since(log, before) < 5 and proc.poll() is None:
        time.sleep(0.2)
    time.sleep(0.5)
    deadline = time.monotonic() + 20
    while proc.poll() is None and time.monotonic() < deadline:  # Ctrl-C held down: through the stop and the writing
        proc.send_signal(signal.SIGINT)
        time.sleep(0.005)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True and doc["requests"] > 0


def test_text_and_markdown_show_each_step(lab: Lab) -> None:
    run = load("api", "--target", lab.url, "--users", "1", "--duration", "1", "--yes", "--format", "markdown", env=lab.credentials)
    assert "| step | count | failures | p50 ms | p95 ms | p99 ms | rps |" in run.stdout
    assert "| hosts\\_index |" in run.stdout  # Markdown-escaped: rendered, it reads hosts_index


def test_rex_pull_ctrl_c_exits_130_and_counts_no_leftovers_as_failures(lab: Lab, tmp_path: Path) -> None:
    out = tmp_path / "partial.json"
    proc = subprocess.Popen([sys.executable, "-m", "foretune", "load", "rex-pull", "--target", lab.url, "--mqtt",
                             f"{lab.mqtt[0]}:{lab.mqtt[1]}", "--users", "40", "--duration", "60", "--yes", "--output",
                             str(out)], env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = lab.production_log
    before = log.stat().st_size if log.exists() else 0
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _requests_since(log, before) < 50 and proc.poll() is None:
        time.sleep(0.1)  # until job fetches are under way
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True and doc["stopped_by"] == "interrupt"
    steps = {s["name"]: s for s in doc["steps"]}
    assert steps["notification"]["count"] > 0 and steps["job_fetch"]["count"] > 0
    assert all(s["failures_total"] == 0 for s in doc["steps"]), doc["steps"]
