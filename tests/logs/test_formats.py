"""Every log format and variant gives figures worked out by hand from the fixture lines (see comments)."""

from __future__ import annotations

import gzip
import lzma
import math
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from foretune.logs.apache import ErrorLog
from foretune.logs.production import ProductionLog
from foretune.logs.scan import LogFile, Options, from_paths, read_files
from foretune.logs.sketch import RELATIVE_ERROR
from foretune.logs.summary import build
from foretune.logs.timeutil import Window, parse_when

FIX = Path(__file__).parent / "fixtures"


def report(*names: str, capacity: int | None = None, window: Window | None = None, year: int = 2026) -> dict[str, Any]:
    # syslog-style lines carry no year: the test gives the year the data was taken
    problems: list[str] = []
    files = from_paths([str(FIX / n) for n in names], problems)
    scan = read_files(files, Options(window=window or Window(), ended=(year, 12)), jobs=1)
    return build(scan, source="test", capacity=capacity, capacity_from="test", problems=problems)


def close(value: float | None, expected: float) -> bool:
    """Within the sketch's stated relative error."""
    return value is not None and abs(value - expected) <= expected * RELATIVE_ERROR + 1e-9


def test_rails6_completed_lines_joined_by_request_id() -> None:
    r = report("production-rails6.log", capacity=2)
    p = r["production"][0]
    # Completed lines: 11 ms (#index), 30 ms (#index), 9000 ms (consumer_create), 5003 ms (HostsController#index, 500),
    # 47 ms (304, its Processing line is not in the log)
    assert p["requests"] == 5
    assert p["status"] == {"2xx": 3, "3xx": 1, "5xx": 1}
    actions = {a["action"]: a for a in p["actions"]}
    assert actions["NotificationRecipientsController#index"]["count"] == 2
    assert actions["NotificationRecipientsController#index"]["max"] == 30.0
    assert close(actions["NotificationRecipientsController#index"]["p50"], 11.0)
    assert actions["HostsController#index"]["status"] == {"5xx": 1}
    assert actions["(started before the log)"]["max"] == 47.0
    # share of total time: 9000 / (11 + 30 + 9000 + 5003 + 47) = 63.87 %
    assert actions["Katello::Api::Rhsm::CandlepinProxiesController#consumer_create"]["share"] == 63.9
    assert actions["Katello::Api::Rhsm::CandlepinProxiesController#consumer_create"]["db_ms"] == 900.5
    assert [a["action"] for a in p["registration"]] == ["Katello::Api::Rhsm::CandlepinProxiesController#consumer_create"]
    # its POST /rhsm/consumers is followed by no request naming a consumer: a create without a flow
    flows = p["registration_flows"]
    assert (flows["creates"], flows["flows"], flows["creates_without_uuid"], flows["failed_creates"]) == (1, 0, 1, 0)
    assert flows["duration"]["count"] == 0 and flows["calls_per_flow"] == {"compliance": None, "consumer_get": None}
    # overall: sorted 11, 30, 47, 5003, 9000 -> p50 is the 3rd value, p95/p99 the 5th
    assert close(p["latency"]["p50"], 47.0) and p["latency"]["p99"] == 9000.0
    # the garbage line and the binary junk line are counted, nothing else
    assert p["not_understood"] == 2 and r["not_understood"] == 2
    # consumer_create runs 20:49:03..20:49:12 while #index (20:49:03, 11 ms) is open: 2 at once = the capacity given
    assert p["concurrency"]["peak"] == 2 and p["concurrency"]["minutes_at_capacity"] == 1
    kinds = {(i["kind"], i["service"]): i for i in r["incidents"]}
    assert kinds[("queue_at_capacity", "puma")]["first"] == "2024-06-09T20:49:00"
    pool = kinds[("db_pool_timeout", "foreman")]
    assert pool["count"] == 1 and "could not obtain a connection from the pool" in pool["line"]


def test_registration_flows_joined_per_host() -> None:
    p = report("production-registration.log")["production"][0]
    assert p["not_understood"] == 0
    f = p["registration_flows"]
    # consumer creates (POST /rhsm/consumers): host A 10:00:05 and host B 10:00:06 through the capsule 10.0.0.50,
    # host C 10:00:22 (10.0.0.7), D 10:01:02 (10.0.0.8, 500), E 10:02:00 (10.0.0.9, nothing follows)
    assert (f["creates"], f["flows"], f["failed_creates"], f["creates_without_uuid"]) == (5, 3, 1, 1)
    # fact updates (PUT /rhsm/consumers/<uuid>): A at 10:00:38 (33 s after its create), C at 10:00:55; B only uploads packages
    assert f["with_facts"] == 2 and f["window_seconds"] == 300
    # B's create (3000 ms) ends at 10:00:09, before A's (9000 ms, ends 10:00:14): B's UUID (first named at 10:00:09)
    # and the POST /register of 10:00:11 belong to B, not to the older create of the same address.
    # A: 10:00:01 script .. fact update 10:00:38 + 2500 ms = 39,500 ms; B: 10:00:02 .. packages 10:00:43 + 400 ms = 41,400 ms;
    # C: 10:00:20 .. fact update 10:00:55 + 1500 ms = 36,500 ms. The existing host eeeeeeee-... (first seen 10:00:00 from
    # the capsule), ffffffff-... (10.0.0.99, no create there) and C's check-in at 10:10:30 (beyond 300 s) join nothing.
    d = f["duration"]
    assert (d["count"], d["min"], d["max"], d["sum"]) == (3, 36500.0, 41400.0, 117400.0)
    assert close(d["p50"], 39500.0) and d["p95"] == 41400.0
    steps = f["steps"]
    # scripts 150, 250, 100 ms; creates 9000, 3000, 4000; host records 1200, 800, 600; fact updates 2500, 1500
    assert (steps["script"]["count"], steps["script"]["max"], steps["script"]["sum"]) == (3, 250.0, 500.0)
    assert close(steps["script"]["p50"], 150.0)
    assert (steps["create"]["count"], steps["create"]["max"]) == (3, 9000.0) and close(steps["create"]["p50"], 4000.0)
    assert (steps["host"]["count"], steps["host"]["sum"]) == (3, 2600.0) and close(steps["host"]["p50"], 800.0)
    assert (steps["facts"]["count"], steps["facts"]["max"]) == (2, 2500.0) and close(steps["facts"]["p50"], 1500.0)
    # compliance: A 2, B 1, C 1 -> 4 / 3; GET /rhsm/consumers/<uuid>: one each
    assert f["calls_per_flow"] == {"compliance": 1.33, "consumer_get": 1.0} and f["dropped_events"] == 0
    # the per-action rows still list each step; with activation keys the create is #consumer_activate (4 of the 5)
    rows = {a["action"].rsplit("#", 1)[1]: a["count"] for a in p["registration"]}
    assert rows["consumer_activate"] == 4 and rows["consumer_create"] == 1 and rows["global"] == 4 and rows["host"] == 3


def test_registration_flow_in_journald_short_output(tmp_path: Path) -> None:
    # journald's short output has no request id: requests are told apart by the Puma worker's PID
    log = tmp_path / "production.log"
    lines = [
        ("10:00:01", 1001, 'Started GET "/register?activation_keys=ak" for 10.0.0.7 at 2025-06-10 10:00:01 +0000'),
        ("10:00:01", 1001, "Processing by Api::V2::RegistrationController#global as HTML"),
        ("10:00:01", 1001, "Completed 200 OK in 300ms (Views: 1.0ms | ActiveRecord: 1.0ms | Allocations: 10)"),
        ("10:00:05", 1002, 'Started POST "/rhsm/consumers?owner=ACME" for 10.0.0.7 at 2025-06-10 10:00:05 +0000'),
        ("10:00:05", 1002, "Processing by Katello::Api::Rhsm::CandlepinProxiesController#consumer_activate as JSON"),
        ("10:00:05", 1001, 'Started GET "/api/v2/hosts" for 10.0.0.1 at 2025-06-10 10:00:05 +0000'),
        ("10:00:05", 1001, "Processing by Api::V2::HostsController#index as JSON"),
        ("10:00:06", 1001, "Completed 200 OK in 900ms (Views: 1.0ms | ActiveRecord: 1.0ms | Allocations: 10)"),
        ("10:00:09", 1002, "Completed 200 OK in 4000ms (Views: 1.0ms | ActiveRecord: 1.0ms | Allocations: 10)"),
        ("10:00:09", 1001, 'Started GET "/rhsm/consumers/0b5a3f2c-1d2e-4f60-8a7b-9c0d1e2f3a4b" for 10.0.0.7 at 2025-06-10 10:00:09 +0000'),
        ("10:00:09", 1001, "Processing by Katello::Api::Rhsm::CandlepinProxiesController#consumer_show as JSON"),
        ("10:00:09", 1001, "Completed 200 OK in 50ms (Views: 1.0ms | ActiveRecord: 1.0ms | Allocations: 10)"),
        ("10:00:38", 1003, 'Started PUT "/rhsm/consumers/0b5a3f2c-1d2e-4f60-8a7b-9c0d1e2f3a4b" for 10.0.0.7 at 2025-06-10 10:00:38 +0000'),
        ("10:00:38", 1003, "Processing by Katello::Api::Rhsm::CandlepinProxiesController#facts as JSON"),
        ("10:00:40", 1003, "Completed 200 OK in 2000ms (Views: 1.0ms | ActiveRecord: 1.0ms | Allocations: 10)"),
    ]
    log.write_text("".join(f"Jun 10 {t} sat.example.com foreman[{pid}]: {msg}\n" for t, pid, msg in lines))
    p = build(read_files(from_paths([str(log)], []), Options(ended=(2025, 6)), jobs=1), source="t", capacity=None,
              capacity_from=None)["production"][0]
    assert p["journald"] and p["not_understood"] == 0
    f = p["registration_flows"]
    assert (f["creates"], f["flows"], f["with_facts"]) == (1, 1, 1)
    # 10:00:01 (script) .. 10:00:38 + 2000 ms (fact update) = 39,000 ms
    assert f["duration"]["max"] == 39000.0 and f["steps"]["create"]["max"] == 4000.0


def test_legacy_lines_without_request_id_have_no_flows(tmp_path: Path) -> None:
    log = tmp_path / "production.log"
    log.write_text('2015-11-13 07:09:20 [I] Started POST "/rhsm/consumers?owner=ACME" for 10.0.0.7 at 2015-11-13 07:09:20 +0000\n'
                   "2015-11-13 07:09:20 [I] Processing by Katello::Api::Rhsm::CandlepinProxiesController#consumer_create as JSON\n"
                   "2015-11-13 07:09:22 [I] Completed 200 OK in 2000ms (Views: 0.5ms | ActiveRecord: 6.6ms)\n")
    p = build(read_files(from_paths([str(log)], []), Options(), jobs=1), source="t", capacity=None, capacity_from=None)["production"][0]
    assert p["requests"] == 1 and p["registration_flows"]["creates"] == 0


def test_rails7_tail_and_legacy_prefixes() -> None:
    p = report("production-rails7.log")["production"][0]
    assert p["requests"] == 2 and p["not_understood"] == 0
    assert p["actions"][0]["db_ms"] == 155.5  # 105.5 + 50.0, the "(10 queries, 1 cached)" tail ignored
    assert p["actions"][0]["max"] == 105.0
    legacy = report("production-legacy.log")["production"][0]
    assert {a["action"]: a["max"] for a in legacy["actions"]} == {"HostsController#facts": 1200.0, "HostsController#externalNodes": 48.0}
    assert legacy["not_understood"] == 0


def test_journald_short_and_json_exports() -> None:
    short = report("production-journald.log", year=2025)["production"][0]
    assert short["journald"] and short["requests"] == 1 and short["not_understood"] == 0
    assert short["actions"][0]["action"] == "Api::V2::HostsController#index" and short["first"] == "2025-06-23T18:31:40"
    js = report("production-journal.json")["production"][0]
    # two interleaved requests of one PID told apart by REQUEST: 2000 ms and 20 ms
    assert js["requests"] == 2 and js["latency"]["max"] == 2000.0 and close(js["latency"]["p50"], 20.0)
    assert js["first"] == "2025-06-23T18:31:40"  # 1750703500 s


def test_apache_access_combined_bursts_and_clients() -> None:
    r = report("foreman-ssl_access_ssl.log", "foreman-ssl_error_ssl.log")
    a = r["apache_access"][0]
    # 2 x 200, 12 + 11 + 3 x 503, 1 x 502, 1 x 404; one line that is no access line
    assert a["requests"] == 30 and a["not_understood"] == 1
    assert a["status"] == {"2xx": 2, "3xx": 0, "4xx": 1, "5xx": 27, "502": 1, "503": 26}
    assert ["POST /rhsm/consumers", 23] in a["top_endpoints"] and ["GET /api/v2/hosts/:id", 4] in a["top_endpoints"]
    assert dict(map(tuple, a["client_kinds"]))["subscription-manager"] == 24
    assert not a["has_duration"]
    # 13:35 has 12 503s, 13:36 has 11 503s + 1 502: one burst; 14:00 (3) stays below 10/minute
    assert len(r["bursts"]) == 1
    burst = r["bursts"][0]
    assert (burst["start"], burst["end"], burst["responses"], burst["peak_per_minute"]) == ("2017-03-27T13:35:00", "2017-03-27T13:36:59", 24, 12)
    # MaxRequestWorkers at 13:35:05 and the proxy error at 13:36:10 fall in the burst; 15:00 does not
    assert burst["error_log_minutes"] == {"max_request_workers": 1, "proxy_error": 1}
    inc = {(i["kind"], i["service"]): i for i in r["incidents"]}
    assert inc[("http_503_burst", "httpd")]["count"] == 24
    assert inc[("http_503_burst", "httpd")]["line"].startswith('10.0.1.0 - - [27/Mar/2017:13:35:00 -0400] "POST /rhsm/consumers')
    assert inc[("queue_at_capacity", "httpd")]["count"] == 1
    assert any(s["title"].startswith("Log Apache response times") for s in r["suggestions"])


def test_apache_common_with_duration_and_zone_change() -> None:
    a = report("common_duration_access_ssl.log")["apache_access"][0]
    # %D 1500, 2500, 300000 µs; the +0100 line is 13:34:54 in the first line's -0400
    assert a["has_duration"] and a["latency"]["max"] == 300.0 and close(a["latency"]["p50"], 2.5)
    assert a["time_zone_changes"] == 1 and a["last"] == "2017-03-27T13:34:54"


def test_postgresql_default_and_custom_prefix() -> None:
    r = report("postgresql-Mon.log", "postgresql-custom-prefix.log")
    by = {s["log"]: s for s in r["postgresql"]}
    mon = by["postgresql-Mon.log"]
    assert mon["connection_exhaustion"] == {"count": 3, "minutes": 2, "first": "2024-01-15T10:31:00", "last": "2024-01-15T10:33:00"}
    assert (mon["deadlocks"], mon["checkpoint_warnings"], mon["autovacuum"]) == (1, 1, {"vacuum": 1, "analyze": 1})
    # durations 1234.567, 2000.0, 1000.5 ms
    assert mon["slow_statements"]["count"] == 3 and mon["slow_statements"]["max"] == 2000.0
    assert mon["top_statements"][0] == {"statement": 'SELECT "hosts".* FROM "hosts" WHERE "hosts"."id" = ?', "count": 2,
                                        "total_ms": 2235.1, "max_ms": 1234.6}
    assert {a["application"] for a in mon["by_application"]} == {"foreman/katello", "candlepin"}
    assert mon["prefix_has_pid"] is False and mon["not_understood"] == 0
    custom = by["postgresql-custom-prefix.log"]
    assert custom["prefix_has_pid"] is True and custom["by_application"][0]["application"] == "pulp"
    inc = [i for i in r["incidents"] if i["kind"] == "pg_connection_exhaustion"]
    assert sorted(i["count"] for i in inc) == [1, 3]


def test_candlepin_variants_and_out_of_memory() -> None:
    r = report("candlepin.log")
    c = r["candlepin"][0]
    # time=134, time=6025, "(221 ms)"; one slower than 5000 ms
    assert c["requests"] == 3 and c["slow_requests"] == 1 and c["latency"]["max"] == 6025.0
    assert {e["endpoint"] for e in c["endpoints"]} == {"GET /candlepin/consumers/:id", "PUT /candlepin/consumers/:id", "GET /candlepin/status"}
    assert c["levels"] == {"DEBUG": 2, "ERROR": 1, "INFO": 4}
    assert c["not_understood"] == 0
    inc = [i for i in r["incidents"] if i["kind"] == "candlepin_oom"]
    assert inc[0]["count"] == 1 and inc[0]["line"] == "java.lang.OutOfMemoryError: Java heap space"


def test_system_oom_kills_and_socket_exhaustion() -> None:
    s = report("messages", year=2025)["system"][0]
    assert s["oom_kills"] == {"ruby": 2, "java": 1}  # "Kill process ... sacrifice child" is not a second kill
    assert s["file_or_socket_exhaustion"] == {"qdrouterd": 1, "mosquitto": 1}
    assert s["first"] == "2025-11-20T10:00:00"


def test_tasks_and_steps_exports() -> None:
    r = report("foreman_tasks_tasks", "dynflow_steps")
    t = {s["log"]: s for s in r["tasks"]}
    tasks = t["foreman_tasks_tasks"]
    assert (tasks["tasks"], tasks["paused"], tasks["stopped_with_error"], tasks["not_understood"]) == (5, 1, 1, 1)
    sync = next(x for x in tasks["by_label"] if x["label"] == "Actions::Katello::Repository::Sync")
    assert sync["count"] == 2 and sync["sum"] == 2400.0 and sync["max"] == 1800.0  # 600 s + 1800 s
    assert tasks["slowest_tasks"][0]["id"] == "a2"
    steps = t["dynflow_steps"]["steps"]
    assert steps[0] == {"action_class": "Actions::Katello::CapsuleContent::UpdateContentCounts", "count": 2, "execution_s": 230.0, "max_s": 200.0}


def test_window_selects_lines_and_counts_the_rest() -> None:
    window = Window(parse_when("2017-03-27 13:35"), parse_when("2017-03-27 13:36"))
    a = report("foreman-ssl_access_ssl.log", window=window)["apache_access"][0]
    assert a["requests"] == 12 and a["outside_window"] == 18


def test_rotated_files_join_in_order_across_compression(tmp_path: Path) -> None:
    lines = (FIX / "production-rails6.log").read_bytes().splitlines(keepends=True)
    # cut after consumer_create's Processing line: its Completed line is in the newer file
    (tmp_path / "production.log-20240609.xz").write_bytes(lzma.compress(b"".join(lines[:4])))
    with gzip.open(tmp_path / "production.log-20240610.gz", "wb") as gz:
        gz.write(b"".join(lines[4:10]))
    (tmp_path / "production.log").write_bytes(b"".join(lines[10:]))
    files = from_paths([str(tmp_path)], [])
    assert sorted(f.kind for f in files) == ["production"] * 3
    p = build(read_files(files, Options(), jobs=1), source="t", capacity=None, capacity_from=None)["production"][0]
    actions = {a["action"]: a["count"] for a in p["actions"]}
    assert actions["Katello::Api::Rhsm::CandlepinProxiesController#consumer_create"] == 1
    assert p["requests"] == 5


def test_truncated_gzip_counts_what_it_read(tmp_path: Path) -> None:
    data = gzip.compress((FIX / "foreman-ssl_access_ssl.log").read_bytes())
    (tmp_path / "foreman-ssl_access_ssl.log-20170328.gz").write_bytes(data[: len(data) // 2])
    r = build(read_files(from_paths([str(tmp_path)], []), Options(), jobs=1), source="t", capacity=None, capacity_from=None)
    assert any("truncated or corrupt" in p for p in r["problems"])
    assert 0 < r["apache_access"][0]["requests"] < 30


def test_byte_ranges_in_two_processes_equal_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foretune.logs import scan as scan_module

    big = tmp_path / "production.log"
    with big.open("wb") as out:
        for _ in range(300):
            out.write((FIX / "production-rails6.log").read_bytes())
    monkeypatch.setattr(scan_module, "CHUNK_BYTES", 2000)
    monkeypatch.setattr(scan_module, "PARALLEL_BYTES", 1000)
    files = [LogFile("production.log", str(big), "production", big.stat().st_size)]
    one = build(read_files(files, Options(), jobs=1), source="t", capacity=None, capacity_from=None)["production"][0]
    two = build(read_files(files, Options(), jobs=2), source="t", capacity=None, capacity_from=None)["production"][0]
    assert two["requests"] == one["requests"] == 1500
    assert two["concurrency"] == one["concurrency"] and two["per_minute"] == one["per_minute"]
    assert {a["action"]: a["count"] for a in two["actions"]} == {a["action"]: a["count"] for a in one["actions"]}
    assert two["registration_flows"] == one["registration_flows"]


def registrations(count: int) -> bytes:
    """``count`` registrations, one every 3 s from 7 addresses in turn (so overlapping ones share an address).

    Each: script 200 ms; create 2 s later lasting 2 to 6 s; when it ends a GET of the consumer, a second later its
    compliance, another second later the host record; the fact update 33 s after the create; a check-in 10 minutes later.
    """
    out: list[tuple[int, int, str]] = []
    for i in range(count):
        ip, uuid, t0 = f"10.1.0.{i % 7}", f"{i:08x}-0000-4000-8000-000000000000", 1_718_013_600 + 3 * i
        create_ms = 2000 + 1000 * (i % 5)
        done = t0 + 2 + create_ms // 1000
        steps = [(t0, 200, "GET", "/register?activation_keys=ak", "Api::V2::RegistrationController#global"),
                 (t0 + 2, create_ms, "POST", "/rhsm/consumers?owner=ACME", "Katello::Api::Rhsm::CandlepinProxiesController#consumer_activate"),
                 (done, 40, "GET", f"/rhsm/consumers/{uuid}", "Katello::Api::Rhsm::CandlepinProxiesController#consumer_show"),
                 (done + 1, 60, "GET", f"/rhsm/consumers/{uuid}/compliance", "Katello::Api::Rhsm::CandlepinProxiesController#get"),
                 (done + 2, 700, "POST", "/register", "Api::V2::RegistrationController#host"),
                 (t0 + 35, 1500, "PUT", f"/rhsm/consumers/{uuid}", "Katello::Api::Rhsm::CandlepinProxiesController#facts"),
                 (t0 + 600, 30, "GET", f"/rhsm/consumers/{uuid}/certificates/serials", "Katello::Api::Rhsm::CandlepinProxiesController#serials")]
        for k, (t, ms, verb, path, action) in enumerate(steps):
            rid = f"{i:05x}{k:03x}"
            out.append((t, 0, f'[I|app|{rid}] Started {verb} "{path}" for {ip} at x'))
            out.append((t, 1, f"[I|app|{rid}] Processing by {action} as JSON"))
            out.append((t + ms // 1000, 2, f"[I|app|{rid}] Completed 200 OK in {ms}ms (Views: 1.0ms | ActiveRecord: 1.0ms)"))
    return "".join(f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(t))} {text}\n" for t, _, text in sorted(out)).encode()


def test_registration_flows_in_byte_ranges_equal_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foretune.logs import scan as scan_module

    big = tmp_path / "production.log"
    big.write_bytes(registrations(300))
    # ranges of 2000 bytes (about 20 lines) cut between many Started, Processing and Completed lines of one request
    monkeypatch.setattr(scan_module, "CHUNK_BYTES", 2000)
    monkeypatch.setattr(scan_module, "PARALLEL_BYTES", 1000)
    files = [LogFile("production.log", str(big), "production", big.stat().st_size)]
    scans = read_files(files, Options(), jobs=1), read_files(files, Options(), jobs=2)
    one, two = (build(s, source="t", capacity=None, capacity_from=None)["production"][0] for s in scans)
    assert one["requests"] == two["requests"] == 7 * 300
    # the same events (start, line number, step, address, consumer, duration, status), check-ins left out by both
    merged = [next(iter(s.merged().values())) for s in scans]
    events = [sorted(a.reg_events) for a in merged if isinstance(a, ProductionLog)]
    assert len(events[0]) == 6 * 300 and events[1] == events[0]
    f = one["registration_flows"]
    assert (f["creates"], f["flows"], f["with_facts"], f["creates_without_uuid"]) == (300, 300, 300, 0)
    # every flow: script start .. fact update 35 s later + 1500 ms
    assert f["duration"]["min"] == f["duration"]["max"] == 36500.0
    assert f["calls_per_flow"] == {"compliance": 1.0, "consumer_get": 1.0}
    assert two["registration_flows"] == f


def test_sketch_quantiles_against_a_sorted_reference() -> None:
    import random

    from foretune.logs.sketch import Sketch

    rng = random.Random(7)
    values = [rng.lognormvariate(4, 1.5) for _ in range(20000)]
    halves = Sketch(), Sketch()
    for i, v in enumerate(values):
        halves[i % 2].add(v)
    halves[0].merge(halves[1])
    ordered = sorted(values)
    for q in (0.5, 0.9, 0.95, 0.99):
        exact = ordered[math.ceil(q * len(ordered)) - 1]
        got = halves[0].quantile(q)
        assert got is not None and abs(got - exact) <= exact * RELATIVE_ERROR * 1.0001, q


def test_unknown_single_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_bytes(b"\x00\x01 nothing here\n")
    problems: list[str] = []
    assert from_paths([str(junk)], problems) == []
    assert "not a log format foretune knows" in problems[0]
    shutil.rmtree(tmp_path)


def test_concurrency_counts_requests_open_in_log_order(tmp_path: Path) -> None:
    log = tmp_path / "production.log"
    log.write_text(
        # three requests overlap in the same second
        "2024-01-01T10:00:01 [I|app|aaaaaaa1] Processing by A#a as JSON\n"
        "2024-01-01T10:00:01 [I|app|aaaaaaa2] Processing by A#a as JSON\n"
        "2024-01-01T10:00:01 [I|app|aaaaaaa3] Processing by A#a as JSON\n"
        # beside a fourth that was already running when the log starts (its Processing line is not in the log)
        "2024-01-01T10:00:01 [I|app|00000000] Completed 200 OK in 5000ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n"
        "2024-01-01T10:00:01 [I|app|aaaaaaa1] Completed 200 OK in 3ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n"
        "2024-01-01T10:00:01 [I|app|aaaaaaa2] Completed 200 OK in 3ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n"
        "2024-01-01T10:00:01 [I|app|aaaaaaa3] Completed 200 OK in 3ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n"
        # 10:01: many short requests one after another, never two open at once
        + "".join(f"2024-01-01T10:01:0{i} [I|app|bbbbbbb{i}] Processing by B#b as JSON\n"
                  f"2024-01-01T10:01:0{i} [I|app|bbbbbbb{i}] Completed 200 OK in 2ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n"
                  for i in range(8)))
    p = build(read_files(from_paths([str(log)], []), Options(), jobs=1), source="t", capacity=3, capacity_from="t")["production"][0]
    # the request running at the start is open beside the three: 4 at 10:00; 1 at 10:01
    assert [row[3] for row in p["per_minute"]] == [4, 1]
    assert p["concurrency"]["peak"] == 4 and p["concurrency"]["minutes_at_capacity"] == 1


def test_clock_jump_is_counted() -> None:
    import io

    from foretune.logs.production import ProductionLog

    analyzer = ProductionLog("production.log")
    analyzer.consume(io.BytesIO(b"2018-06-17T21:37:21 [I|app|] Started GET \"/\"\n"
                                b"2018-06-17T17:41:38 [I|app|] Started POST \"/katello/api/v2/organizations\"\n"))
    assert analyzer.clock_jumps == 1 and analyzer.first is not None and analyzer.bad == 0


def test_task_export_with_a_huge_or_broken_header_is_a_problem_line(tmp_path: Path) -> None:
    export = tmp_path / "foreman_tasks_tasks"
    export.write_bytes(b'"' + b"x" * 200_000 + b"\n")
    r = build(read_files(from_paths([str(export)], []), Options(), jobs=1), source="t", capacity=None, capacity_from=None)
    assert r["tasks"][0]["not_understood"] == 1 and r["tasks"][0]["lines"] == 1


def test_task_exports_in_id_order_report_no_clock_jumps() -> None:
    # the 6.15 export is in id order: rows of 2024-02-11, then 2024-02-01, ... (the paused Sync of 2024-01-03 at row 41);
    # the span is the earliest and the latest started_at, and nothing in it says the server's clock jumped
    export = Path(__file__).parents[1] / "fixtures" / "sosreports" / "satellite-6.15" / "sos_commands" / "foreman" / "foreman_tasks_tasks"
    r = build(read_files(from_paths([str(export)], []), Options(), jobs=1), source="t", capacity=None, capacity_from=None)
    t = r["tasks"][0]
    assert (t["first"], t["last"], t["clock_jumps"]) == ("2024-01-03T02:00:14", "2024-02-12T10:01:44", 0)
    from foretune.report.logs_text import render

    assert "clock jump" not in render(r)


def test_the_pid_suggestion_does_not_put_the_installer_prefix_on_another_one(tmp_path: Path) -> None:
    # RHEL 7's PostgreSQL 9.2 (Satellite 6.2) logs with '< %m >': no pid, but not the installer's '%t ' either
    log = tmp_path / "postgresql-Wed.log"
    log.write_bytes(b"< 2017-08-02 02:00:00.123 EDT >LOG:  duration: 1500.000 ms  statement: SELECT 1 FROM katello_repositories\n"
                    b"< 2017-08-02 02:00:01.000 EDT >FATAL:  sorry, too many clients already\n")
    r = build(read_files(from_paths([str(log)], []), Options(), jobs=1), source="t", capacity=None, capacity_from=None)
    pg = r["postgresql"][0]
    assert pg["prefix_has_pid"] is False and pg["connection_exhaustion"]["count"] == 1 and pg["slow_statements"]["count"] == 1
    (pid,) = [s for s in r["suggestions"] if s["citation"]["id"] == "postgresql-log-line-prefix"]
    assert pid["reason"].startswith("the log lines carry no process id") and "prefix '%t ' has no %p" not in pid["reason"]


def test_dmesg_oom_kills_count_without_a_time() -> None:
    # the kernel ring buffer (sos_commands/kernel/dmesg) holds kills the rotated messages may have lost; its
    # lines carry seconds since boot, no date, so the incident has no time
    s = report("dmesg")["system"][0]
    assert s["oom_kills"] == {"java": 1, "ruby": 1}  # "Kill process ... or sacrifice child" is not a second kill
    assert s["not_understood"] == 0
    kills = [i for i in report("dmesg")["incidents"] if i["kind"] == "oom_kill"]
    assert sorted(i["service"] for i in kills) == ["java", "ruby"]
    assert all(i["first"] is None for i in kills)


def test_mosquitto_system_socket_count_exceeded() -> None:
    # mosquitto's own wording when it runs out of descriptors (its LimitNOFILE): measured exhaustion
    s = report("messages-mosquitto", year=2025)["system"][0]
    assert s["file_or_socket_exhaustion"] == {"mosquitto": 2}
    inc = [i for i in report("messages-mosquitto", year=2025)["incidents"] if i["kind"] == "socket_exhaustion"]
    assert inc[0]["service"] == "mosquitto" and "system socket count has been exceeded" in inc[0]["line"]


def test_passenger_lines_in_the_apache_error_log_are_read() -> None:
    """Passenger 4.0.18 writes to Apache's error_log in its own format (ext/common/Logging.cpp, _prepareLogEntry:
    "[ %F %H:%M:%S.<1/10 ms> pid/thread file:line ]: "), and Group.h:331 logs "Request queue is full. Returning an
    error" when PassengerMaxRequestQueueSize is reached."""
    log = ErrorLog("var/log/httpd/error_log")
    log.consume([b"[Thu Nov 09 03:12:01.431021 2017] [mpm_prefork:notice] [pid 1187] AH00163: Apache/2.4.6 configured",
                 b"[ 2017-11-09 09:00:02.1203 2518/7f3c0b7fe700 Pool2/Group.h:331 ]: Request queue is full. Returning an error",
                 b"[ 2017-11-09 09:01:10.0400 2518/7f3c0b7fe700 Pool2/Group.h:331 ]: Request queue is full. Returning an error"])
    assert log.bad == 0
    (incident,) = [i.as_dict() for i in log.incidents.values()]
    assert (incident["kind"], incident["service"], incident["count"]) == ("queue_at_capacity", "passenger", 2)
    assert (incident["first"], incident["last"]) == ("2017-11-09T09:00:02", "2017-11-09T09:01:10")
