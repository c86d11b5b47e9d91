"""A continuation line (the lines of a multi-line message) takes its head line's time and window, in every reader."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from foretune.logs.incidents import collect
from foretune.logs.prefilter import consume_incidents
from foretune.logs.production import ProductionLog
from foretune.logs.scan import Options, consume, new_analyzer
from foretune.logs.timeutil import Window, epoch

# requests of other threads stamped later (14:31:59) come before the failing request's lines (stamped 14:31:00-05)
INTERLEAVED = (
    b"2024-02-11T14:31:59 [I|app|7f84f851] Processing by HostsController#index as JSON\n"
    b"2024-02-11T14:31:59 [I|app|7f84f851] Completed 200 OK in 555ms (Views: 0.4ms | ActiveRecord: 166.5ms)\n"
    b"2024-02-11T14:31:00 [I|app|e6f5275a] Processing by Katello::Api::Rhsm::CandlepinProxiesController#consumer_create as JSON\n"
    b"2024-02-11T14:31:05 [W|app|e6f5275a] Action failed\n"
    b" e6f5275a | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool within 5.000 seconds\n"
    b" e6f5275a | /usr/share/gems/gems/activerecord-6.1.7.6/lib/active_record/connection_adapters/abstract/connection_pool.rb:210\n"
    b"2024-02-11T14:31:05 [I|app|e6f5275a] Completed 500 Internal Server Error in 5012ms (ActiveRecord: 0.0ms)\n"
)
# an NTP step three hours back, then a failing request
STEPPED = (
    b"2024-02-11T13:48:33 [I|app|aaaa0001] Processing by HostsController#index as JSON\n"
    b"2024-02-11T13:48:34 [I|app|aaaa0001] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n"
    b"2024-02-11T10:48:35 [W|app|bbbb0001] Action failed\n"
    b" bbbb0001 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool within 5.000 seconds\n"
)
# three failing requests at 14:02, quiet lines at 08:00 and 16:00
WINDOWED = (
    b"2024-02-11T08:00:10 [I|app|cccc0001] Processing by HostsController#index as JSON\n"
    b"2024-02-11T08:00:11 [I|app|cccc0001] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n"
    + b"".join(b"2024-02-11T14:02:1%d [W|app|dddd000%d] Action failed\n"
               b" dddd000%d | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n"
               % (n, n, n) for n in range(5, 8))
    + b"2024-02-11T16:00:30 [I|app|eeee0001] Processing by HostsController#index as JSON\n"
    b"2024-02-11T16:00:31 [I|app|eeee0001] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n"
)


def _analyzer(window: Window | None = None) -> ProductionLog:
    analyzer = new_analyzer("production", "var/log/foreman/production.log", Options(window=window or Window()))
    assert isinstance(analyzer, ProductionLog)
    return analyzer


def timeouts(data: bytes, how: str, window: Window | None = None) -> list[tuple[Any, ...]]:
    """(count, first, last) of the pool timeouts read by the block reader, the line reader or the incidents-only read."""
    analyzer = _analyzer(window)
    if how == "incidents":
        consume_incidents(analyzer, io.BytesIO(data), chunk_bytes=64)
    else:
        analyzer.fast = how == "blocks"
        consume(analyzer, io.BytesIO(data))
    analyzer.finish()
    rows = collect({("production", "production.log"): analyzer}, capacity=None, burst_per_minute=1000)
    return [(r["count"], r["first"], r["last"]) for r in rows if r["kind"] == "db_pool_timeout"]


HOW = ("blocks", "lines", "incidents")


@pytest.mark.parametrize("how", HOW)
def test_a_continuation_line_takes_its_head_lines_time_not_the_latest_time_seen(how: str) -> None:
    assert timeouts(INTERLEAVED, how) == [(1, "2024-02-11T14:31:05", "2024-02-11T14:31:05")]
    assert timeouts(STEPPED, how) == [(1, "2024-02-11T10:48:35", "2024-02-11T10:48:35")]


@pytest.mark.parametrize("how", HOW)
def test_a_continuation_line_belongs_to_its_head_lines_window_only(how: str) -> None:
    at = epoch(2024, 2, 11, 14, 2)
    assert timeouts(WINDOWED, how, Window(at, at + 60)) == [(3, "2024-02-11T14:02:15", "2024-02-11T14:02:17")]
    for since, until in ((16, 16), (8, 8), (6, 10), (22, 30)):
        window = Window(epoch(2024, 2, 11, since), epoch(2024, 2, 11, until, 1))
        assert timeouts(WINDOWED, how, window) == [], (since, until)
    # the window ends inside the failing minute: the first two requests only
    assert timeouts(WINDOWED, how, Window(at, at + 17)) == [(2, "2024-02-11T14:02:15", "2024-02-11T14:02:16")]


@pytest.mark.parametrize("fast", [True, False])
def test_a_continuation_at_the_start_of_an_input_takes_the_last_head_of_the_input_before(fast: bool) -> None:
    """A file read in two byte ranges (or a rotated file and the current one) cut between a head line and its
    continuation: the continuation is timed by the first input's last line, and counted only in its window."""
    cut = WINDOWED.index(b" dddd0006")
    for window, expected in ((Window(), [(3, "2024-02-11T14:02:15", "2024-02-11T14:02:17")]),
                             (Window(epoch(2024, 2, 11, 14, 2, 16), epoch(2024, 2, 11, 14, 2, 17)),
                              [(1, "2024-02-11T14:02:16", "2024-02-11T14:02:16")]),
                             (Window(epoch(2024, 2, 11, 16), None), [])):
        first, second = _analyzer(window), _analyzer(window)
        first.fast = second.fast = fast
        consume(first, io.BytesIO(WINDOWED[:cut]))
        consume(second, io.BytesIO(WINDOWED[cut:]))
        first.merge(second)
        first.finish()
        rows = collect({("production", "production.log"): first}, capacity=None, burst_per_minute=1000)
        assert [(r["count"], r["first"], r["last"]) for r in rows if r["kind"] == "db_pool_timeout"] == expected


@pytest.mark.parametrize("how", HOW)
def test_a_continuation_before_any_timestamped_line_has_no_time_and_no_window(how: str) -> None:
    data = b" ffff0001 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n" + WINDOWED[:200]
    assert timeouts(data, how) == [(1, None, None)]
    assert timeouts(data, how, Window(epoch(2024, 2, 11, 8), None)) == []


def _saturated(minute: int, at_once: int) -> bytes:
    stamp = b"2025-03-02T09:%02d:00" % minute
    return b"".join(b"%s [I|app|s%07d] Processing by HostsController#index as JSON\n" % (stamp, i) for i in range(at_once)) \
        + b"".join(b"%s [I|app|s%07d] Completed 200 OK in 5ms (ActiveRecord: 1.0ms)\n" % (stamp, i) for i in range(at_once))


def _merged(kind: str, texts: dict[str, bytes], how: str) -> Any:
    """The analyzers of ``texts`` (path -> data, the rotated file first), each read whole or for its incidents only,
    merged in that order."""
    parts = []
    for path, data in texts.items():
        analyzer = new_analyzer(kind, path, Options())
        if how == "incidents":
            consume_incidents(analyzer, io.BytesIO(data))
        else:
            consume(analyzer, io.BytesIO(data))
        parts.append(analyzer)
    parts[0].merge(parts[1])
    parts[0].finish()
    return parts[0]


@pytest.mark.parametrize("how", ["lines", "incidents"])
def test_an_incident_is_credited_to_the_file_its_line_is_in(how: str) -> None:
    """A rotated production.log and the current one are merged into one analyzer: each incident names the file of the
    line it quotes."""
    rotated, current = "var/log/foreman/production.log-20250302.gz", "var/log/foreman/production.log"
    texts = {rotated: _saturated(0, 2) + b"2025-03-02T09:05:00 [W|app|t1] Action failed\n"
                                         b" t1 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n",
             current: b"2025-03-02T08:00:00 [W|app|t2] Action failed\n"
                      b" t2 | ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n"
                      + _saturated(29, 9)}
    rows = {r["kind"]: r for r in collect({("production", "production.log"): _merged("production", texts, how)},
                                          capacity=8, burst_per_minute=1000)}
    assert (rows["queue_at_capacity"]["path"], rows["queue_at_capacity"]["first"]) == (current, "2025-03-02T09:29:00")
    assert "[I|app|s0000000] Completed" in rows["queue_at_capacity"]["line"]
    # the earliest pool timeout is the current file's: its line and its path
    assert (rows["db_pool_timeout"]["path"], rows["db_pool_timeout"]["first"]) == (current, "2025-03-02T08:00:00")
    assert rows["db_pool_timeout"]["line"].startswith("t2 |") and rows["db_pool_timeout"]["count"] == 2


def test_logs_windows_count_a_pool_timeout_only_in_its_own_window(tmp_path: Path) -> None:
    """`logs --since/--until` and `--compare --window`: the pool timeouts of 14:02 are in no window that misses 14:02."""
    import json

    from tests.conftest import run_cli

    log = tmp_path / "production.log"
    log.write_bytes(WINDOWED)
    result = run_cli("logs", str(log), "--since", "2024-02-11 16:00", "--until", "2024-02-11 16:01", "--format", "json")
    assert result.status == 0, result.stderr
    assert json.loads(result.stdout)["incidents"] == []
    inside = run_cli("logs", str(log), "--since", "2024-02-11 14:00", "--until", "2024-02-11 14:05", "--format", "json")
    assert [(i["kind"], i["count"], i["first"]) for i in json.loads(inside.stdout)["incidents"]] == \
        [("db_pool_timeout", 3, "2024-02-11T14:02:15")]
    compared = run_cli("logs", str(log), "--compare", "--window", "2024-02-11 06:00..2024-02-11 10:00",
                       "--window", "2024-02-11 16:00..2024-02-12 06:00", "--format", "json")
    assert compared.status == 0, compared.stderr
    sides = json.loads(compared.stdout)
    assert sides["before"]["incidents"] == [] and sides["after"]["incidents"] == []


@pytest.mark.parametrize("how", ["lines", "incidents"])
def test_a_503_burst_is_credited_to_the_file_its_line_is_in(how: str) -> None:
    """A rotated access log (one 503 a minute, below a burst) and the current one (a burst of twelve): the burst and
    the hour's share of 503s quote the current file's line, and name that file."""
    rotated, current = "var/log/httpd/foreman-ssl_access_ssl.log-20240212.gz", "var/log/httpd/foreman-ssl_access_ssl.log"

    def access(minute: int, statuses: list[str]) -> bytes:
        return b"".join(f'10.0.0.{k} - - [11/Feb/2024:14:{minute:02d}:{k:02d} +0000] "POST /rhsm/consumers HTTP/1.1" '
                        f'{status} 299 "-" "subscription-manager"\n'.encode() for k, status in enumerate(statuses))

    burst = collect({("apache_access", "foreman"): _merged("apache_access", {rotated: access(0, ["200"] * 5),
                                                                            current: access(1, ["503"] * 12 + ["200"] * 3)}, how)},
                    capacity=None, burst_per_minute=10)
    assert [(r["kind"], r["path"], r["count"], r["first"]) for r in burst] == \
        [("http_503_burst", current, 12, "2024-02-11T14:01:00")]
    assert burst[0]["line"].startswith("10.0.0.0 - - [11/Feb/2024:14:01:00 +0000]")
    # below the burst rate (nine 503s, then three): the hour's share of them
    spread = _merged("apache_access", {rotated: access(0, ["200"] * 5),
                                       current: access(1, ["503"] * 9 + ["200"] * 3) + access(2, ["503"] * 3)}, how)
    share = collect({("apache_access", "foreman"): spread}, capacity=None, burst_per_minute=10,
                    share_rule=(3600, 10, 0.05))
    assert [(r["kind"], r["path"], r["count"], r["requests"]) for r in share] == [("http_503_share", current, 12, 20)]
