"""Every output of the planner for every generation matches reviewed goldens; JSON follows the shipped schema."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from tests.plan.cases import CASES
from tests.plan.golden_outputs import golden, outputs, plan_json


@pytest.mark.parametrize("name", sorted(CASES))
def test_plan_outputs_match_golden(name: str) -> None:
    expected, actual = golden(name), outputs(CASES[name])
    assert sorted(actual) == sorted(expected), "the set of output files changed"
    for rel in expected:
        assert actual[rel] == expected[rel], f"{name}/{rel} differs from its golden"


@pytest.mark.parametrize("name", sorted(CASES))
def test_plan_json_follows_schema(name: str) -> None:
    schema = json.loads(resources.files("foretune.render").joinpath("schema/plan-v1.json").read_text(encoding="utf-8"))
    jsonschema.validate(plan_json(CASES[name], stable=False), schema)


def test_every_cited_id_resolves() -> None:
    for argv in CASES.values():
        data = plan_json(argv)
        cited = {c for t in data["tunables"] for side in ("installer", "foretune") for c in t[side]["citations"]}  # type: ignore[attr-defined]
        assert cited <= set(data["citations"])  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_tree_holds_the_formats(name: str) -> None:
    files = golden(name)
    assert files["out/custom-hiera.yaml"] == files["hiera.yaml"]
    assert files["out/installer.sh"] == "#!/bin/sh\nset -e\n" + files["installer.txt"]
