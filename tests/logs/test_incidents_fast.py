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
                           "outside": analyzer.outside, "problems": analyzer.problems,
                           "incidents": [i.as_dict() for i in analyzer.incidents.values()]}
    if isinstance(analyzer, ProductionLog):
        out.update(peaks=analyzer.peaks, level=(analyzer.level, analyzer.low), open=analyzer.open,
                   dropped=analyzer.dropped, early=analyzer.reg_early, started=analyzer.reg_started,
                   minute_lines={m: quote(line) for m, line in analyzer.minute_lines.items()},
                   concurrency=analyzer.concurrency())
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
    data = awkward(seed)
    if chunk > 4096:
        data = data.replace(b"remaining connection slots", b"remaining slots")
    monkeypatch.setattr(prefilter, "SAMPLE_BYTES", len(data) * 2 // 3)
    general = read("production", data, chunk, False, monkeypatch)
    assert general["peaks"] and general["bad"] and general["jumps"]
    assert general["incidents"] or chunk > 4096
    assert [p for p in general["problems"] if "counted over the first" in p]
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
