"""The Puma workers x threads in force that every rule sizes against: measured or loaded beats configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from foretune.audit.context import build_context
from foretune.logs.source import puma_in_force as capacity_in_force
from foretune.rules.recommend import PumaInForce, puma_in_force, puma_source_note
from tests.rules.test_rule_fixtures import FIXTURES, fact_set

BASE = yaml.safe_load((FIXTURES / "_base" / "satellite-6.15.yaml").read_text(encoding="utf-8"))
DROPIN = {"workers": 12, "threads_min": 5, "threads_max": 5}
LOADED = {"workers": 40, "threads_min": 0, "threads_max": 16}
STATS = {"workers": 4, "booted_workers": 4, "max_threads": 8, "backlog": 0, "pool_capacity": 32}

# (facts on top of the base, the values in force written by hand)
CASES: list[tuple[str, dict[str, Any], PumaInForce | None]] = [
    ("pumactl stats beat the rest", {"puma": DROPIN, "puma_loaded": LOADED, "puma_stats": STATS},
     PumaInForce(4, 8, "puma_stats", (12, 5))),
    ("systemd's loaded environment beats the drop-in", {"puma": DROPIN, "puma_loaded": LOADED},
     PumaInForce(40, 16, "puma_loaded", (12, 5))),
    ("a loaded environment without the threads is passed over", {"puma": DROPIN,
                                                                 "puma_loaded": {"workers": 40, "threads_min": None, "threads_max": None}},
     PumaInForce(12, 5, "puma", None)),
    ("loaded as configured: nothing to name", {"puma": DROPIN, "puma_loaded": dict(DROPIN)},
     PumaInForce(12, 5, "puma_loaded", None)),
    ("the drop-in alone", {"puma": DROPIN}, PumaInForce(12, 5, "puma", None)),
    ("nothing known", {"puma": None}, None),
]


@pytest.mark.parametrize(("facts", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_the_values_in_force_and_where_they_come_from(facts: dict[str, Any], expected: PumaInForce | None) -> None:
    merged = {k: v for k, v in {**BASE, **facts}.items() if v is not None}
    ctx, _ = build_context(fact_set(Path("puma.yaml"), merged))
    assert puma_in_force(ctx) == expected
    # the same values as production.log's saturation and `logs` count against (foretune.logs.source)
    run = capacity_in_force(merged.get("puma_stats"), merged.get("puma_loaded"), merged.get("puma"))
    assert run == ((expected.workers, expected.threads, expected.fact) if expected else None)


def test_the_note_names_the_source_and_the_drop_in_only_when_they_differ() -> None:
    assert puma_source_note(PumaInForce(40, 16, "puma_loaded", (12, 5))) == (
        " (systemctl show foreman.service: 40 workers x 16 threads; the foreman.service environment on disk gives "
        "12 x 5, which systemd has not loaded)")
    assert puma_source_note(PumaInForce(1, 8, "puma_stats", (12, 5))) == (
        " (pumactl stats: 1 worker x 8 threads; the foreman.service environment on disk gives 12 x 5, which the "
        "running server does not use)")
    assert puma_source_note(PumaInForce(12, 5, "puma_loaded", None)) == ""
    assert puma_source_note(None) == ""
