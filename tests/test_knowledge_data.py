"""The bundled knowledge is internally consistent: every number cites a source that exists."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from foretune.knowledge import citations, load_data
from foretune.knowledge.releases import known_versions, resolve_release

DATA = resources.files("foretune.knowledge").joinpath("data")
FILES = sorted(p.name for p in DATA.iterdir() if p.name.endswith(".yaml") and not p.name.startswith("citations"))


def walk(node: Any, path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every mapping in ``node`` with its path."""
    found = []
    if isinstance(node, dict):
        found.append((path, node))
        for key, value in node.items():
            found += walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += walk(value, f"{path}[{i}]")
    return found


@pytest.mark.parametrize("name", FILES)
def test_every_citation_resolves(name: str) -> None:
    known = citations()
    for path, mapping in walk(load_data(name)):
        if "citation" in mapping:
            assert mapping["citation"] in known, f"{name}{path}: unknown citation {mapping['citation']!r}"


@pytest.mark.parametrize("name", [n for n in FILES if n.startswith(("planner", "thresholds"))])
def test_every_constant_is_cited_and_estimates_explain_themselves(name: str) -> None:
    data = dict(load_data(name))
    if name == "planner.yaml":  # memory items are cited one by one
        data.update({f"memory/{k}": v for k, v in data.pop("memory").items()})
    for key, entry in data.items():
        assert "citation" in entry, f"{name}: {key} has no citation"
        if entry["citation"] == "foretune-estimate":
            assert entry.get("note"), f"{name}: {key} is a foretune estimate without reasoning"


def test_citations_have_title_and_location() -> None:
    for cid, cit in citations().items():
        assert cit.title.strip() and cit.where.strip(), cid


@pytest.mark.parametrize("product", ["satellite", "orcharhino", "foreman"])
def test_every_known_version_resolves_to_a_generation(product: str) -> None:
    for version in known_versions(product):
        release = resolve_release(product, version)
        assert release.generation in ("passenger", "puma-prefork", "puma-event"), (product, version)


def test_generations_named_in_the_guides() -> None:
    assert resolve_release("satellite", "6.2").generation == "passenger"
    assert resolve_release("satellite", "6.9").generation == "puma-prefork"
    assert resolve_release("satellite", "6.15").generation == "puma-event"
    assert resolve_release("satellite", "6.15").features.qpid is False
    assert resolve_release("satellite", "6.9").features.mongodb is True


def test_citation_texts_are_not_cut_by_yaml_comments() -> None:
    for cid, cit in citations().items():
        for text in (cit.title, cit.where):
            assert text.count("(") == text.count(")"), f"{cid}: {text!r} looks truncated"


def test_compiled_json_equals_the_yaml() -> None:
    """compiled.json (built by dev.py; what foretune reads for speed) holds exactly what the YAML files say."""
    import json

    import yaml

    from foretune.knowledge import compile_data

    folder = resources.files("foretune.knowledge").joinpath("data")
    compiled = json.loads(compile_data())["files"]
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".yaml"))
    assert sorted(compiled) == names
    for name in names:
        assert compiled[name]["data"] == yaml.safe_load(folder.joinpath(name).read_text(encoding="utf-8")), name


def test_a_stale_compiled_entry_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    import foretune.knowledge as knowledge

    stale = {"releases.yaml": {"fingerprint": "00000000-0", "data": {"products": {}}}}
    monkeypatch.setattr(knowledge, "_compiled", lambda: stale)
    knowledge.load_data.cache_clear()
    try:
        assert "satellite" in knowledge.load_data("releases.yaml")["products"]
    finally:
        knowledge.load_data.cache_clear()
