"""The incidents-only read's fast paths (logs/prefilter.py) leave an analyzer exactly as the line-by-line path does."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from foretune.logs import prefilter
from foretune.logs.base import Analyzer, quote
from foretune.logs.prefilter import consume_incidents
from foretune.logs.production import ProductionLog
from foretune.logs.scan import Options, new_analyzer
from tests.logs.test_production_fast import awkward

FIX = Path(__file__).parent / "fixtures"


def state(analyzer: Analyzer) -> dict[str, Any]:
    """Everything an incidents-only read leaves in ``analyzer`` (quoted lines as the audit quotes them)."""
    out: dict[str, Any] = {"lines": analyzer.lines, "bad": analyzer.bad, "examples": analyzer.bad_examples,
                           "first": analyzer.first, "last": analyzer.last, "jumps": analyzer.clock_jumps,
                           "outside": analyzer.outside, "problems": analyzer.problems, "samples": analyzer.samples,
                           "incidents": [i.as_dict() for i in analyzer.incidents.values()]}
    if isinstance(analyzer, ProductionLog):
        out.update(peaks=analyzer.peaks, level=(analyzer.level, analyzer.low), open=analyzer.open,
                   dropped=analyzer.dropped, early=analyzer.reg_early, started=analyzer.reg_started,
                   minute_lines={m: quote(line) for m, line in analyzer.minute_lines.items()},
                   concurrency=analyzer.concurrency(), head=(analyzer.head_t, analyzer.headed))
    return out


def read(kind: str, data: bytes, chunk: int, fast: bool, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(prefilter, "CUT_IN_C", fast)
    monkeypatch.setattr(ProductionLog, "fast", fast)
    analyzer = new_analyzer(kind, "log", Options(ended=(2024, 6)))
    consume_incidents(analyzer, io.BytesIO(data), chunk_bytes=chunk)
    analyzer.finish()
    return state(analyzer)


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many chunks took the fast path (the comparison is worth something only if some did)."""
    taken: list[int] = []
    real = prefilter._sampled

    def spy(*args: Any) -> None:
        taken.append(1)
        real(*args)

    monkeypatch.setattr(prefilter, "_sampled", spy)
    return taken


@pytest.mark.parametrize("chunk", [300, 4096, 65536])
@pytest.mark.parametrize("seed", range(4))
def test_sampled_lines_cut_in_c_match_the_line_path(seed: int, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Awkward production.log (CRLF, odd lines, incident needles in continuation lines, clock jumps, no final line
    end), a sample that ends inside it: the same state as picking and reading the lines one by one. With large
    chunks the incident lines are made rare (a chunk holding one takes the line path)."""
    if seed % 2:
        monkeypatch.setattr(prefilter, "PIECE_BYTES", 100)  # many pieces a chunk
    data = awkward(seed)
    if chunk > 4096:
        data = data.replace(b"remaining connection slots", b"remaining slots")
    monkeypatch.setattr(prefilter, "SAMPLE_BYTES", len(data) * 2 // 3)
    general = read("production", data, chunk, False, monkeypatch)
    assert general["peaks"] and general["bad"] and general["jumps"]
    assert general["incidents"] or chunk > 4096
    assert general["samples"] and general["samples"][0][1] < general["lines"]
    taken = counted(monkeypatch)
    assert read("production", data, chunk, True, monkeypatch) == general
    assert taken


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.glob("production*")))
def test_sampled_lines_match_on_fixtures(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (FIX / name).read_bytes()
    for chunk in (97, 4096, 1 << 20):
        assert read("production", data, chunk, True, monkeypatch) == read("production", data, chunk, False, monkeypatch)


def test_a_sampled_continuation_line_takes_the_line_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A continuation line holding a sampled needle is fed with the timestamped line before it, as line by line."""
    data = (b"2024-01-01T10:00:00 [I|app|aaaa] Processing by A#b as JSON\n"
            b"2024-01-01T10:00:01 [W|app|aaaa] Failed\n"
            b" aaaa | Completed 500 in 3ms\n"
            b"2024-01-01T10:00:02 [I|app|aaaa] Completed 200 OK in 5ms\n")
    general = read("production", data, 1 << 20, False, monkeypatch)
    taken = counted(monkeypatch)
    assert read("production", data, 1 << 20, True, monkeypatch) == general
    assert not taken
    for chunk in range(40, len(data), 7):  # the continuation line first in a chunk, or the line before it
        assert read("production", data, chunk, True, monkeypatch) == read("production", data, chunk, False, monkeypatch)


def test_continuation_class_is_the_continuation_test() -> None:
    flt = prefilter.filter_for("production")
    assert flt is not None and flt.continued is not None and flt.sampled_continued is not None
    for byte in set(range(256)) - {10}:  # a line never starts with its line end
        line = bytes([byte]) + b" Completed 200 OK in 3ms"
        assert flt.continued(line) == (flt.sampled_continued.search(b"x\n" + line) is not None)


def awkward_access(seed: int, lines: int = 4000) -> bytes:
    """503 storms, 502s, a status in the referer, odd quoting and spacing, bad stamps, zone changes, clock jumps."""
    import random
    import time

    rng = random.Random(seed)
    t = 1_700_000_000
    out = []
    for _ in range(lines):
        t += rng.choice((0, 0, 0, 1, 1, 7, 61))
        if rng.random() < 0.01:
            t -= rng.choice((30, 700, 5000))
        zone = rng.choice((b"+0000",) * 20 + (b"-0400", b"+0530"))
        stamp = time.strftime("%d/%b/%Y:%H:%M:%S", time.gmtime(t)).encode() + b" " + zone
        if rng.random() < 0.01:
            stamp = rng.choice((stamp.replace(b"/20", b"/2x"), stamp[:18] + b"+5" + stamp[20:], stamp[:3] + b"Foo" + stamp[6:],
                                stamp[:18] + b"ab" + stamp[20:]))
        status = rng.choice((b"503", b"503", b"503", b"502", b"200", b"404", b"500"))
        after = rng.choice((b" " + status + b" 512", b" " + status + b" 512", b"\t" + status + b" 1", b" " + status,
                            b"  " + status + b" 9", b" 0" + status + b" 3", b" " + status + b'"x', b" x" + status))
        referer = rng.choice((b' "-" "curl/8"', b' "503 " "503"', b'', b' "a" "b" "c"', b' "https://x/" "rhsm"\t'))
        request = rng.choice((b"GET /rhsm/consumers/abc HTTP/1.1", b"PUT /x?\" 503 HTTP/1.1", b"-", b""))
        line = b"10.0.0.%d - - [" % rng.randrange(9) + stamp + b'] "' + request + b'"' + after + referer
        if rng.random() < 0.01:
            line = rng.choice((b"", b"   ", b"garbage 503", b'x [short] "a" 503 1', line.replace(b'"', b"", 2)))
        out.append(line + rng.choice((b"\n", b"\n", b"\r\n")))
    return b"".join(out).rstrip(b"\n")


def read_access(data: bytes, quick: bool, chunk: int, monkeypatch: pytest.MonkeyPatch, window: Any = None) -> dict[str, Any]:
    from foretune.logs.apache import AccessLog

    monkeypatch.setattr(AccessLog, "quick", quick)
    analyzer = new_analyzer("apache_access", "log", Options(window=window) if window else Options())
    assert isinstance(analyzer, AccessLog)
    consume_incidents(analyzer, io.BytesIO(data), chunk_bytes=chunk)
    return {**state(analyzer), "minutes": analyzer.minutes, "first_5xx": analyzer.first_5xx,
            "first_503": analyzer.first_503, "last_503": analyzer.last_503, "offset": analyzer.offset,
            "zones": analyzer.zone_changes}


@pytest.mark.parametrize("chunk", [200, 65536])
@pytest.mark.parametrize("seed", range(4))
def test_quick_access_lines_match_the_general_reader(seed: int, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The access log's incidents-only reader gives the general reader's state on awkward lines, also when its cache
    of stamps starts over."""
    from foretune.logs import apache

    if seed % 2:
        monkeypatch.setattr(apache, "MAX_TIMES", 5)
    data = awkward_access(seed)
    general = read_access(data, False, chunk, monkeypatch)
    assert general["bad"] and general["zones"] and general["jumps"] and general["first_503"] and "502" in general["first_5xx"]
    assert sum(row[0] for row in general["minutes"].values()) > 1000
    assert read_access(data, True, chunk, monkeypatch) == general


def test_quick_access_lines_match_with_a_window(monkeypatch: pytest.MonkeyPatch) -> None:
    from foretune.logs.timeutil import Window

    data = awkward_access(9)
    whole = read_access(data, False, 4096, monkeypatch)
    third = (whole["last"] - whole["first"]) // 3
    window = Window(since=whole["first"] + third, until=whole["last"] - third)
    general = read_access(data, False, 4096, monkeypatch, window)
    assert general["outside"] and general["minutes"]
    assert read_access(data, True, 4096, monkeypatch, window) == general


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.glob("*access*")))
def test_quick_access_lines_match_on_fixtures(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data = (FIX / name).read_bytes()
    assert read_access(data, True, 97, monkeypatch) == read_access(data, False, 97, monkeypatch)


def test_quick_access_runs_end_where_time_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 503 storm's lines of one second are only counted; a line of another time in between ends the run, so the
    same second again (a clock jump back) is read in full, as the general reader reads it."""
    def line(stamp: bytes, status: bytes, referer: bytes = b'"-"') -> bytes:
        return b'10.0.0.1 - - [' + stamp + b'] "GET /rhsm/ HTTP/1.1" ' + status + b' 12 ' + referer + b' "x"\n'

    early, late = b"12/Feb/2024:10:00:00 +0000", b"12/Feb/2024:11:00:00 +0000"
    storm = line(early, b"503") * 3
    data = storm + line(late, b"200", b'"503 "') + storm + line(late, b"502") + storm
    general = read_access(data, False, 1 << 20, monkeypatch)
    assert general["jumps"] == 6 and general["lines"] == 11  # each line of the two returns to 10:00 (an hour back)
    assert sum(row[6] for row in general["minutes"].values()) == 9 and general["first_5xx"]["502"][0] > general["first"]
    assert read_access(data, True, 1 << 20, monkeypatch) == general


@pytest.mark.parametrize("chunk", [150, 4096, 65536])
@pytest.mark.parametrize("seed", range(3))
def test_access_lines_cut_by_their_match_are_the_hits_lines(seed: int, chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The access log's 502/503 lines cut by one pattern running to the line's end: the lines the hits loop cuts
    (two matches in a line, a status in the request or the referer, CRLF, no final line end, chunks of a few lines)."""
    data = awkward_access(seed)
    assert data.count(b'"503 "') and data.count(b'?" 503 ') and not data.endswith(b"\n")
    monkeypatch.setattr(prefilter, "CUT_IN_C", False)
    hits = read_access(data, True, chunk, monkeypatch)
    monkeypatch.setattr(prefilter, "CUT_IN_C", True)
    assert read_access(data, True, chunk, monkeypatch) == hits
    assert hits["lines"] == data.count(b"\n") + 1 and sum(row[6] for row in hits["minutes"].values()) > 500
