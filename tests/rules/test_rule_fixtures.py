"""Every rule against its pass/fail/skip fixtures, through one generic test.

A fixture is tests/rules/fixtures/<rule-id>/<expect>-<slug>.yaml with ``facts`` (optionally on top
of ``base: <name>`` from fixtures/_base/), ``options`` (hosts, bench) and ``expect``. A ``fail`` fixture
also pins ``recommended`` (the value) and ``fixes`` (each "kind target value", ``[]`` when the finding
gives none). ``provenance`` gives a fact the lines a source would quote for it (``fact: [[location, excerpt], ...]``,
copied from a fixture sosreport's files), and ``evidence_has`` the text the finding's evidence must quote from them: the
fact it proves, not only where it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.facts.model import Fact, FactSet, Provenance
from foretune.rules.base import Status
from foretune.rules.registry import all_rules

FIXTURES = Path(__file__).parent / "fixtures"
RULES = {rule.id: rule for rule in all_rules()}


def load_fixture(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    facts: dict[str, Any] = {}
    if "base" in data:
        facts.update(yaml.safe_load((FIXTURES / "_base" / f"{data['base']}.yaml").read_text(encoding="utf-8")))
    for name, value in (data.get("facts") or {}).items():
        if value is None:
            facts.pop(name, None)  # null removes a base fact: it becomes unknown
        else:
            facts[name] = value
    data["facts"] = facts
    return data


def fact_set(path: Path, facts: dict[str, Any], provenance: dict[str, list[list[str]]] | None = None) -> FactSet:
    fs = FactSet("fixture", path.name)
    for name, value in facts.items():
        quoted = tuple(Provenance("fixture", location, excerpt) for location, excerpt in (provenance or {}).get(name, []))
        fs.add(Fact(name, value, quoted or (Provenance("fixture", path.name, ""),)))
    return fs


CASES = sorted(p for p in FIXTURES.glob("*/*.yaml") if not p.parent.name.startswith("_"))


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_rule_fixture(path: Path) -> None:
    rule = RULES.get(path.parent.name)
    assert rule is not None, f"fixtures for unknown rule {path.parent.name}"
    data = load_fixture(path)
    expect = Status(data["expect"])
    assert path.stem.startswith(expect.value + "-"), "file name must start with the expected status"
    options = data.get("options") or {}
    ctx, _ = build_context(fact_set(path, data["facts"], data.get("provenance")), hosts=options.get("hosts"),
                           bench=options.get("bench"))
    outcome = run_rule(rule, ctx)
    assert outcome.status == expect, outcome.message
    if expect == Status.FAIL:
        assert outcome.message and outcome.recommended is not None, "a failure says what to change"
        assert outcome.evidence, "a failure shows its evidence"
    if "severity" in data:  # written by hand: what the finding's severity must be (after calibration)
        severity = outcome.severity if outcome.severity is not None else rule.severity
        assert severity.label == data["severity"], outcome.message
    for text in data.get("message_has", []):
        assert text in outcome.message, outcome.message
    for text in data.get("message_lacks", []):  # written by hand: what the message must not say (a line quoted twice)
        assert text not in outcome.message, outcome.message
    quoted = [f"{e.location}: {e.excerpt}" for e in outcome.evidence]
    for text in data.get("evidence_has", []):  # written by hand: an evidence line shows the fact the finding proves
        assert any(text in line for line in quoted), quoted
    for text in data.get("evidence_lacks", []):
        assert not any(text in line for line in quoted), quoted
    fixes = [f"{fix.kind} {fix.target}" + ("" if fix.value is None else f" {fix.value}") for fix in outcome.fixes]
    for text in data.get("fixes_have", []):  # written by hand: a fix rendered as "kind target value" contains it
        assert any(text in fix for fix in fixes), fixes
    if expect == Status.FAIL:  # the full result, as ansible-lint's and ruff's rule fixtures pin it
        assert "recommended" in data and "fixes" in data, "a fail fixture pins the recommendation and the fixes"
        assert outcome.recommended == data["recommended"], outcome.recommended
        if "current" in data:  # optional: the value in force, when the fixture's point is how it is counted
            assert outcome.current == data["current"], outcome.current
        assert fixes == data["fixes"], fixes


def test_every_rule_has_pass_and_fail_fixtures() -> None:
    for rule_id in RULES:
        kinds = {p.stem.split("-", 1)[0] for p in (FIXTURES / rule_id).glob("*.yaml")}
        assert {"pass", "fail"} <= kinds, f"{rule_id}: needs pass and fail fixtures, has {sorted(kinds)}"


def test_enough_rules() -> None:
    assert len(RULES) >= 50
