"""Apache access logs of the Puppet-era Capsules: host names folded, Puppet agents counted as Puppet."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO, run_cli


def test_a_6_2_capsule_s_puppet_routes_fold_the_host_and_count_as_puppet() -> None:
    """capsule-6.2-passenger's puppet_access_ssl.log: Puppet 3.8 agents call /production/node/<certname> with the
    User-Agent "Ruby". The certname is folded like an id (one endpoint, not one per host) and the client is Puppet."""
    source = REPO / "tests" / "fixtures" / "sosreports" / "capsule-6.2-passenger"
    data = json.loads(run_cli("logs", str(source), "--format", "json").stdout)
    access = next(a for a in data["apache_access"] if a["log"] == "puppet_access_ssl.log")
    assert [e[0] for e in access["top_endpoints"]][:1] == ["GET /production/node/:host"]
    assert not any("host0" in str(e[0]) for e in access["top_endpoints"])
    assert {k: n for k, n, *_ in access["client_kinds"]} == {"puppet": 40}


def test_compare_of_two_different_hosts_says_so_in_one_line() -> None:
    sos = REPO / "tests" / "fixtures" / "sosreports"
    result = run_cli("logs", "--compare", str(sos / "satellite-6.15-overcommitted"), str(sos / "satellite-6.15"))
    assert result.status == 0
    warned = [line for line in result.stderr.splitlines() if "two different hosts" in line]
    assert warned == ["foretune: warning: --compare: before is sat615b.example.com, after is "
                      f"{json.loads(run_cli('logs', str(sos / 'satellite-6.15'), '--format', 'json').stdout)['host']}: "
                      "two different hosts, so the changes below are between servers, not a before/after of one"]
    same = run_cli("logs", "--compare", str(sos / "satellite-6.15"), str(sos / "satellite-6.15"))
    assert "two different hosts" not in same.stderr
    # both hosts in the header; the overcommitted box's production.log, PostgreSQL log and messages have no
    # counterpart in the other sosreport (its task export only): only the task counts are compared (paused 2 and 2,
    # stopped with error 0 and 0), and the verdict says which figures were not
    lines = result.stdout.splitlines()
    assert lines[1] == f"  host: sat615b.example.com (before), {json.loads(run_cli('logs', str(sos / 'satellite-6.15'), '--format', 'json').stdout)['host']} (after)"
    verdict = lines[lines.index("VERDICT") + 2:lines.index("CHANGES") - 1]
    assert verdict[:2] == ["  no figure changed beyond noise: the change made no difference these logs can show",
                           "  not compared (8 figures): a log of its kind on one side only (production, postgresql, system)"]


def test_apache_at_max_request_workers_is_not_pointed_at_rules_that_pass() -> None:
    """AH00484 (httpd reached MaxRequestWorkers) in an error_log: the audit's rules read the limits, not this line, and
    pass when ServerLimit x ThreadsPerChild holds MaxRequestWorkers: the verdict names the setting to raise instead
    of sending the admin to rules that report nothing."""
    from foretune.report.logs_text import verdict

    report = {"incidents": [{"kind": "queue_at_capacity", "service": "httpd", "count": 25}], "production": [],
              "not_found": [], "release": "Satellite 6.15 (Foreman 3.9)", "source": "sat615-mrw", "source_kind": "sosreport"}
    line = verdict(report)[0]
    assert line.startswith("critical: Apache at MaxRequestWorkers (httpd: 25): httpd refused work at its MaxRequestWorkers → "
                           "raise MaxRequestWorkers with ServerLimit")
    assert "(rules " not in line


def test_a_task_export_with_only_its_header_says_it_holds_no_tasks(tmp_path: Path) -> None:
    (tmp_path / "sos_commands" / "foreman").mkdir(parents=True)
    header = (REPO / "examples" / "sosreport-satellite-6.15-mistuned" / "sos_commands" / "foreman" /
              "foreman_tasks_tasks").read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "sos_commands" / "foreman" / "foreman_tasks_tasks").write_text(header + "\n", encoding="utf-8")
    (tmp_path / "hostname").write_text("sat\n", encoding="utf-8")
    out = run_cli("logs", str(tmp_path)).stdout
    assert "  1 line, no tasks in the export\n" in out and "? .. ?" not in out


def test_the_enc_s_node_route_folds_the_host_in_the_endpoint_table(tmp_path: Path) -> None:
    """Foreman's ENC script asks GET /node/<certname>?format=yml: one endpoint whatever the host, in the text table
    as in the JSON, beside Puppet's own /production/node/<certname> (a 6.2 Capsule's)."""
    log = tmp_path / "foreman-ssl_access_ssl.log"
    log.write_text("".join(
        f'192.0.2.1 - - [20/Mar/2024:13:4{i}:00 +0000] "GET /node/host{i}.example.com?format=yml HTTP/1.1" 200 912 "-" "Ruby"\n'
        for i in range(3)) + '192.0.2.9 - - [20/Mar/2024:13:45:00 +0000] "GET /production/node/cap.example.com HTTP/1.1" 200 '
        '10 "-" "Ruby"\n', encoding="utf-8")
    data = json.loads(run_cli("logs", str(log), "--format", "json").stdout)
    assert [e[:2] for e in data["apache_access"][0]["top_endpoints"]] == [["GET /node/:host", 3],
                                                                        ["GET /production/node/:host", 1]]
    text = run_cli("logs", str(log), environ={"COLUMNS": "80"}).stdout
    assert "    GET /node/:host                    3\n" in text and "host0" not in text
