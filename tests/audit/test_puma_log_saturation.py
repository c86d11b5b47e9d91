"""Puma saturation measured in production.log reaches the audit, counted against the Puma threads in force.

satellite-6.15 (sos 4.x) configures 24 workers in foreman.service.d/installer.conf and 16 threads in override.conf
(24 x 16 = 384), but ``systemctl show foreman.service`` runs it with FOREMAN_PUMA_WORKERS=24 and
FOREMAN_PUMA_THREADS_MAX=5: 120 threads are in force. Here its pumactl stats are removed and a production.log is
written by hand with ``at_once`` requests open together at 10:00. Expected: 130 at once is Puma at capacity (120),
the audit's puma-pool-saturated quotes the log line and ``logs`` points to that rule; 100 at once is no incident,
even with a drop-in whose threads (24 x 1) were never loaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
FIRST = "2024-02-12T10:00:30 [I|app|r0000000] Completed 200 OK in 30000ms (Views: 1.0ms | ActiveRecord: 2.0ms)"


def sosreport(tmp_path: Path, at_once: int, threads_in_drop_in: int) -> Path:
    sos = tmp_path / "sosreport-puma"
    shutil.copytree(SOS / "satellite-6.15", sos)
    (sos / "sos_commands" / "foreman" / "pumactl_stats").unlink()
    (sos / "etc/systemd/system/foreman.service.d/override.conf").write_text(
        f"[Service]\nEnvironment=FOREMAN_PUMA_THREADS_MIN={threads_in_drop_in}\n"
        f"Environment=FOREMAN_PUMA_THREADS_MAX={threads_in_drop_in}\n", encoding="utf-8")
    logs = sos / "var" / "log" / "foreman"
    logs.mkdir(parents=True, exist_ok=True)
    lines = [f"2024-02-12T10:00:00 [I|app|r{i:07d}] Processing by HostsController#index as JSON" for i in range(at_once)]
    lines += [f"2024-02-12T10:00:30 [I|app|r{i:07d}] Completed 200 OK in 30000ms (Views: 1.0ms | ActiveRecord: 2.0ms)"
              for i in range(at_once)]
    (logs / "production.log").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return sos


def test_requests_at_the_threads_in_force_are_a_finding_quoting_the_log(tmp_path: Path) -> None:
    sos = sosreport(tmp_path, 130, 16)  # 130 open at once: above the 120 threads in force, below the 384 configured
    result = run_cli("audit", str(sos), "--format", "json")
    findings = json.loads(result.stdout)["findings"]
    everything = findings + [s for f in findings for s in f["symptoms"]]
    saturated = next(f for f in everything if f["rule"] == "puma-pool-saturated")
    assert (saturated["status"], saturated["severity"], saturated["basis"]) == ("fail", "high", "measured")
    assert "as many requests open at once as the 120 Puma threads in force (systemctl show foreman.service: 24 workers x 5 threads)" \
        in saturated["message"]
    assert FIRST in saturated["message"]
    assert {"location": "var/log/foreman/production.log", "excerpt": FIRST} in \
        [{"location": e["location"], "excerpt": e["excerpt"]} for e in saturated["evidence"]]
    # `logs` counts against the same capacity and names the rule that shows it
    result = run_cli("logs", str(sos))
    assert result.status == 0, result.stderr
    assert "high: Puma at capacity (puma: 1) → run `foretune audit" in result.stdout
    assert "(rules puma-pool-saturated)" in result.stdout and "apache-workers-over-limit" not in result.stdout
    data = json.loads(run_cli("logs", str(sos), "--format", "json").stdout)
    assert data["capacity"]["puma"] == 120
    assert data["capacity"]["from"] == "systemctl show foreman.service (workers x threads_max)"


@pytest.mark.parametrize("threads_in_drop_in", [16, 1], ids=["drop-in-above", "drop-in-below-never-loaded"])
def test_requests_below_the_threads_in_force_are_no_incident(tmp_path: Path, threads_in_drop_in: int) -> None:
    # 100 open at once: below the 120 threads in force, above the 24 x 1 of a drop-in systemd never loaded
    sos = sosreport(tmp_path, 100, threads_in_drop_in)
    result = run_cli("facts", str(sos), "--only", "log_incidents", "--format", "json")
    assert result.status == 0, result.stderr
    assert "queue_at_capacity" not in result.stdout
    findings = json.loads(run_cli("audit", str(sos), "--format", "json").stdout)["findings"]
    everything = findings + [s for f in findings for s in f["symptoms"]]
    assert not [f for f in everything if f["rule"] == "puma-pool-saturated" and f["status"] == "fail"]
