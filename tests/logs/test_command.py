"""`foretune logs` end to end: every format validates against the schema, compare, sosreports, bad input."""

from __future__ import annotations

import io
import json
import re
import shutil
import tarfile
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from foretune import __version__
from foretune.cli import main
from foretune.env import Environment

FIX = Path(__file__).parent / "fixtures"
SOS = Path(__file__).parents[1] / "fixtures" / "sosreports"
SCHEMA = json.loads(resources.files("foretune.logs").joinpath("schema/logs-v1.json").read_text(encoding="utf-8"))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Environment(stdout=out, stderr=err, environ={}))
    return code, out.getvalue(), err.getvalue()


def all_fixtures() -> list[str]:
    return [str(p) for p in sorted(FIX.iterdir())]


def test_json_of_every_fixture_validates() -> None:
    code, out, err = run("logs", *all_fixtures(), "--format", "json", "--puma-capacity", "2")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    # rails6: the garbage line and the binary junk; the access log's free text line; the tasks export's broken row
    assert data["not_understood"] == 2 + 1 + 1
    assert len(data["files"]) == len(all_fixtures())


def test_text_markdown_and_html() -> None:
    code, text, _ = run("logs", *all_fixtures(), "--puma-capacity", "2")
    assert code == 0 and "lines not understood" in text and "CONNECTION" not in text
    assert "http_503_burst" in text and "postgresql::server::config_entries:" in text
    code, md, _ = run("logs", *all_fixtures(), "--format", "markdown")
    assert code == 0 and "| kind | service | count |" in md and md.startswith("# foretune logs")
    code, html, _ = run("logs", *all_fixtures(), "--format", "html")
    assert code == 0 and html.count("<svg") >= 4 and "<script" not in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")


def test_compare_two_windows_flags_noise() -> None:
    code, out, err = run("logs", str(FIX / "postgresql-Mon.log"), "--compare", "--window", "2024-01-15 10:00..2024-01-15 10:31",
                         "--window", "2024-01-15 10:31..2024-01-15 11:00", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    metrics = {m["metric"]: m for m in data["metrics"]}
    # before: the three slow statements (10:30); after: the three refused connections (10:31, 10:33)
    assert metrics["postgresql: slow statements"]["before"] == 3 and metrics["postgresql: slow statements"]["after"] == 0
    assert metrics["postgresql: refused connections"]["change"] == 3
    assert metrics["postgresql: slow statement p95 (ms)"]["noise"] is True


def test_compare_two_sources_text() -> None:
    code, out, err = run("logs", "--compare", str(FIX / "production-rails6.log"), str(FIX / "production-rails7.log"))
    assert code == 0, err
    assert "production: requests" in out and "noise: only 2 requests on one side" in out


def test_registration_flows_in_text_and_compare() -> None:
    code, text, _ = run("logs", str(FIX / "production-registration.log"))
    assert code == 0
    # 5 creates: A, B (capsule), C followed to their UUIDs, D failed (500), E nothing after it
    assert "registration flows: 3 of 5 consumer creates followed within 300 s (2 to the fact update); 1 failed, 1 without" in text
    assert "whole flow" in text and "PUT /rhsm/consumers/:id (facts)" in text
    code, out, err = run("logs", "--compare", str(FIX / "production-registration.log"), str(FIX / "production-rails6.log"),
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    metrics = {m["metric"]: m for m in data["metrics"]}
    assert (metrics["registration: flows"]["before"], metrics["registration: flows"]["after"]) == (3, 0)
    # flow durations 36,500 / 39,500 / 41,400 ms before, none after; 3 flows are far below the 100 a comparison needs
    assert metrics["registration: flow p95 (ms)"]["before"] == 41400.0 and metrics["registration: flow p95 (ms)"]["after"] is None
    assert metrics["registration: flow p50 (ms)"]["note"] == "noise: only 0 flows on one side"
    # logs without any registration on either side get no flow rows
    code, out, _ = run("logs", "--compare", str(FIX / "production-rails7.log"), str(FIX / "production-legacy.log"), "--format", "json")
    assert code == 0 and not [m for m in json.loads(out)["metrics"] if m["metric"].startswith("registration:")]


def test_sosreport_tarball_logs_in_one_pass_and_as_fact(tmp_path: Path) -> None:
    archive = tmp_path / "sosreport-sat.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(SOS / "satellite-6.15", arcname="sosreport-sat")
        tar.add(FIX / "foreman-ssl_access_ssl.log", arcname="sosreport-sat/var/log/httpd/foreman-ssl_access_ssl.log")
        tar.add(FIX / "messages", arcname="sosreport-sat/var/log/messages")
    code, out, err = run("logs", str(archive), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["apache_access"][0]["requests"] == 30 and data["system"][0]["oom_kills"] == {"ruby": 2, "java": 1}
    assert data["tasks"][0]["log"] == "foreman_tasks_tasks"
    code, out, err = run("facts", str(archive), "--format", "json", "--only", "log_incidents")
    assert code == 0, err
    kinds = sorted((i["kind"], i["service"]) for i in json.loads(out)["facts"]["log_incidents"]["value"])
    assert kinds == [("http_503_burst", "httpd"), ("oom_kill", "java"), ("oom_kill", "ruby"),
                     ("socket_exhaustion", "mosquitto"), ("socket_exhaustion", "qdrouterd")]


@pytest.mark.parametrize(("argv", "message"), [
    (["logs", "/nonexistent/production.log"], "no such file or directory"),
    (["logs", "--since", "yesterday", "x"], "--since: not a date"),
    (["logs", "--compare", "a"], "--compare needs two SOURCEs"),
    (["logs", "--window", "2024-01-01..", "x"], "--window is for --compare"),
    # a range that ends before it starts selects nothing: said at once, not as an empty report
    (["logs", str(FIX / "messages"), "--since", "2017-03-28", "--until", "2017-03-27"],
     "--since/--until: 2017-03-28 is not before 2017-03-27"),
    (["logs", str(FIX / "messages"), "--compare", "--window", "2024-01-15 11:00..2024-01-15 10:00", "--window", ".."],
     "--window: 2024-01-15 11:00 is not before 2024-01-15 10:00"),
])
def test_bad_input_is_one_line(argv: list[str], message: str) -> None:
    code, _out, err = run(*argv)
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_binary_junk_file_is_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 10)
    code, _, err = run("logs", str(junk))
    assert code == 2 and "no log foretune reads" in err


def test_live_facts_read_the_last_week_of_the_standard_paths(tmp_path: Path) -> None:
    import os
    import time

    from foretune.facts.extract import extract
    from foretune.host.sources.live import LiveHost

    httpd = tmp_path / "var/log/httpd"
    httpd.mkdir(parents=True)
    stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(time.time() - 3600))  # in UTC: no daylight-saving edge
    lines = [f'10.0.0.{i} - - [{stamp}] "POST /rhsm/consumers HTTP/1.1" 503 299 "-" "subscription-manager/1.28"' for i in range(12)]
    (httpd / "foreman-ssl_access_ssl.log").write_text("\n".join(lines) + "\n")
    old = tmp_path / "var/log/messages-20240101"
    old.write_bytes((FIX / "messages").read_bytes())
    week_ago = time.time() - 8 * 86400
    os.utime(old, (week_ago, week_ago))
    facts = extract(LiveHost({}, root=str(tmp_path)))
    incidents = facts.value("log_incidents")
    # twelve 503s within one minute an hour ago form a burst; the OOM kills are in a file older than a week
    assert [(i["kind"], i["count"]) for i in incidents] == [("http_503_burst", 12)]
    assert incidents[0]["path"] == "var/log/httpd/foreman-ssl_access_ssl.log"


def test_progress_bar_with_eta_on_a_terminal_only() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = io.StringIO(), Terminal()
    code = main(["logs", *all_fixtures(), "--format", "json"], Environment(stdout=out, stderr=err, environ={"TERM": "xterm"}))
    assert code == 0 and "reading logs" in err.getvalue() and "ETA" in err.getvalue() and "100%" in err.getvalue()
    assert "\r" not in out.getvalue()
    _, _, plain = run("logs", *all_fixtures(), "--format", "json")
    assert "ETA" not in plain


def test_a_snapshot_points_to_its_fact(tmp_path: Path) -> None:
    snapshot = tmp_path / "sat01.json"
    snapshot.write_text('{"format": "foretune-snapshot", "format_version": 1, "raw": {}}')
    code, _, err = run("logs", str(snapshot))
    assert code == 2 and "this snapshot carries no logs" in err and "--only log_incidents" in err
    snapshot.write_text("{}")
    code, _, err = run("logs", str(snapshot))
    assert code == 2 and "is not a foretune snapshot" in err and err.count("\n") == 1


def test_counts_of_one_read_as_one(tmp_path: Path) -> None:
    # production-journald.log: one request (200, 6000 ms), never two at once
    code, out, _ = run("logs", str(FIX / "production-journald.log"))
    assert code == 0 and "  1 request (2xx 1); p50 6,000 ms" in out and "concurrency: peak 1 request at once" in out
    # postgresql-custom-prefix.log: one FATAL "remaining connection slots" at 09:00:01
    code, out, _ = run("logs", str(FIX / "postgresql-custom-prefix.log"))
    assert code == 0 and "connection exhaustion: 1 refused connection in 1 minute (2024-01-16T09:00:00" in out
    # production-rails6.log has one consumer_create, production-registration.log one too
    code, out, _ = run("logs", "--compare", str(FIX / "production-rails6.log"), str(FIX / "production-registration.log"))
    assert code == 0 and "noise: only 1 request on one side" in out and "only 1 requests" not in out
    # a production.log with no Completed line has no status classes to list
    empty = tmp_path / "production.log"
    empty.write_bytes(b"2024-06-09T20:50:07 [I|app|] Processing by HostsController#index as HTML\n")
    code, out, _ = run("logs", str(empty))
    assert code == 0 and "  0 requests; no durations" in out and "()" not in out


def test_compare_quantiles_come_from_the_busiest_log_and_say_so(tmp_path: Path) -> None:
    # PostgreSQL writes one file per weekday: Fri holds one slow statement (3,000 ms), Mon three (1,234.567, 2,000,
    # 1,000.5 ms: p95 = the 3rd of 3 = 2,000 ms); quantiles of two files cannot be added, so Mon's are compared
    logs = tmp_path / "pg"
    logs.mkdir()
    shutil.copy(FIX / "postgresql-custom-prefix.log", logs / "postgresql-Fri.log")
    shutil.copy(FIX / "postgresql-Mon.log", logs / "postgresql-Mon.log")
    code, out, err = run("logs", "--compare", str(logs), str(FIX / "postgresql-Mon.log"), "--format", "json")
    assert code == 0, err
    row = {m["metric"]: m for m in json.loads(out)["metrics"]}["postgresql: slow statement p95 (ms)"]
    assert (row["before"], row["after"]) == (2000.0, 2000.0)
    assert row["note"] == "noise: only 3 statements on one side; before: postgresql-Mon.log only, the busiest of 2 logs"
    assert {m["metric"]: m for m in json.loads(out)["metrics"]}["postgresql: slow statements"]["before"] == 4  # 1 + 3


def test_a_passenger_era_sosreport_is_not_asked_for_a_puma_capacity(tmp_path: Path) -> None:
    # Satellite 6.2 runs Foreman inside Apache's Passenger (passenger.conf: PassengerMaxPoolSize 20): there is no Puma
    sos = tmp_path / "sosreport-sat62"
    shutil.copytree(SOS / "satellite-6.2", sos)
    (sos / "var" / "log" / "foreman").mkdir(parents=True)
    shutil.copy(FIX / "production-legacy.log", sos / "var" / "log" / "foreman" / "production.log")
    code, out, err = run("logs", str(sos))
    assert code == 0, err
    assert "--puma-capacity" not in out
    assert ("concurrency: peak 1 request at once (Passenger era: Foreman runs inside Apache, not Puma; "
            "PassengerMaxPoolSize 20, one request per process)") in out
    code, out, err = run("logs", str(sos), "--format", "json")
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert data["capacity"]["puma"] is None and data["capacity"]["unknown"].startswith("Passenger era")
    # a Puma-era sosreport keeps its capacity from the puma fact and no reason
    code, out, err = run("logs", str(SOS / "satellite-6.15"), "--format", "json")
    assert code == 0 and json.loads(out)["capacity"]["unknown"] is None


def test_the_action_share_says_it_is_of_the_time_spent() -> None:
    # production-rails6.log: consumer_create is 1 of 5 requests but 9,000 of 14,091 ms (11 + 30 + 9,000 + 5,003 + 47)
    code, out, _ = run("logs", str(FIX / "production-rails6.log"))
    assert code == 0
    header = next(line for line in out.splitlines() if line.strip().startswith("action") and "count" in line)
    assert header.split()[:5] == ["action", "count", "%", "of", "time"]
    row = next(line for line in out.splitlines() if "CandlepinProxiesController#consumer_create" in line and "9,000" in line)
    assert row.split()[1:3] == ["1", "63.9"]  # 100 x 9,000 / 14,091


def test_a_cut_sosreport_tarball_says_why_no_log_was_found(tmp_path: Path) -> None:
    # an uncompressed sosreport whose only log, var/log/messages, is cut 100 bytes into its data
    archive = tmp_path / "sosreport-sat.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(SOS / "satellite-6.15" / "version.txt", arcname="sosreport-sat/version.txt")
        tar.add(FIX / "messages", arcname="sosreport-sat/var/log/messages")
    with tarfile.open(archive) as tar:
        cut = tar.getmember("sosreport-sat/var/log/messages").offset_data + 100
    archive.write_bytes(archive.read_bytes()[:cut])
    code, _, err = run("logs", str(archive))
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "no production.log" in err and "(the archive is truncated after 2 members; the logs may be in the missing part)" in err


def test_markdown_statements_are_paragraphs_of_their_own() -> None:
    # rendered markdown joins adjacent lines into one paragraph: the span line and the exhaustion line must not run together
    code, md, _ = run("logs", str(FIX / "postgresql-Mon.log"), "--format", "markdown")
    assert code == 0
    assert ("13 lines, 2024-01-15T10:30:45 .. 2024-01-15T10:42:01\n\n"
            "connection exhaustion: 3 refused connections in 2 minutes (2024-01-15T10:31:00 .. 2024-01-15T10:33:00)\n\n"
            "deadlocks 1;") in md
    code, html, _ = run("logs", str(FIX / "postgresql-Mon.log"), "--format", "html")
    assert code == 0 and "<p>deadlocks 1; 'checkpoints are occurring too frequently' 1; autovacuum 1, autoanalyze 1</p>" in html.replace("&#x27;", "'")


def test_compare_action_rows_come_from_the_same_busiest_log(tmp_path: Path) -> None:
    # before: journald short export (HostsController#index once, 6,000 ms) beside production-registration.log
    # (28 requests, HostsController#index once, 480 ms); the busiest log's 480 ms is compared, and the note says so
    logs = tmp_path / "before"
    logs.mkdir()
    shutil.copy(FIX / "production-journald.log", logs / "production-journald.log")
    shutil.copy(FIX / "production-registration.log", logs / "production-a.log")  # sorts first: the journald log is last
    code, out, err = run("logs", "--compare", str(logs), str(FIX / "production-registration.log"), "--format", "json")
    assert code == 0, err
    row = {m["metric"]: m for m in json.loads(out)["metrics"]}["Api::V2::HostsController#index: p95 (ms)"]
    assert (row["before"], row["after"]) == (480.0, 480.0)
    assert row["note"] == "noise: only 1 request on one side; before: production-a.log only, the busiest of 2 logs"


HOSTILE_LOG = ("2024-06-09T20:50:01 [E|app|cccc0003] ActiveRecord::ConnectionTimeoutError: could not obtain a connection "
               "<script>alert(1)</script> *now* from the pool within 5.000 seconds\n")


def test_log_text_is_shown_literally_in_markdown_and_html(tmp_path: Path) -> None:
    log = tmp_path / "production.log"
    log.write_text(HOSTILE_LOG, encoding="utf-8")
    code, md, err = run("logs", str(log), "--format", "markdown")
    assert code == 0, err
    assert "<script>" not in md and "*now*" not in md
    assert ("db\\_pool\\_timeout: 2024-06-09T20:50:01 \\[E\\|app\\|cccc0003\\] ActiveRecord::ConnectionTimeoutError: could not "
            "obtain a connection \\<script\\>alert(1)\\</script\\> \\*now\\* from the pool within 5.000 seconds") in md
    code, html, err = run("logs", str(log), "--format", "html")
    assert code == 0, err
    assert "<script>" not in html and "\\" not in html
    assert ("<p>db_pool_timeout: 2024-06-09T20:50:01 [E|app|cccc0003] ActiveRecord::ConnectionTimeoutError: could not obtain "
            "a connection &lt;script&gt;alert(1)&lt;/script&gt; *now* from the pool within 5.000 seconds</p>") in html
    assert '<td data-label="kind">db_pool_timeout</td>' in html


def test_html_is_the_markdown_rendered_with_charts_under_their_heading() -> None:
    code, html, err = run("logs", str(FIX / "common_duration_access_ssl.log"), "--format", "html")
    assert code == 0, err
    assert "<h1>foretune logs — " in html and "common_duration_access_ssl.log</h1>\n<p class=\"meta-line\">Generated " in html
    assert "</p>\n<p>1 file, 3 lines read; every line understood</p>" in html
    heading = "<h2>Apache access log: common_duration_access_ssl.log</h2>\n"
    assert html.count(heading + '<div class="chart"><svg') == 1
    assert html.count('<div class="chart">') == 2  # status per minute and top endpoints, both under that heading
    assert html.index('<div class="chart">') > html.index(heading) > html.index("<h2>Incidents</h2>")
    # counts align right, an address is text
    assert re.search(r'<td data-label="[^"]*">GET /api/v2/ping</td>\n<td class="n" data-label="[^"]*">3</td>', html)
    assert re.search(r'<td data-label="[^"]*">10.0.0.1</td>\n<td class="n" data-label="[^"]*">3</td>', html)
    assert "<p>latency: p50 2.5 ms, p95 300 ms, p99 300 ms, max 300 ms</p>" in html


def _plain_host(root: Path) -> Path:
    """A sosreport of a host that runs no Foreman: only its system log."""
    (root / "sos_commands").mkdir(parents=True)
    (root / "var" / "log").mkdir(parents=True)
    (root / "var" / "log" / "messages").write_text("Jan 15 10:00:01 box systemd[1]: Started Session 1 of user root.\n",
                                                   encoding="utf-8")
    return root


def test_a_host_without_foreman_logs_is_refused_in_one_line(tmp_path: Path) -> None:
    """No clean verdict from logs that hold nothing of Foreman's: one line and exit 2, as `audit` on such a host."""
    sos = _plain_host(tmp_path / "sosreport-box")
    for source in (sos, sos / "var" / "log", sos / "var" / "log" / "messages"):
        code, out, err = run("logs", str(source))
        assert (code, out) == (2, ""), (source, err)
        assert len(err.strip().splitlines()) == 1
        assert f"{source}: no Foreman logs found" in err and "read only: system log" in err
    code, out, err = run("logs", str(sos), "--format", "json")
    assert (code, out) == (2, "") and "no Foreman logs found" in err


def test_postgresql_logs_named_alone_are_still_read() -> None:
    code, out, err = run("logs", str(FIX / "postgresql-Mon.log"))
    assert code == 0, err
    assert "POSTGRESQL" in out  # a log named on its own is read for what it is


def test_compare_names_both_sides_gives_a_verdict_and_what_next(tmp_path: Path) -> None:
    """Before: foreman-ssl_access_ssl.log without its 26 responses 503; after: the whole log. The 503s go 0 -> 26:
    a new failure count, so the note says "new worse" and the verdict puts it first as critical, with the command
    that reads the after side alone; the header names both sides' sources, windows and log spans."""
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    whole = (FIX / "foreman-ssl_access_ssl.log").read_text(encoding="utf-8")
    (before / "foreman-ssl_access_ssl.log").write_text(
        "".join(line for line in whole.splitlines(keepends=True) if '" 503 ' not in line), encoding="utf-8")
    (after / "foreman-ssl_access_ssl.log").write_text(whole, encoding="utf-8")
    code, out, err = run("logs", "--compare", str(before), str(after), "--format", "json")
    assert code == 0, err
    jsonschema.validate(json.loads(out), SCHEMA)
    row = {m["metric"]: m for m in json.loads(out)["metrics"]}["apache: 503 responses"]
    assert (row["before"], row["after"], row["note"], row["direction"], row["failures"]) == (0, 26, "new worse", "worse", True)
    # the JSON carries what the text says around the figures: who made it, the verdict, what next
    data = json.loads(out)
    assert data["foretune_version"] == __version__
    assert data["verdict"][0]["severity"] == "critical"
    assert data["verdict"][0]["text"].startswith("critical, worse: apache: 503 responses 0 → 26 (new)")
    assert data["next_steps"][0].startswith(f"Read the after side alone for the incidents behind what got worse: "
                                            f"`foretune logs {after}`")
    code, text, err = run("logs", "--compare", str(before), str(after))
    lines = text.splitlines()
    assert lines[:5] == ["foretune logs — before/after", "  host: not named by its logs", f"  foretune: {__version__}",
                         f"  before: {before}, window start .. end; its logs span 2017-03-27T13:34:52 .. 14:01:00",
                         f"  after: {after}, window start .. end; its logs span 2017-03-27T13:34:52 .. 14:01:00"]
    verdict = lines[lines.index("VERDICT") + 2]
    assert verdict == (f"  critical, worse: apache: 503 responses 0 → 26 (new); apache: 502/503 burst minutes 0 → 2 "
                       f"(new) → read what the after side logged: `foretune logs {after}`, then `foretune audit` on the "
                       "box or its sosreport judges the settings behind it")
    assert lines[lines.index("WHAT NEXT") + 2].startswith(
        f"  1. Read the after side alone for the incidents behind what got worse: `foretune logs {after}`")
    markdown = run("logs", "--compare", str(before), str(after), "--format", "markdown")[1]
    assert "\n## Verdict\n" in markdown and "\n## What next\n" in markdown and "host: not named by its logs" in markdown
    assert "- critical, worse: apache: 503 responses 0 → 26 (new); apache: 502/503 burst minutes 0 → 2 (new) → read" in markdown
    assert "\\>" not in markdown  # the arrow needs no escape: the Markdown reads as the text does
    html = run("logs", "--compare", str(before), str(after), "--format", "html")[1]
    assert "Verdict</h2>" in html and "What next</h2>" in html
    assert "<p>foretune: " not in html and f"by foretune {__version__}</p>" in html  # the version once, with the time


def test_the_json_report_carries_the_verdict_and_what_next() -> None:
    """As the text does: the Apache access log's 503 burst, critical, with the audit it leads to; then the log
    kinds not among the files given, judging nothing; What next closes with the --compare step."""
    code, out, err = run("logs", str(FIX / "foreman-ssl_access_ssl.log"), "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert data["verdict"][0] == {"severity": "critical", "text": "critical: 503 bursts (httpd: 24) → run `foretune audit` "
                                  "(rules puma-pool-saturated, apache-workers-over-limit (Puma capacity))"}
    text = run("logs", str(FIX / "foreman-ssl_access_ssl.log"), "--format", "text")[1]
    assert [line["text"] for line in data["verdict"]] == [
        line.strip() for line in text[text.index("VERDICT"):text.index("INCIDENTS")].splitlines()[2:] if line.strip()]
    assert data["next_steps"][-1].startswith("After a change, compare a day before with a day after")


def test_a_damaged_sosreport_names_the_damage_first_and_the_logs_lost_to_it(tmp_path: Path) -> None:
    # production.log whole, then the cut 100 bytes into the access log (no whole line of it read): it and the error
    # log, written after it under var/log/httpd/ (still open at the cut), are lost to the damage, and so is what the
    # archive may hold after var/ (sos_commands/); the Candlepin log, whose var/log/candlepin/ was written whole
    # before var/log/foreman/, is not in the archive and says so
    archive = tmp_path / "sosreport-sat.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(SOS / "satellite-6.15" / "version.txt", arcname="sosreport-sat/version.txt")
        tar.add(SOS / "satellite-6.15" / "installed-rpms", arcname="sosreport-sat/installed-rpms")
        tar.add(FIX / "dmesg", arcname="sosreport-sat/var/log/candlepin/other.txt")
        tar.add(FIX / "production-rails6.log", arcname="sosreport-sat/var/log/foreman/production.log")
        tar.add(FIX / "foreman-ssl_access_ssl.log", arcname="sosreport-sat/var/log/httpd/foreman-ssl_access_ssl.log")
        tar.add(FIX / "foreman-ssl_error_ssl.log", arcname="sosreport-sat/var/log/httpd/foreman-ssl_error_ssl.log")
    with tarfile.open(archive) as tar:
        cut = tar.getmember("sosreport-sat/var/log/httpd/foreman-ssl_access_ssl.log").offset_data + 100
    archive.write_bytes(archive.read_bytes()[:cut])
    code, out, err = run("logs", str(archive))
    assert code == 0 and "Traceback" not in err, err
    lines = out.splitlines()
    damaged = next(i for i, line in enumerate(lines) if line.strip().startswith("damaged: "))
    assert damaged < next(i for i, line in enumerate(lines) if line.strip() == "VERDICT")  # in the header
    assert "truncated after 5 members, in var/log/httpd/foreman-ssl_access_ssl.log" in lines[damaged]
    assert "facts lost to the damage" not in out  # the facts line is the audit's, not this report's
    verdict = "\n".join(lines[lines.index("VERDICT"):])
    assert "lost to the damage, so not judged: Apache access log, Apache error log, PostgreSQL log, system log, task export" \
        in verdict
    assert "not in this source, so not judged: Candlepin log\n" in verdict
    code, text, _ = run("logs", str(archive), "--format", "json")
    report = json.loads(text)
    assert report["lost"] == ["apache_access", "apache_error", "postgresql", "system", "tasks"] and report["damage"].startswith("sosreport-sat.tar is ")


def test_incidents_read_from_a_corrupt_gzip_are_not_critical() -> None:
    from foretune.report.logs_text import verdict

    report: dict[str, Any] = {"incidents": [{"kind": "db_pool_timeout", "service": "foreman", "count": 3}],
                              "production": [], "not_found": [], "source": "x.tar.gz", "release": "Satellite 6.15",
                              "source_kind": "sosreport"}
    assert verdict(report)[0].startswith("critical: Foreman DB pool timeouts (foreman: 3)")
    report["garbled"] = True
    lines = verdict(report)
    assert lines[0].startswith("read from a .tar.gz that failed its integrity check: every line may be damaged")
    assert lines[1].startswith("high: Foreman DB pool timeouts (foreman: 3)") and not any("critical:" in ln for ln in lines)
