"""A Satellite 6.2 Capsule (sos 3.x): Passenger serves Puppet there, and the Passenger rules apply to it.

capsule-6.2-passenger, written by hand from the 6.2 brief's Capsule section (5.9) and the upstream modules of that
release: satellite-capsule 6.2.12 with foreman-proxy 1.11 (last_scenario.yaml -> capsule.yaml), 8 vCPUs (lscpu:
4 cores x 2 sockets, one thread each), 15.5 GiB; puppetlabs-apache's passenger.conf with no tuning directive and
puppet-puppet 4.x's 25-puppet.conf vhost (no Passenger lines: passenger_min_instances and passenger_pre_start came
in puppet-puppet 5.0.0), its logs in puppet_access_ssl.log; httpd.conf's puppetlabs-apache defaults (KeepAlive Off,
MaxKeepAliveRequests 100, KeepAliveTimeout 15); httpd at systemd's 1024 open files; qpidd and qdrouterd already at
the brief's 1000000. At 09:00 every Puppet agent ran at once: puppet_access_ssl.log has 14 then 11 HTTP 503s, and
the httpd error_log has Passenger 4.0.18's own "Request queue is full. Returning an error" 15 times
(ext/common/ApplicationPool2/Group.h:331, written as its _prepareLogEntry does: "[ 2017-11-09 09:00:02.1203
2518/7f3c0b7fe700 Pool2/Group.h:331 ]: ...").

Expected, from the brief (hand-read): "PassengerMaxPoolSize ... 1.5 * Physical CPU Cores" = 12 for 8 cores; the
Capsule example's "PassengerMaxRequestQueueSize 200", "PassengerMinInstances 2" and "PassengerMaxPreloaderIdleTime 0"
in 25-puppet.conf; "KeepAlive On / MaxKeepAliveRequests 0 / KeepAliveTimeout 5"; httpd LimitNOFILE=1000000 (5.3).
The queue that filled is measured failure: critical, the 503s listed under it as a symptom.
capsule-6.2-passenger-tuned is the same Capsule at those values with no 503: the negative control.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
QUEUE_FULL = "[ 2017-11-09 09:00:02.1203 2518/7f3c0b7fe700 Pool2/Group.h:331 ]: Request queue is full. Returning an error"
EXPECTED = {  # rule -> (severity, recommended)
    "passenger-queue-too-small": ("critical", 200),
    "passenger-pool-below-cores": ("medium", 12),
    "httpd-nofile-low": ("medium", 1000000),
    "passenger-min-instances-low": ("low", 2),
    "passenger-preloader-idle": ("low", 0),
    "apache-keepalive-off": ("low", "On"),
    "apache-keepalive-timeout": ("low", 5),
    "apache-max-keepalive-requests": ("low", 0),
}


def audit(name: str, *extra: str) -> dict[str, Any]:
    result = run_cli("audit", str(SOS / name), *extra, "--format", "json", "--fail-on", "critical")
    assert result.status in (0, 1), result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("extra", [(), ("--hosts", "600")], ids=["no-context", "600-hosts"])
def test_the_passenger_capsule_gets_the_expected_findings(extra: tuple[str, ...]) -> None:
    data = audit("capsule-6.2-passenger", *extra)
    assert (data["release"], data["role"]) == ("Satellite 6.2 (Foreman 1.11)", "capsule")
    found = {f["rule"]: f for f in data["findings"]}
    failing = {r: (f["severity"], f["recommended"]) for r, f in found.items() if f["status"] == "fail"}
    assert failing == EXPECTED
    queue = found["passenger-queue-too-small"]
    assert queue["basis"] == "measured" and "a Puppet burst beyond the queue gets HTTP 503" in queue["message"]
    # the 503s and Passenger's own line are the symptom of the queue, one finding
    assert [s["rule"] for s in queue["symptoms"]] == ["http-503-burst"]
    burst = queue["symptoms"][0]
    assert QUEUE_FULL in burst["message"] and "clients got HTTP 503 25 times" in burst["message"]
    assert {"fact": "log_incidents", "location": "var/log/httpd/error_log", "excerpt": QUEUE_FULL} in burst["evidence"]
    assert any(e["location"] == "var/log/httpd/puppet_access_ssl.log" for e in queue["evidence"])
    # the Puppet application's directives go in its vhost
    # (the installer's apache module writes the vhost: edited after its run, then httpd restarted to read it)
    assert [fix["text"] for fix in found["passenger-min-instances-low"]["fixes"]] == [
        "# /etc/httpd/conf.d/25-puppet.conf\n# edit this after the installer run: the run rewrites this file\n"
        "PassengerMinInstances 2", "systemctl restart httpd"]
    assert [(fix["kind"], fix["file"], fix["content"], fix["command"]) for fix in found["passenger-min-instances-low"]["fixes"]] == [
        ("file", "/etc/httpd/conf.d/25-puppet.conf", "PassengerMinInstances 2", None),
        ("command", None, None, "systemctl restart httpd")]
    assert "spawns Puppet processes" in found["passenger-min-instances-low"]["message"]
    assert [fix["text"] for fix in found["passenger-pool-below-cores"]["fixes"]] == [
        "# /etc/httpd/conf.d/passenger.conf\n# edit this after the installer run: the run rewrites this file\n"
        "PassengerMaxPoolSize 12", "systemctl restart httpd"]
    # MUST NOT: a Passenger rule "not applicable to a capsule"; advice the 6.2 brief does not give (the Foreman guide's
    # proxy timeout, foreman-proxy's limit for a remote execution service 6.2 runs elsewhere); the 503s twice
    for rule, f in found.items():
        if rule.startswith("passenger-"):
            assert "not applicable" not in f["message"], (rule, f["message"])
    assert found["capsule-proxy-timeout"]["status"] == "skip"
    assert found["proxy-dynflow-nofile-low"]["status"] == "skip"
    assert "http-503-burst" not in found


def test_the_passenger_capsule_text_report_puts_the_503s_under_the_queue() -> None:
    text = run_cli("audit", str(SOS / "capsule-6.2-passenger"), "--fail-on", "critical").stdout
    assert text.index("passenger-queue-too-small (passenger):") < text.index("symptom: http-503-burst (critical)")


def _puppet_log(n: int, every: int) -> str:
    """``n`` Puppet catalog requests three seconds apart from 10:18, every ``every``-th answered 503 (0: none)."""
    lines = []
    for k in range(n):
        t = 18 * 60 + 3 * k
        status, size = ("503", "299") if every and k % every == 0 else ("200", "48213")
        lines.append(f'10.20.1.{10 + k % 200} - - [14/Mar/2017:10:{t // 60:02d}:{t % 60:02d} -0400] "GET /production/catalog/'
                     f'host{k:04d}.example.com?facts_format=pson HTTP/1.1" {status} {size} "-" "Ruby"')
    return "\n".join(lines) + "\n"


def _copy(tmp_path: Path, name: str, access: str) -> Path:
    """The fixture ``name`` with its Puppet vhost's access log replaced and no Passenger "Request queue is full" line."""
    root = tmp_path / name
    shutil.copytree(SOS / name, root)
    (root / "var/log/httpd/puppet_access_ssl.log").write_text(access, encoding="utf-8")
    error_log = root / "var/log/httpd/error_log"
    if error_log.exists():
        error_log.write_text("".join(line for line in error_log.read_text(encoding="utf-8").splitlines(keepends=True)
                                     if "Request queue is full" not in line), encoding="utf-8")
    return root


def test_puppet_503s_below_the_burst_rate_are_measured_failure_of_the_queue(tmp_path: Path) -> None:
    # built like a 6.2 Capsule's puppet_access_ssl.log: 120 catalog requests 10:18-10:23:57, every third answered 503
    # (40, at most 4 a minute: below the burst rate of 10 a minute), no "Request queue is full" in the error_log.
    # 40 503s >= logs_503_share_min_count (10) and 40/120 >= logs_503_share_min_fraction (5 %) within an hour
    root = _copy(tmp_path, "capsule-6.2-passenger", _puppet_log(120, 3))
    first = ('10.20.1.10 - - [14/Mar/2017:10:18:00 -0400] "GET /production/catalog/host0000.example.com?facts_format=pson '
             'HTTP/1.1" 503 299 "-" "Ruby"')
    data = json.loads(run_cli("audit", str(root), "--format", "json", "--fail-on", "critical").stdout)
    found = {f["rule"]: f for f in data["findings"]}
    queue = found["passenger-queue-too-small"]
    assert (queue["status"], queue["severity"], queue["basis"]) == ("fail", "critical", "measured")
    assert "assumed" not in queue["message"] and first in queue["message"]
    assert {"fact": "log_incidents", "location": "var/log/httpd/puppet_access_ssl.log", "excerpt": first} in queue["evidence"]
    assert [s["rule"] for s in queue["symptoms"]] == ["http-503-burst"]
    assert "clients got HTTP 503 on 40 of 120 requests (33%)" in queue["symptoms"][0]["message"]
    assert "2017-03-14T10:18:00 .. 2017-03-14T10:23:51" in queue["symptoms"][0]["message"]


@pytest.mark.parametrize("every", [0, 40], ids=["no-503", "a-handful-of-503s"])
def test_a_tuned_capsule_with_a_handful_of_puppet_503s_has_no_medium_finding(tmp_path: Path, every: int) -> None:
    # the negative control: 3 503s (every 40th of 120) stay below logs_503_share_min_count (10)
    root = _copy(tmp_path, "capsule-6.2-passenger-tuned", _puppet_log(120, every))
    data = json.loads(run_cli("audit", str(root), "--format", "json", "--fail-on", "critical").stdout)
    worst = [(f["rule"], f["severity"]) for f in data["findings"] if f["status"] == "fail"
             and f["severity"] in ("medium", "high", "critical")]
    assert worst == []
    assert next(f for f in data["findings"] if f["rule"] == "http-503-burst")["status"] == "pass"
