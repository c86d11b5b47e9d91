"""Plans for every generation match reviewed golden JSON, and validate against the shipped schema."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import run_cli
from tests.plan.cases import CASES

GOLDEN = Path(__file__).parent / "golden"


def plan_json(argv: list[str], *, stable: bool = True) -> dict[str, object]:
    """The plan's JSON; ``stable`` drops the foretune version so goldens survive releases."""
    result = run_cli("plan", *argv, "--format", "json")
    assert result.status == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    if stable:
        data.pop("foretune_version")
    return data


@pytest.mark.parametrize("name", sorted(CASES))
def test_plan_matches_golden(name: str) -> None:
    expected = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert plan_json(CASES[name]) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_plan_json_follows_schema(name: str) -> None:
    schema = json.loads(resources.files("foretune.render").joinpath("schema/plan-v1.json").read_text(encoding="utf-8"))
    jsonschema.validate(plan_json(CASES[name], stable=False), schema)


def test_every_cited_id_resolves() -> None:
    for argv in CASES.values():
        data = plan_json(argv)
        cited = {c for t in data["tunables"] for side in ("installer", "foretune") for c in t[side]["citations"]}  # type: ignore[attr-defined]
        assert cited <= set(data["citations"])  # type: ignore[arg-type]
