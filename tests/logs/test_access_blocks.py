"""An Apache access log read from blocks split in C gives what reading it line by line gives."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest

from foretune.logs import reader
from foretune.logs.apache import AccessLog
from foretune.logs.scan import consume

FIX = Path(__file__).parent / "fixtures"
ODD = (b"\n", b"\r\n", b"garbage\n", b'10.0.0.1 - - [14/Nov/2023:22:13:2x +0000] "GET / HTTP/1.1" 200 1\n',
       b'10.0.0.1 - - [14/Nov/2023:22:13:20 +0000] "GET / HTTP/1.1" 2x0 1\n',
       b'10.0.0.1 - - [14/Nov/2023:22:13:20 +0200] "GET /a/1 HTTP/1.1" 503 1 "-" "curl/8"\n',  # another zone
       b'10.0.0.1 - - [14/Nov/2023:22:13:20 +0000] "GET https://u:pw@sat.example.com/x/7 HTTP/1.1" 200 1 "-" "x" 1234\n')


def awkward(seed: int, lines: int = 4000) -> bytes:
    """Combined lines with repeated seconds, clock jumps that repeat, CRLF ends, %D, odd lines; no final line end."""
    rng = random.Random(seed)
    t = 1_700_000_000
    out = []
    for _ in range(lines):
        t += rng.choice((0, 0, 0, 1, 2))
        jump = rng.random() < 0.02
        stamp = __import__("time").strftime("%d/%b/%Y:%H:%M:%S", __import__("time").gmtime(t - (4000 if jump else 0))).encode()
        status = rng.choice((b"200", b"200", b"304", b"503", b"502", b"404"))
        path = rng.choice((b"/rhsm/consumers/%08x-0000-4000-8000-000000000000" % rng.getrandbits(32), b"/api/v2/hosts/%d" % rng.randrange(99),
                           b"/pulp/content/x/y.rpm", b"/puppet/v3/node/web%d.example.com?x=1" % rng.randrange(5)))
        end = b"\r\n" if rng.random() < 0.1 else b"\n"
        line = (b"10.0.0.%d - - [%s +0000] \"GET %s HTTP/1.1\" %s 12 \"-\" \"%s\"" % (rng.randrange(9), stamp, path, status,
                rng.choice((b"Ruby", b"RHSM/1.0", b"libdnf"))))
        out.append(line + (b" %d" % rng.randrange(10**6) if rng.random() < 0.5 else b"") + end)
        if jump and rng.random() < 0.5:
            out.append(out[-1])  # the same jumped line twice: each counts
        if rng.random() < 0.02:
            out.append(rng.choice(ODD))
    return b"".join(out).rstrip(b"\n")


def state(a: AccessLog) -> dict[str, Any]:
    return json.loads(json.dumps({"summary": a.summary(), "lines": a.lines, "bad": a.bad, "jumps": a.clock_jumps,
                                  "first": a.first, "last": a.last, "examples": a.bad_examples}, default=str))


def by_lines(data: bytes) -> dict[str, Any]:
    analyzer = AccessLog("access.log")
    analyzer.consume(io.BytesIO(data))  # the file's own line iteration
    analyzer.finish()
    return state(analyzer)


def by_blocks(data: bytes) -> dict[str, Any]:
    analyzer = AccessLog("access.log")
    consume(analyzer, io.BytesIO(data))
    analyzer.finish()
    return state(analyzer)


@pytest.mark.parametrize("block", [50, 4096, 1 << 20])
def test_blocks_match_lines(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "BLOCK_BYTES", block)
    data = awkward(block)
    expected = by_lines(data)
    assert expected["jumps"] > 0 and expected["bad"] > 0
    assert by_blocks(data) == expected
    assert by_blocks(data + b"\n") == by_lines(data + b"\n")


@pytest.mark.parametrize("name", ["foreman-ssl_access_ssl.log", "common_duration_access_ssl.log"])
def test_blocks_match_lines_on_fixtures(name: str) -> None:
    data = (FIX / name).read_bytes()
    assert by_blocks(data) == by_lines(data)


def test_byte_ranges_in_blocks_match_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two byte ranges read from blocks and merged: what the ranges read line by line give."""
    monkeypatch.setattr(reader, "BLOCK_BYTES", 700)
    path = tmp_path / "access.log"
    path.write_bytes(awkward(3))
    size = path.stat().st_size
    results = []
    for blocks in (True, False):
        parts = []
        for start, end in ((0, size // 3), (size // 3, size)):
            analyzer = AccessLog("access.log")
            if blocks:
                analyzer.consume_range(str(path), start, end)
            else:
                analyzer.consume(reader.byte_range(str(path), start, end))
            parts.append(analyzer)
        parts[0].merge(parts[1])
        parts[0].finish()
        results.append(state(parts[0]))
    assert results[0] == results[1]


def test_a_repeated_clock_jump_counts_each_time() -> None:
    """Lines of one time are looked at once, except a clock jump's: each of its lines is a jump."""
    line = b'10.0.0.1 - - [14/Nov/2023:%s +0000] "GET /x HTTP/1.1" 200 1 "-" "curl/8"\n'
    data = b"".join(line % s for s in (b"22:13:20", b"22:13:20", b"21:00:00", b"21:00:00", b"22:13:20", b"22:13:21"))
    for read in (by_lines, by_blocks):
        got = read(data)
        assert (got["jumps"], got["lines"], got["summary"]["first"], got["summary"]["last"]) == (
            2, 6, "2023-11-14T21:00:00", "2023-11-14T22:13:21")
