"""Every output of the planner for every generation matches reviewed goldens; JSON follows the shipped schema."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from tests.plan.cases import CASES
from tests.plan.golden_outputs import format_output, golden, outputs, plan_json


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
def test_formats_equal_the_out_tree(name: str) -> None:
    files = golden(name)
    if "out/custom-hiera.yaml" in files:  # a release without custom-hiera (6.2) gets no such file
        assert format_output(CASES[name], "hiera") == files["out/custom-hiera.yaml"]
    assert "#!/bin/sh\nset -e\n" + format_output(CASES[name], "installer") == files["out/installer.sh"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_citations_are_the_cited_ids(name: str) -> None:
    from foretune.knowledge import citation

    data = plan_json(CASES[name])
    cited: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            cited.update(c for c in value.get("citations", ()) if isinstance(c, str) and not isinstance(value.get("citations"), dict))
            for key, item in value.items():
                if key != "citations" or not isinstance(item, dict):
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk({k: v for k, v in data.items() if k != "citations"})
    assert cited <= set(data["citations"])  # type: ignore[arg-type]  # (the release's own sources are listed too)
    for cid, entry in data["citations"].items():  # type: ignore[attr-defined]
        assert entry["title"] == citation(cid).title, cid
