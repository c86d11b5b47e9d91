"""Calibration and validation against the guides, kept apart, and the table in docs/model.md kept true.

The published figures below are written by hand from the guide texts (Tuning Foreman 5.2.4 to 5.2.6 and the
Smart Proxy download table); the model's rows must carry exactly them.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest

from foretune.model import demands, validation

REPO = Path(__file__).resolve().parents[2]

PUBLISHED = {
    "workers-4cpu": (26, 22, -8),  # "0% 26% 22% -8%" for 2, 4, 6, 8 workers on 4 CPUs
    "workers-8cpu": (51, 52, 52, 42),  # "0% 51% 52% 52% 42%" for 2, 4, 8, 12, 16 workers on 8 CPUs
    "threads-4w": (14, 23, 10),  # "0% 14% 23% 10%" for 4, 8, 16, 32 threads with 4 workers
    "4x8-vs-2x16": (11,),  # "about 11% of speedup"
    "capsule-downloads": (50, 70),  # "~ 50%" 4 -> 8 CPUs, "~ 70%" 4 -> 16 CPUs
    "capsule-downloads-8-16": (40,),  # "~ 40%" 8 -> 16 CPUs
}
CALIBRATION_TOLERANCE_PP = 30.0  # how close the coarse calibration must land on the figures it was fitted to


def test_rows_carry_the_guides_figures() -> None:
    by_id = {row.id: row for row in validation.ROWS}
    for rid, figures in PUBLISHED.items():
        assert by_id[rid].published == figures, rid
    assert {r.id for r in validation.ROWS if r.use == "calibration"} == {"workers-4cpu", "workers-8cpu", "threads-4w"}
    assert all(math.isnan(x) for x in by_id["workers-16cpu"].published)  # withheld in the guide


@pytest.fixture(scope="module")
def outcomes() -> list[validation.Outcome]:
    return [validation.evaluate(row) for row in validation.ROWS]


MISSING = ("4x8-vs-2x16", "workers-16cpu")  # docs/model.md, "What the validation shows": why they miss


@pytest.mark.parametrize("rid", [r.id for r in validation.ROWS if r.use == "validation" and r.id not in MISSING])
def test_validation_rows_within_ten_points_of_the_guide(outcomes: list[validation.Outcome], rid: str) -> None:
    out = next(o for o in outcomes if o.row.id == rid)
    assert out.ok, f"{rid}: predicted {out.predicted}, published {out.row.published}"


@pytest.mark.xfail(strict=True, reason="not met yet: 4 x 8 against 2 x 16 and the 16 CPU worker steps miss "
                   "(docs/model.md, 'What the validation shows'); strict, so meeting it fails this marker")
def test_validation_rows_are_within_ten_points_of_the_guide(outcomes: list[validation.Outcome]) -> None:
    for out in outcomes:
        if out.row.use == "validation":
            assert out.ok, f"{out.row.id}: predicted {out.predicted}, published {out.row.published}"


def test_the_capsule_download_rows_are_the_content_path_not_the_serving_path() -> None:
    """pulpcore-content's event loops neither stretch like a Ruby GVL nor pay the penalty fitted on Puma workers:
    with the CPUs the only limit, time per package halves with twice the CPUs (9 -> 4.4 s in the guide)."""
    row = next(r for r in validation.ROWS if r.id == "capsule-downloads")
    out = validation.evaluate(row)
    assert 45 <= out.predicted[0] <= 55, out.predicted  # 4 -> 8 CPUs: about half the time per package


def test_the_docs_say_which_validation_rows_miss(outcomes: list[validation.Outcome]) -> None:
    """Until the rows pass, the table's "within" column must say "no" exactly where they miss."""
    table = validation.table(outcomes)
    misses = sum(line.endswith("| no |") for line in table.splitlines())
    expected = 0
    for out in outcomes:
        if out.row.use != "validation":
            continue
        if out.row.metric == "monotone":
            chain = [0.0, *out.predicted]
            expected += sum(b <= a for a, b in zip(chain, chain[1:]))
        else:
            expected += sum(abs(e) > validation.TOLERANCE_PP for e in out.errors_pp)
    assert misses == expected


def test_calibration_rows_land_near_what_they_were_fitted_to(outcomes: list[validation.Outcome]) -> None:
    for out in outcomes:
        if out.row.use == "calibration":
            assert all(abs(e) <= CALIBRATION_TOLERANCE_PP for e in out.errors_pp), (out.row.id, out.predicted)


def test_docs_table_is_what_the_model_computes(outcomes: list[validation.Outcome]) -> None:
    text = (REPO / "docs" / "model.md").read_text(encoding="utf-8")
    assert validation.table(outcomes) in text, "regenerate with: .venv/bin/python tools/calibrate_model.py --table"


def test_the_calibration_search_never_evaluates_a_validation_row(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("calibrate_model", REPO / "tools" / "calibrate_model.py")
    assert spec and spec.loader
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    seen: list[str] = []

    def fake(row: validation.Row, dem: Any = None, seed: int = 1) -> validation.Outcome:
        seen.append(row.id)
        return validation.Outcome(row, row.published, tuple(0.0 for _ in row.published), True)

    monkeypatch.setattr(validation, "evaluate", fake)
    tool.score(demands.calibration())
    assert seen and all(next(r for r in validation.ROWS if r.id == rid).use == "calibration" for rid in seen)


def test_the_table_says_which_rows_are_fitted() -> None:
    row = next(r for r in validation.ROWS if r.id == "4x8-vs-2x16")
    out = validation.Outcome(row, (15.0,), (4.0,), True)
    assert "| validation | guide (model-gf-4x8-2x16) | 4 x 8 on 8 CPUs (2 x 16 on 8 CPUs) | +15 % | +11 % | +4 pp | yes |" \
        in validation.table([out])
