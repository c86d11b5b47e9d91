"""production.log's block reader (the fast path) gives exactly what the general line-by-line reader gives, on awkward input."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from foretune.logs import production_blocks, production_limits, reader
from foretune.logs.production import ProductionLog
from foretune.logs.scan import Options, consume, new_analyzer
from foretune.logs.timeutil import Window

FIX = Path(__file__).parent / "fixtures"
ACTIONS = ("Katello::Api::Rhsm::CandlepinProxiesController#consumer_show", "Api::V2::HostsController#index",
           "Katello::Api::Rhsm::CandlepinProxiesController#consumer_create", "Api::V2::RegistrationController#global")
ODD = (  # lines the fast branch must hand over, or treat exactly as the general branch does
    b"2024-13-01T10:00:00 [I|app|deadbeef] Completed 200 OK in 5ms\n",  # month 13
    b"2024-01-01T10:00:0x [I|app|deadbeef] Processing by X#y as JSON\n",
    b"2024-01-01 10:00:01 [I|app|deadbeef] Started GET \"/register\" for 10.0.0.9 at 2024\n",  # space, not T
    b"2024-01-01T10:00:01 [app] [I] Processing by Old#style as HTML\n",  # Foreman 1.12: no request id
    b"2024-01-01T10:00:01 [I|app|] Completed 200 OK in 7ms (ActiveRecord: 1.0ms)\n",  # empty request id
    b"2024-01-01T10:00:01 [I|app|abc] Completed 2x0 OK in 7ms\n",
    b"2024-01-01T10:00:01 [I|app|abc] Completed 200 OK in 7\n",  # no "ms": the general branch reads "7"
    b"2024-01-01T10:00:01 [I|app|abc] Completed 200 OK in 1e400ms (ActiveRecord: nanms)\n",
    b"2024-01-01T10:00:01 [I|app|abc] Completed 200 OK in -3ms\n",
    b"2024-01-01T10:00:01 [I|app|abc] Completed 200 OK in 12ms (ActiveRecord: 5e9ms)\n",
    b"2024-01-01T10:00:01 [I|app|abc] Completed 500 Internal Server Error in fast\n",
    b"2024-01-01T10:00:01 [I|app|abc] Completedness\n",
    b"2024-01-01T10:00:01 [I|app|abc] Processing by\n",
    b"2024-01-01T10:00:01 [I|app|abc] Processing by Foo#bar\n",
    b"2024-01-01T10:00:01 [I|app|abc] Started GET \"/rhsm/consumers/\" for 10.0.0.1 at x\n",
    b"2024-01-01T10:00:01 [I|app|] Started GET \"/register\" for 10.0.0.1 at x\n",  # no request id: no flow step
    b"2024-01-01T10:00:01 [app] Started POST \"/rhsm/consumers?owner=A\" for 10.0.0.1 at x\n",
    b"2024-01-01T10:00:01 [E|app|abc] ActiveRecord::ConnectionTimeoutError: could not obtain a connection from the pool\n",
    b"2024-01-01T10:00:01 [E|app|abc] PG::ConnectionBad: FATAL: sorry, too many clients already\n",
    b" abc | ActiveRecord::ConnectionTimeoutError (could not obtain a connection from the pool)\n",
    b"-- connection reset\n", b"\n", b"   \n", b"\r\n", b"garbage \xff\xfe line\n",
    b"2024-01-01T10:00:01 [I|app|abc] no closing bracket\n", b"2024-01-01T10:00:01 [I|app|abc]no space\n",
    b"2024-01-01T10:00:01 [a]b|c|d] Processing by Tag#bracket as JSON\n",
    b"Jun 23 18:31:46 host foreman[68464]: Processing by Journal#line as JSON\n",
    b'{"MESSAGE": "Completed 200 OK in 4ms", "__REALTIME_TIMESTAMP": "1700000000000000", "REQUEST": "abc"}\n',
)


def awkward(seed: int, requests: int = 3000) -> bytes:
    """Interleaved requests with CRLF ends, Parameters and multi-line errors, non-UTF-8 bytes, clock jumps, odd lines."""
    rng = random.Random(seed)
    t = 1_700_000_000
    uuids = [f"{rng.getrandbits(32):08x}-0000-4000-8000-{rng.getrandbits(48):012x}" for _ in range(40)]
    out: list[bytes] = []
    live: list[tuple[str, str]] = []
    for _ in range(requests):
        t += rng.choice((0, 0, 1, 1, 2, 61))
        if rng.random() < 0.01:
            t -= rng.choice((30, 700, 4000))  # interleaving and clock jumps
        stamp = __import__("time").strftime("%Y-%m-%dT%H:%M:%S", __import__("time").gmtime(t)).encode()
        end = b"\r\n" if rng.random() < 0.1 else b"\n"
        if live and (len(live) > 12 or rng.random() < 0.45):
            rid, action = live.pop(rng.randrange(len(live)))
            status = rng.choice((b"200 OK", b"200 OK", b"304 Not Modified", b"500 Internal Server Error", b"404 Not Found"))
            ms = f"{rng.lognormvariate(3, 1.5):.{rng.choice((0, 1))}f}".encode()
            tail = rng.choice((b" (Views: 1.0ms | ActiveRecord: %sms | Allocations: 12)" % ms, b"", b" (ActiveRecord: 0.0ms)",
                               b" (1 query, 0 cached) | GC: 0.1ms", b" (ActiveRecord: \xffms)"))
            if rng.random() < 0.03:
                out.append(stamp + b" [W|app|" + rid.encode() + b"] Action failed" + end)
                out.append(b" " + rid.encode() + b" | PG::ConnectionBad: remaining connection slots are reserved" + end)
            out.append(stamp + b" [I|app|" + rid.encode() + b"] Completed " + status + b" in " + ms + b"ms" + tail + end)
        else:
            rid = f"{rng.getrandbits(32):08x}"[: rng.choice((8, 8, 8, 6))]
            action = rng.choice(ACTIONS)
            uuid = rng.choice(uuids)
            verb, path = rng.choice(((b"GET", b"/rhsm/consumers/" + uuid.encode()), (b"POST", b"/rhsm/consumers?owner=A"),
                                     (b"GET", b"/register"), (b"POST", b"/register"), (b"GET", b"/api/v2/hosts"),
                                     (b"PUT", b"/rhsm/consumers/" + uuid.encode() + b"/profiles")))
            ip = b"10.0.0.%d" % rng.randrange(4)
            out.append(stamp + b" [I|app|" + rid.encode() + b"] Started " + verb + b' "' + path + b'" for ' + ip + b" at x" + end)
            out.append(stamp + b" [I|app|" + rid.encode() + b"] Processing by " + action.encode()
                       + rng.choice((b" as JSON", b"", b" as \xe9")) + end)
            if verb != b"GET":
                out.append(stamp + b" [I|app|" + rid.encode() + b']   Parameters: {"a"=>"b\xc3"}' + end)
                if rng.random() < 0.2:  # a multi-line Parameters value
                    out.append(b'  "more"=>"x"}' + end)
            live.append((rid, action))
        if rng.random() < 0.02:
            out.append(rng.choice(ODD))
    data = b"".join(out)
    return data.rstrip(b"\n")  # the last line has no line end


def state(analyzer: ProductionLog) -> dict[str, Any]:
    return {"summary": json.loads(json.dumps(analyzer.summary(capacity=5), default=str)), "peaks": analyzer.peaks,
            "open": analyzer.open, "orphans": analyzer.orphans, "reg_events": analyzer.reg_events,
            "incidents": [i.as_dict() for i in analyzer.incidents.values()], "dropped": analyzer.dropped,
            "level": (analyzer.level, analyzer.low), "lines": analyzer.lines, "bad": analyzer.bad}


def read(data: bytes, fast: bool, window: Window | None = None) -> dict[str, Any]:
    analyzer = new_analyzer("production", "production.log", Options(window=window or Window(), ended=(2024, 6)))
    assert isinstance(analyzer, ProductionLog)
    analyzer.fast = fast
    consume(analyzer, io.BytesIO(data))
    analyzer.finish()
    return state(analyzer)


@pytest.mark.parametrize("seed", range(6))
def test_fast_branch_matches_general_branch(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    if seed % 2:  # small caches and batches: the stamp cache starts over, pending requests are added up often
        monkeypatch.setattr(production_limits, "MAX_STAMPS", 7)
        monkeypatch.setattr(production_limits, "MAX_PENDING", 13)
        monkeypatch.setattr(production_limits, "MAX_NAMES", 2)
    data = awkward(seed)
    general = read(data, fast=False)
    assert general["lines"] > 3000 and general["summary"]["requests"] > 1000 and general["bad"] > 0
    assert general["summary"]["registration_flows"]["creates"] > 0 and general["incidents"]
    assert read(data, fast=True) == general


def test_fast_branch_matches_with_a_window() -> None:
    window = Window(since=1_700_020_000, until=1_700_040_000)
    data = awkward(7)
    general = read(data, fast=False, window=window)
    assert 0 < general["summary"]["outside_window"] < general["lines"]
    assert read(data, fast=True, window=window) == general


def test_fast_branch_matches_across_inputs() -> None:
    """Two inputs merged (a file cut in two byte ranges, one cut mid-request): the same as in one branch."""
    data = awkward(8)
    cut = data.index(b"\n", len(data) // 2) + 1
    results = []
    for fast in (False, True):
        first, second = (new_analyzer("production", "production.log", Options()) for _ in range(2))
        assert isinstance(first, ProductionLog) and isinstance(second, ProductionLog)
        first.fast = second.fast = fast
        consume(first, io.BytesIO(data[:cut]))
        consume(second, io.BytesIO(data[cut:]))
        first.merge(second)
        first.finish()
        results.append(state(first))
    assert results[0] == results[1]


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.glob("production*")))
def test_fast_branch_matches_on_fixtures(name: str) -> None:
    data = (FIX / name).read_bytes()
    assert read(data, fast=True) == read(data, fast=False)


@pytest.mark.parametrize("block", [64, 1000, 65536])
def test_blocks_match_general_branch(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks that cut lines anywhere, the last line without a line end, small caches: the same as line by line."""
    monkeypatch.setattr(reader, "BLOCK_BYTES", block)
    if block < 1000:
        monkeypatch.setattr(production_limits, "MAX_STAMPS", 7)
        monkeypatch.setattr(production_limits, "MAX_PENDING", 13)
        monkeypatch.setattr(production_limits, "MAX_NAMES", 2)
    data = awkward(9)
    assert not data.endswith(b"\n")
    assert read(data, fast=True) == read(data, fast=False)
    assert read(data + b"\n", fast=True) == read(data + b"\n", fast=False)


def test_byte_range_blocks_match_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file read as byte ranges in blocks gives the lines byte_range gives, and the same analysis."""
    monkeypatch.setattr(reader, "BLOCK_BYTES", 1000)
    path = tmp_path / "production.log"
    path.write_bytes(awkward(10))
    size = path.stat().st_size
    cuts = [0, 1, size // 3, size // 3 + 1, size // 2, size - 1, size]
    for start, end in zip(cuts, cuts[1:]):
        assert b"".join(reader.range_blocks(str(path), start, end)) == b"".join(reader.byte_range(str(path), start, end))
    results = []
    for fast in (False, True):
        parts = []
        for start, end in ((0, size // 2), (size // 2, size)):
            analyzer = new_analyzer("production", "production.log", Options())
            assert isinstance(analyzer, ProductionLog)
            analyzer.fast = fast
            analyzer.consume_range(str(path), start, end)
            parts.append(analyzer)
        parts[0].merge(parts[1])
        parts[0].finish()
        results.append(state(parts[0]))
    assert results[0] == results[1]


def read_lines(lines: list[bytes], fast: bool, window: Window | None = None, fail_after: int | None = None) -> dict[str, Any]:
    """``lines`` given one by one (as a compressed file's are), a read error after ``fail_after`` of them."""
    analyzer = new_analyzer("production", "production.log", Options(window=window or Window(), ended=(2024, 6)))
    assert isinstance(analyzer, ProductionLog)
    analyzer.fast = fast

    def source() -> Iterator[bytes]:
        for n, line in enumerate(lines):
            if n == fail_after:
                raise OSError("Compressed file ended before the end-of-stream marker was reached")
            yield line

    if fail_after is None:
        analyzer.consume(source())
    else:
        with pytest.raises(OSError):
            analyzer.consume(source())
    analyzer.finish()
    return state(analyzer)


@pytest.mark.parametrize("joined", [7, 1024])
def test_lines_one_by_one_match_general_branch(joined: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines that come one by one are joined into blocks: the same as the general branch, with a window, with
    lines that lack their line end, and up to a read error."""
    monkeypatch.setattr(production_blocks, "JOINED_LINES", joined)
    lines = io.BytesIO(awkward(11)).readlines()
    assert not lines[-1].endswith(b"\n")
    general = read_lines(lines, fast=False)
    assert general["lines"] == len(lines) and general["summary"]["requests"] > 1000
    assert read_lines(lines, fast=True) == general
    window = Window(since=1_700_020_000, until=1_700_040_000)
    windowed = read_lines(lines, fast=False, window=window)
    assert 0 < windowed["summary"]["outside_window"] < windowed["lines"]
    assert read_lines(lines, fast=True, window=window) == windowed
    unended = [line.rstrip(b"\n") if n % 97 == 5 else line for n, line in enumerate(lines)]  # read as separate lines
    assert read_lines(unended, fast=True) == read_lines(unended, fast=False)
    cut = len(lines) // 2 + 3
    failed = read_lines(lines, fast=False, fail_after=cut)
    assert failed["lines"] == cut
    assert read_lines(lines, fast=True, fail_after=cut) == failed
