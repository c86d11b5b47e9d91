"""A Capsule's logs: no production.log, but mosquitto's broker log and the Smart Proxy's; the broker log is analysed
(tests/logs/capsule/mosquitto.log, written by hand in the message formats of mosquitto 2.0's src/handle_connect.c,
src/loop.c and src/net.c)."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema

from tests.conftest import REPO, run_cli

SCHEMA = json.loads(resources.files("foretune.logs").joinpath("schema/logs-v1.json").read_text(encoding="utf-8"))

CAPSULE_LOGS = REPO / "tests" / "logs" / "capsule"
SOSREPORTS = REPO / "tests" / "fixtures" / "sosreports"


def _capsule(root: Path, *, role: bool = True) -> Path:
    """A pull-REX Capsule's sosreport (capsule-6.15-pull-rex: LimitNOFILE 65536 for mosquitto) with the broker's and
    the Smart Proxy's logs; without ``role``, a bare sosreport that names no role or package."""
    if role:
        shutil.copytree(SOSREPORTS / "capsule-6.15-pull-rex", root)
    else:
        (root / "sos_commands" / "foreman").mkdir(parents=True)
        (root / "hostname").write_text("capsule02.example.com\n", encoding="utf-8")
    for name, where in (("mosquitto.log", "var/log/mosquitto"), ("proxy.log", "var/log/foreman-proxy")):
        (root / where).mkdir(parents=True, exist_ok=True)
        shutil.copy(CAPSULE_LOGS / name, root / where / name)
    return root


def test_mosquitto_s_log_is_analysed_clients_disconnects_and_refusals() -> None:
    """The log: host1..host4 connect (host2 twice, after its keepalive timeout), host3's connection is lost, host4
    says goodbye, and three connections are refused for want of descriptors; four connections fall in 13:40."""
    data = json.loads(run_cli("logs", str(CAPSULE_LOGS / "mosquitto.log"), "--format", "json").stdout)
    jsonschema.validate(data, SCHEMA)
    broker = data["system"][0]
    assert broker["mqtt"] == {"connections": 5, "clients": 4, "clients_capped": False,
                              "disconnects": {"keepalive timeout": 1, "connection lost": 1, "disconnected by the client": 1},
                              "refused": 3, "peak_connections_per_minute": 4}
    assert [(i["kind"], i["service"], i["count"]) for i in data["incidents"]] == [("socket_exhaustion", "mosquitto", 3)]
    # no limit in the source: twice systemd's default 1024, the limit mosquitto ran out at
    assert [(f["service"], f["value"]) for f in data["fixes"]] == [("mosquitto", 2048)]
    assert data["fixes"][0]["fix"] == "# /etc/systemd/system/mosquitto.service.d/limits.conf\n[Service]\nLimitNOFILE=2048"


def test_a_capsule_sosreport_is_reported_with_a_critical_verdict_and_the_limitnofile_fix(tmp_path: Path) -> None:
    source = _capsule(tmp_path / "sosreport-capsule01")
    result = run_cli("logs", str(source), environ={"COLUMNS": "400"})
    assert result.status == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2] == "  product: Satellite 6.15 (Foreman 3.9), capsule"
    verdict = lines[lines.index("VERDICT") + 2:lines.index("INCIDENTS") - 1]
    # the sosreport's mosquitto.service has LimitNOFILE=65536 and its log saw 4 clients: twice the limit it ran out at
    assert verdict == [
        "  critical: mosquitto refused connections, no descriptor left (mosquitto: 3) → raise its LimitNOFILE to 131,072 "
        f"(Fixes); `foretune audit {source}` (rules open-files-exhausted, mosquitto-nofile-low) sizes it for the "
        "pull-REX host count",
        "  not in this source, so not judged: Apache access log, Apache error log, PostgreSQL log",
        "  there but not analysed: Smart Proxy log (var/log/foreman-proxy/proxy.log)"]
    fixes = result.stdout[result.stdout.index("\nFIXES\n"):result.stdout.index("\nMQTT BROKER LOG: MOSQUITTO.LOG\n")]
    assert "      # /etc/systemd/system/mosquitto.service.d/limits.conf\n      [Service]\n      LimitNOFILE=131072\n\n" \
           "      systemctl daemon-reload && systemctl restart mosquitto\n" in fixes
    assert "  MQTT clients (one a pull-REX host): 5 connections from 4 clients, at most 4 in one minute; disconnects: " \
           "keepalive timeout 1, connection lost 1, disconnected by the client 1\n" in result.stdout
    assert lines[lines.index("WHAT NEXT") + 2].startswith("  1. Raise mosquitto's LimitNOFILE to 131,072: paste the drop-in")
    assert "is it a" not in result.stdout + result.stderr
    # the audit of the same sosreport asks for the same limit
    audit = json.loads(run_cli("audit", str(source), "--format", "json").stdout)
    assert {f["rule"]: f.get("recommended") for f in audit["findings"]}["open-files-exhausted"] == 131072


def test_a_capsule_is_told_by_its_logs_when_the_sosreport_names_no_role(tmp_path: Path) -> None:
    source = _capsule(tmp_path / "sosreport-capsule02", role=False)
    result = run_cli("logs", str(source), "--format", "json")
    assert result.status == 0, result.stderr
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    assert (data["role"], data["not_analysed"]) == ("capsule", ["Smart Proxy log (var/log/foreman-proxy/proxy.log)"])
    assert "production" not in data["not_found"] and "candlepin" not in data["not_found"]
    # systemd's 1024 when the source does not say what mosquitto ran with: twice it
    assert data["fixes"][0]["value"] == 2048
    # the header names what is known: a Capsule, its version unknown (not "product unknown, capsule")
    assert "product" not in data and run_cli("logs", str(source)).stdout.splitlines()[2] == "  product: Capsule (version unknown)"
    # a package list naming a Capsule release foretune has no tables for: that release, as the packages name it
    (source / "installed-rpms").write_text("satellite-capsule-6.19.0-1.el9sat.noarch                    "
                                           "Wed Mar 20 14:40:02 2024\n", encoding="utf-8")
    data = json.loads(run_cli("logs", str(source), "--format", "json").stdout)
    jsonschema.validate(data, SCHEMA)
    assert (data["release"], data["product"], data["role"]) == (None, "Satellite 6.19.0", "capsule")
    markdown = run_cli("logs", str(source), "--format", "markdown").stdout
    assert "\nproduct: Satellite 6.19.0, capsule\n" in markdown
    (source / "installed-rpms").unlink()
    (source / "var" / "log" / "mosquitto" / "mosquitto.log").unlink()  # the Smart Proxy's log alone: nothing read
    result = run_cli("logs", str(source))
    assert result.status == 2 and len(result.stderr.splitlines()) == 1
    assert result.stderr.strip() == (f"foretune: error: {source}: a Capsule, with no Apache, system or mosquitto log; its "
                                     "Smart Proxy log (var/log/foreman-proxy/proxy.log) is there, which foretune does "
                                     "not analyse")
    tuned = run_cli("logs", str(SOSREPORTS / "capsule-6.15-pull-rex-tuned"))  # a Capsule by its role, with no log
    assert tuned.status == 2 and tuned.stderr.strip().endswith(": a Capsule, with no Apache, system or mosquitto log")


def test_the_measured_failure_capsule_s_system_logs_are_reported_not_refused() -> None:
    """capsule-6.15-measured-failure holds only messages and dmesg: a Capsule writes no production.log, so its system
    logs are its report (a pulpcore OOM kill and mosquitto's refusals), not a refusal asking whether it is a Capsule."""
    source = SOSREPORTS / "capsule-6.15-measured-failure"
    result = run_cli("logs", str(source), environ={"COLUMNS": "400"})
    assert result.status == 0, result.stderr
    lines = result.stdout.splitlines()
    verdict = lines[lines.index("VERDICT") + 2:lines.index("INCIDENTS") - 1]
    assert verdict[0] == (f"  critical: OOM kills (pulpcore: 1) → run `foretune audit {source}` (rules oom-kills, "
                          "memory-budget-over-ram)")
    assert verdict[1].startswith("  critical: mosquitto refused connections, no descriptor left (mosquitto: 3) → "
                                 "raise its LimitNOFILE to 131,072 (Fixes)")


def test_a_task_export_beside_the_smart_proxy_log_is_a_server_s(tmp_path: Path) -> None:
    """Only a server writes task exports: a role-less sosreport with one and a Smart Proxy log (every Satellite runs a
    Smart Proxy too) is not taken for a Capsule."""
    source = _capsule(tmp_path / "sosreport-sat", role=False)
    (source / "var" / "log" / "mosquitto" / "mosquitto.log").unlink()
    shutil.copy(REPO / "examples" / "sosreport-satellite-6.15-mistuned" / "sos_commands" / "foreman" / "foreman_tasks_tasks",
                source / "sos_commands" / "foreman" / "foreman_tasks_tasks")
    data = json.loads(run_cli("logs", str(source), "--format", "json").stdout)
    assert data.get("role") != "capsule" and "not_analysed" not in data and "production" in data["not_found"]


def test_a_capsule_s_reverse_proxy_503s_point_at_what_applies_on_a_capsule(tmp_path: Path) -> None:
    """60 registrations answered 503 in one minute by the Capsule's reverse proxy (written by hand, Apache's combined
    format): a Capsule runs no Puma and its audit skips the server's Puma and Apache-limit rules as not applicable, so
    the pointer names the Satellite server the proxy forwards /rhsm to and the Capsule's own httpd limits instead."""
    source = _capsule(tmp_path / "sosreport-capsule01")
    log = source / "var/log/httpd/katello-reverse-proxy_access_ssl.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(f'10.7.0.{n} - - [11/Feb/2024:23:30:{n:02d} +0000] "POST /rhsm/consumers?owner=Acme HTTP/1.1" '
                           '503 299 "-" "RHSM/1.0"\n' for n in range(60)), encoding="utf-8")
    result = run_cli("logs", str(source), environ={"COLUMNS": "2000"})
    assert result.status == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if "503 bursts" in x)
    assert line.startswith("  critical: 503 bursts (httpd: 60) → look at the Satellite server this Capsule's reverse proxy")
    assert "audit the server's sosreport" in line and "MaxRequestWorkers with ServerLimit" in line
    assert "httpd-nofile-low" in line
    assert "run `foretune audit" not in line  # this Capsule's audit skips the rules a server's pointer names
