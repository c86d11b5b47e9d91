"""The incidents-only read (logs/prefilter.py) finds exactly the incidents of a full read."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from foretune.logs.base import Analyzer
from foretune.logs.incidents import collect, sample_notes
from foretune.logs.kinds import kind_of_name
from foretune.logs.prefilter import consume_incidents
from foretune.logs.scan import Options, consume, new_analyzer

FIX = Path(__file__).parent / "fixtures"
LOGS = [p for p in sorted(FIX.iterdir()) if kind_of_name(p.name, p.read_bytes()[:4096]) not in (None, "tasks")]


def read(kind: str, data: bytes, chunk: int | None) -> Analyzer:
    analyzer = new_analyzer(kind, "log", Options(ended=(2026, 12)))
    if chunk is None:
        consume(analyzer, io.BytesIO(data))
    else:
        consume_incidents(analyzer, io.BytesIO(data), chunk_bytes=chunk)
    analyzer.finish()
    return analyzer


def incidents(analyzer: Analyzer) -> list[dict[str, Any]]:
    # capacity 1 and bursts of one response a minute: every Puma and 502/503 incident shows
    return collect({(analyzer.kind, "log"): analyzer}, capacity=1, burst_per_minute=1)


def same(kind: str, data: bytes, chunk: int) -> list[dict[str, Any]]:
    full, quick = read(kind, data, None), read(kind, data, chunk)
    assert quick.lines == full.lines
    assert (quick.lines > quick.bad) == (full.lines > full.bad)
    assert incidents(quick) == incidents(full)
    return incidents(full)


def test_the_fixtures_yield_incidents_of_every_kind() -> None:
    found = set()
    for path in LOGS:
        kind = kind_of_name(path.name, path.read_bytes()[:4096])
        assert kind is not None
        found |= {i["kind"] for i in incidents(read(kind, path.read_bytes(), None))}
    # the comparison below is only worth something if the fixtures hold these
    assert {"http_503_burst", "queue_at_capacity", "oom_kill", "socket_exhaustion", "pg_connection_exhaustion",
            "candlepin_oom"} <= found


@pytest.mark.parametrize("chunk", [1, 97, 4096, 1 << 20])
@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_every_fixture_gives_the_incidents_of_a_full_read(path: Path, chunk: int) -> None:
    data = path.read_bytes()
    kind = kind_of_name(path.name, data[:4096])
    assert kind is not None
    same(kind, data, chunk)
    same(kind, data.rstrip(b"\n"), chunk)  # a last line without its newline
    # lines no analyzer understands before the log (counted, not parsed, until one may be understood)
    junk = b"not a log line\n2024-02-12T10:00:00 [I|app|a1b2c3] QUJD\n" * 20
    same(kind, junk + data, chunk)
    same(kind, junk, chunk)


@pytest.mark.parametrize("chunk", [1, 50, 200, 1 << 20])
def test_continuation_lines_take_the_time_of_the_line_before(chunk: int) -> None:
    production = (b"2024-01-01T10:00:00 [I|app|aaaaaaa1] Started GET \"/\"\n"
                  b"2024-01-01T10:05:00 [E|app|aaaaaaa1] Error:\n"
                  b" aaaaaaa1 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n"
                  b" aaaaaaa1 | /usr/share/foreman/app.rb:1\n"
                  b"2024-01-01T10:09:00 [I|app|aaaaaaa2] Started GET \"/\"\n"
                  b" | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n")
    rows = same("production", production, chunk)
    assert [(r["kind"], r["count"], r["first"], r["last"]) for r in rows] == \
        [("db_pool_timeout", 2, "2024-01-01T10:05:00", "2024-01-01T10:09:00")]
    candlepin = (b"2024-01-01 10:00:00,000 [req=a, org=] INFO  org.x - Request: verb=GET, uri=/candlepin/status\n"
                 b"2024-01-01 10:07:00,000 [req=a, org=] ERROR org.x - failed\n"
                 b"java.lang.OutOfMemoryError: Java heap space\n"
                 b"\tat org.x.Y.z(Y.java:1)\n")
    rows = same("candlepin", candlepin, chunk)
    assert [(r["kind"], r["first"]) for r in rows] == [("candlepin_oom", "2024-01-01T10:07:00")]


@pytest.mark.parametrize("chunk", [1, 64, 1 << 20])
def test_unreadable_logs_and_the_first_time_zone_stay_as_in_a_full_read(chunk: int) -> None:
    junk = b"not a log line\n" * 50
    quick = read("apache_access", junk, chunk)
    assert quick.lines == 50 and quick.bad == 50
    # the first offset read is the one later times are brought to
    access = (b'1.2.3.4 - - [01/Jan/2024:10:00:00 -0400] "GET / HTTP/1.1" 200 5\n'
              b'1.2.3.4 - - [01/Jan/2024:09:30:00 -0500] "GET / HTTP/1.1" 503 5\n'
              b'1.2.3.4 - - [01/Jan/2024:09:30:10 -0500] "GET / HTTP/1.1" 200 5 "503 " "curl"\n')  # no 503: only looks like one
    rows = same("apache_access", access, chunk)
    assert [(r["kind"], r["count"], r["first"]) for r in rows] == [("http_503_burst", 1, "2024-01-01T10:30:00")]


def _requests(start_minute: int, at_once: int, filler: int) -> bytes:
    """``at_once`` requests open together in one minute, then ``filler`` requests one after another."""
    lines = []
    stamp = f"2026-11-20T10:{start_minute:02d}:00"
    for i in range(at_once):
        lines.append(f"{stamp} [I|app|s{i:07d}] Processing by HostsController#index as JSON\n")
    for i in range(at_once):
        lines.append(f"{stamp} [I|app|s{i:07d}] Completed 200 OK in 5ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n")
    for i in range(filler):
        stamp = f"2026-11-20T10:{start_minute + 1:02d}:{i % 60:02d}"
        lines.append(f"{stamp} [I|app|f{i:07d}] Processing by HostsController#index as JSON\n")
        lines.append(f"{stamp} [I|app|f{i:07d}] Completed 200 OK in 5ms (Views: 1.0ms | ActiveRecord: 1.0ms)\n")
    return "".join(lines).encode()


def _saturation(analyzer: Analyzer, capacity: int) -> list[dict[str, Any]]:
    found = collect({(analyzer.kind, "log"): analyzer}, capacity=capacity, burst_per_minute=1000)
    return [i for i in found if i["kind"] == "queue_at_capacity"]


def test_puma_concurrency_is_counted_over_a_bounded_sample_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    early = _requests(0, 8, 2000)  # 8 at once in the first minute, then one at a time
    late = _requests(40, 8, 10)  # 8 at once again, far past the sample
    monkeypatch.setattr("foretune.logs.prefilter.SAMPLE_BYTES", len(early) // 2)
    full = read("production", early + late, None)
    quick = read("production", early + late, 4096)
    assert len(_saturation(full, 8)) == 1 and _saturation(full, 8)[0]["last"] > _saturation(full, 8)[0]["first"]
    # the sample sees the first saturation only: the same first minute, no later one
    sampled = _saturation(quick, 8)
    assert len(sampled) == 1 and sampled[0]["first"] == _saturation(full, 8)[0]["first"]
    assert sampled[0]["count"] < _saturation(full, 8)[0]["count"]
    # the sample never invents a level the full read did not see
    assert all(level <= full.concurrency()[m] for m, level in quick.concurrency().items())
    assert quick.lines == full.lines
    assert quick.samples and quick.samples[0][2] == full.lines and not full.samples
    noted = sample_notes({("production", "log"): quick}, sampled)
    assert len(noted) == 1 and f"of {full.lines:,} lines" in noted[0]
    assert "Puma at capacity is seen in them (from 2026-11-20T10:00:00)" in noted[0]
    # the same sample without saturation in it (capacity 9): said not to see a later one
    assert "a saturation later in this log is not seen here" in sample_notes({("production", "log"): quick}, [])[0]
    assert not sample_notes({("production", "log"): full}, _saturation(full, 8))


def test_a_log_within_the_sample_gets_no_note(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _requests(0, 8, 50)
    quick = read("production", data, 4096)
    assert _saturation(quick, 8) == _saturation(read("production", data, None), 8) != []
    assert not quick.samples and not sample_notes({("production", "log"): quick}, _saturation(quick, 8))


PARAMETERS = (  # a request's logged parameters holding an error's text: user input, no incident
    b'2024-02-11T00:48:45 [I|app|bbbb0001]   Parameters: {"search"=>"sorry, too many clients already could not obtain '
    b'a connection from the pool"}\n',
    b'2024-02-11T00:48:46 [app] [I]   Parameters: {"search"=>"ActiveRecord::ConnectionTimeoutError"}\n',
    b'Feb 11 00:48:47 host foreman[68464]:   Parameters: {"q"=>"remaining connection slots are reserved"}\n',
    b'{"MESSAGE": "  Parameters: {\\"q\\"=>\\"could not obtain a connection from the pool\\"}", '
    b'"__REALTIME_TIMESTAMP": "1707612528000000", "REQUEST": "bbbb0002"}\n',
)


@pytest.mark.parametrize("chunk", [1, 97, 1 << 20])
def test_logged_parameters_holding_an_error_text_are_no_incident(chunk: int) -> None:
    timeout = b"2024-02-11T00:49:00 [E|app|bbbb0003] ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n"
    rows = same("production", b"".join(PARAMETERS) + timeout, chunk)
    # the real timeout after them still counts, once; the Parameters lines not at all
    assert [(r["kind"], r["count"], r["first"]) for r in rows] == [("db_pool_timeout", 1, "2024-02-11T00:49:00")]
    for line in PARAMETERS:  # each shape alone, and the line-by-line reader too
        assert same("production", line, chunk) == []
        log = read("production", b"", None)
        log.consume_lines((line,), -1)
        assert not log.incidents


@pytest.mark.parametrize("chunk", [64, 4096, 1 << 20])
def test_a_vhosts_share_of_503s_counts_its_requests_as_a_full_read(chunk: int) -> None:
    """40 of 120 requests answered 503 (4 a minute, below a burst): the share counts the 200s the incidents-only read
    does not parse; a second time zone offset is brought to the first, as the full read does."""
    lines = []
    for k in range(120):
        t = 18 * 60 + 3 * k
        zone, hour = ("-0400", 10) if k < 100 else ("-0500", 9)  # the same wall clock an hour back in the other zone
        status = "503" if k % 3 == 0 else "200"
        lines.append(f'10.20.1.{k % 200} - - [14/Mar/2017:{hour:02d}:{t // 60:02d}:{t % 60:02d} {zone}] "GET /production/catalog/'
                     f'h{k:04d} HTTP/1.1" {status} 299 "-" "Ruby"\n')
    data = "".join(lines).encode()
    full, quick = read("apache_access", data, None), read("apache_access", data, chunk)
    rule = (3600, 10, 0.05)
    rows = collect({("apache_access", "log"): quick}, capacity=None, burst_per_minute=10, share_rule=rule)
    assert rows == collect({("apache_access", "log"): full}, capacity=None, burst_per_minute=10, share_rule=rule)
    assert [(r["kind"], r["count"], r["requests"], r["first"]) for r in rows] == \
        [("http_503_share", 40, 120, "2017-03-14T10:18:00")]


@pytest.mark.parametrize("chunk", [64, 4096, 1 << 20])
def test_an_access_log_with_a_burst_stops_counting_its_requests_and_gets_the_same_incidents(chunk: int) -> None:
    """Twelve 503s in the first minute (a burst at the knowledge data's 10 a minute), then an hour of 503s below the
    burst rate: the incidents-only read stops counting requests per minute at the burst, and the incidents (the burst,
    no share: a log with a burst is not judged on its share) are those of a full read."""
    lines = [f'10.0.0.{k} - - [14/Mar/2017:10:00:{k:02d} -0400] "POST /rhsm/consumers HTTP/1.1" 503 299 "-" "rhsm"\n'
             for k in range(12)]
    for k in range(300):
        t = 60 + 12 * k
        status = "503" if k % 2 == 0 else "200"
        lines.append(f'10.0.1.{k % 200} - - [14/Mar/2017:{10 + t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d} -0400] '
                     f'"GET /rhsm/status HTTP/1.1" {status} 299 "-" "rhsm"\n')
    data = "".join(lines).encode()
    full, quick = read("apache_access", data, None), read("apache_access", data, chunk)
    assert (quick.counted_until_burst, quick.line_minutes, full.counted_until_burst) == (10, None, None)
    rule = (3600, 10, 0.05)
    rows = collect({("apache_access", "log"): quick}, capacity=None, burst_per_minute=10, share_rule=rule)
    assert rows == collect({("apache_access", "log"): full}, capacity=None, burst_per_minute=10, share_rule=rule)
    assert [(r["kind"], r["count"], r["first"]) for r in rows] == [("http_503_burst", 12, "2017-03-14T10:00:00")]
