"""Every citation proves itself: guide quotes occur verbatim in the guides, upstream files name a
repository, path and tag, and no foretune estimate claims a measurement no source reports."""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import pytest

from foretune.errors import DataError
from foretune.knowledge import _citation, citation, citations, load_data
from foretune.knowledge.model import CITATION_KINDS
from tests.support import seeds

DATA_FILES = sorted(p.name for p in resources.files("foretune.knowledge").joinpath("data").iterdir()
                    if p.name.endswith(".yaml") and not p.name.startswith("citations"))
QUOTED = [(cid, c) for cid, c in sorted(citations().items()) if c.kind in ("guide", "doc")]


@pytest.fixture(scope="module")
def guides() -> None:
    """Fail (never skip) with the paths tried when the guide texts are not beside the repository.

    Tests using it need the guide texts: tests/conftest.py leaves them out of a run where the texts
    are absent (and FORETUNE_SEEDS is unset), with one summary line."""
    try:
        seeds.seed_dir()
    except FileNotFoundError as exc:
        pytest.fail(str(exc))


def test_every_citation_says_how_it_is_proven() -> None:
    for cid, cit in citations().items():
        assert cit.kind in CITATION_KINDS, f"{cid}: kind {cit.kind!r} is not one of {CITATION_KINDS}"


@pytest.mark.parametrize("cid", [cid for cid, _ in QUOTED])
def test_quoted_citations_carry_short_quotes_with_their_figures(cid: str) -> None:
    cit = citation(cid)
    assert cit.quotes, f"{cid}: a {cit.kind} citation needs a verbatim quote"
    for quote in cit.quotes:
        assert quote.figure, f"{cid}: quote {quote.text[:50]!r}... names no figure"
        assert len(quote.text) <= 400, f"{cid}: quote longer than one or two sentences"
    if cit.kind == "doc":
        assert cit.url.startswith("https://"), f"{cid}: a quoted document needs its public address"


@pytest.mark.parametrize("cid", [cid for cid, c in QUOTED if c.kind == "guide"])
def test_guide_quotes_occur_in_their_guide(guides: None, cid: str) -> None:
    cit = citation(cid)
    assert cit.guide in seeds.GUIDE_SEEDS, f"{cid}: unknown guide {cit.guide!r}"
    text = seeds.guide_text(cit.guide)
    for quote in cit.quotes:
        assert seeds.normalise(quote.text) in text, f"{cid}: not verbatim in {cit.guide}: {quote.text!r}"


def test_an_altered_quote_is_caught(guides: None) -> None:
    assert seeds.normalise("Each Puma worker consumes around 1 GiB of RAM.") in seeds.guide_text("foreman-guide")
    assert seeds.normalise("Each Puma worker consumes around 2 GiB of RAM.") not in seeds.guide_text("foreman-guide")
    assert seeds.normalise("Each Puma worker consumes around 1 GiB of RAM.") not in seeds.guide_text("sat62-brief")


def test_normalise_ignores_layout_and_conversion_markup_only() -> None:
    assert seeds.normalise("a **tuned**\n  profile `x`") == "a tuned profile x"
    assert seeds.normalise(r"$1.5 * \text{Physical CPU Cores}$") == "1.5 Physical CPU Cores"
    assert seeds.normalise("2 to 5 seconds") != seeds.normalise("2 to 6 seconds")


@pytest.mark.parametrize("cid", sorted(cid for cid, c in citations().items() if c.kind == "upstream"))
def test_upstream_citations_name_repository_path_and_tag(cid: str) -> None:
    cit = citation(cid)
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", cit.repo), f"{cid}: repo {cit.repo!r}"
    assert cit.ref, f"{cid}: no release tag or commit"
    assert cit.path or cit.url, f"{cid}: neither a file path nor an address"
    assert not cit.quotes, f"{cid}: upstream files carry an excerpt, not a guide quote"
    assert cit.url.startswith("https://github.com/"), f"{cid}: url {cit.url!r}"


def test_estimates_carry_no_quotes() -> None:
    for cid, cit in citations().items():
        if cit.kind == "estimate":
            assert not cit.quotes and not cit.url, cid


def test_citation_api_gives_title_where_quote_figure_url() -> None:
    cit = citation("gf-postgresql")
    assert cit.title.startswith("Foreman tuning guide: 5.6 PostgreSQL tuning")
    assert cit.where == "Tuning Foreman guide, 5.6 PostgreSQL tuning"
    assert cit.quote == ("An optimal value for this will vary between 2 GiB to a maximum of 25% of your total "
                         "system memory depending upon the frequency of the operations being conducted on Foreman.")
    assert cit.figure == "shared_buffers 2 GiB to 25 % of RAM"
    assert cit.url == "https://docs.theforeman.org/nightly/Tuning_Performance/index-katello.html"
    assert [q.figure for q in cit.quotes][2] == "work_mem 8 MB"


def test_upstream_url_is_the_file_at_its_tag() -> None:
    cit = citation("pf-db-pool")
    assert cit.url == "https://github.com/theforeman/puppet-foreman/blob/25.0.0/manifests/config.pp"
    assert cit.quote == "" and cit.figure == ""
    assert cit.as_dict()["ref"] == "25.0.0" and "quote" not in cit.as_dict()


def test_as_dict_carries_every_quote() -> None:
    data = citation("g62-apache").as_dict()
    assert data["kind"] == "guide" and data["guide"] == "sat62-brief"
    assert data["figure"] == "KeepAliveTimeout 2-5 s"
    assert {"quote", "figure"} == set(data["quotes"][1]) and data["quotes"][1]["figure"] == "KeepAlive On"


def test_a_quote_without_text_is_a_data_error() -> None:
    with pytest.raises(DataError, match="needs quote and figure"):
        _citation("broken", {"title": "t", "where": "w", "kind": "guide", "quotes": [{"figure": "5"}]})


# --- defect class 7: no invented figures -------------------------------------------------------------

CLAIMS = re.compile(r"\b(tested|testing|tests|measured|measurements?|observed|benchmarked|served in|proven)\b", re.I)
QUOTE = re.compile(r'"([^"]{12,})"')


def estimate_notes() -> list[tuple[str, str]]:
    """Every note next to a figure that is a foretune estimate (by citation or by its own words)."""
    estimates = {cid for cid, c in citations().items() if c.kind == "estimate"}
    found = []
    for name in DATA_FILES:
        stack: list[tuple[str, Any]] = [(name, load_data(name))]
        while stack:
            where, node = stack.pop()
            if isinstance(node, dict):
                note = node.get("note")
                if isinstance(note, str) and (node.get("citation") in estimates or "estimate" in note.lower()):
                    found.append((where, note))
                stack += [(f"{where}/{k}", v) for k, v in node.items()]
            elif isinstance(node, list):
                stack += [(f"{where}[{i}]", v) for i, v in enumerate(node)]
    for cid, cit in citations().items():
        if cit.kind == "estimate":
            found.append((f"citation {cid}", cit.where))
    return found


def test_there_are_estimate_notes_to_check() -> None:
    assert len(estimate_notes()) >= 20


@pytest.mark.parametrize("where,note", estimate_notes())
def test_estimate_notes_claim_no_measurement_without_quoting_it(where: str, note: str) -> None:
    """A note may mention tests or measurements only by quoting the source that reports them (the quotes
    themselves are found in the guides by test_every_quote_in_an_estimate_note_is_verbatim)."""
    if CLAIMS.search(note):
        assert QUOTE.findall(note), f"{where}: claims a measurement without quoting a source: {note!r}"


@pytest.mark.parametrize("where,note", [(w, n) for w, n in estimate_notes() if QUOTE.search(n)])
def test_every_quote_in_an_estimate_note_is_verbatim(guides: None, where: str, note: str) -> None:
    everything = seeds.all_guides_text()
    for quote in QUOTE.findall(note):
        assert seeds.normalise(quote) in everything, f"{where}: quote not found in the guides: {quote!r}"


def test_the_claim_check_catches_the_old_wording() -> None:
    assert CLAIMS.search("concurrent jobs a 4 CPU Smart Proxy served in the guide's tests without failures")
    assert CLAIMS.search("about 500 hosts per CPU is the tested comfort zone")
    assert CLAIMS.search("resident sizes observed on busy servers")
    assert not CLAIMS.search("an estimate: a round starting point in the low hundreds")


# --- a constant cited to a quoted source shows up in that source's figures ----------------------------

# Values whose quoted citation does not state them. Each stays listed only while it still contradicts
# its quotes: fixing the value or its citation makes test_known_contradictions_still_hold fail as a
# reminder to remove the entry.
KNOWN_CONTRADICTIONS = {
    "module-defaults.yaml/mosquitto_nofile": "the guide states no default; 1024 is systemd's soft open-files limit",
    "module-defaults.yaml/puppet/runinterval": "the brief states no Puppet runinterval default",
}


def spellings(value: Any) -> list[str]:
    """How a guide may write ``value``: 0.25 as 25 %, 1.0 as 1, "8MB" as 8 MB."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, float):
        found = [f"{value:g}"]
        if 0 < value < 1:
            found += [f"{value * 100:g} %", f"{value * 100:g}%"]
        return found
    if isinstance(value, int):
        return [str(value)]
    if isinstance(value, str):
        unit = re.fullmatch(r"(\d+)\s*([KMG]B)", value)
        return [f"{unit[1]} {unit[2]}", f"{unit[1]}{unit[2]}"] if unit else [value]
    return []


def stated(value: Any, text: str) -> bool:
    return any(re.search(rf"(?<![\w.]){re.escape(s)}(?![\w])", text) for s in spellings(value))


def quoted_constants() -> list[tuple[str, Any, str]]:
    """(place, value, citation id) for constants in planner, thresholds and module defaults cited to a quote."""
    quoted = {cid for cid, c in citations().items() if c.kind in ("guide", "doc")}
    found = []
    for name in [n for n in DATA_FILES if n.startswith(("planner", "thresholds", "module-defaults"))]:
        for key, entry in load_data(name).items():
            if not isinstance(entry, dict):
                continue
            groups = [(f"{name}/{key}", entry)] + [(f"{name}/{key}/{k}", v) for k, v in entry.items()
                                                   if isinstance(v, dict) and "citation" in v]
            for place, group in groups:
                if group.get("citation") not in quoted:
                    continue
                values = {place: group["value"]} if "value" in group else {
                    f"{place}/{k}": v for k, v in group.items() if k not in ("citation", "note")}
                found += [(p, v, group["citation"]) for p, v in values.items() if spellings(v)]
    return found


def figure_text(cid: str) -> str:
    cit = citation(cid)
    return " ".join(f"{q.figure} {seeds.normalise(q.text)}" for q in cit.quotes)


@pytest.mark.parametrize("place,value,cid", [c for c in quoted_constants() if c[0] not in KNOWN_CONTRADICTIONS])
def test_constants_cited_to_a_quote_are_stated_there(place: str, value: Any, cid: str) -> None:
    assert stated(value, figure_text(cid)), f"{place} = {value!r}: {cid} quotes no such figure"


@pytest.mark.parametrize("place", sorted(KNOWN_CONTRADICTIONS))
def test_known_contradictions_still_hold(place: str) -> None:
    matches = [(v, cid) for p, v, cid in quoted_constants() if p == place]
    assert matches, f"{place} no longer cites a quoted source: remove it from KNOWN_CONTRADICTIONS"
    for value, cid in matches:
        assert not stated(value, figure_text(cid)), f"{place} now matches {cid}: remove it from KNOWN_CONTRADICTIONS"


def test_figure_matching_is_exact() -> None:
    assert stated(0.25, "shared_buffers 15-25 % of RAM") and stated("8MB", "work_mem 8 MB")
    assert not stated(5, "KeepAliveTimeout 15 s") and not stated(250, "queue 2500")
    assert len(quoted_constants()) >= 25


def test_missing_guide_texts_fail_with_the_paths_tried(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seeds, "REPO", tmp_path / "clone")
    monkeypatch.setenv("FORETUNE_SEEDS", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="guide texts not found") as err:
        seeds.seed_dir()
    assert str(tmp_path / "shared" / "seeds") in str(err.value) and "FORETUNE_SEEDS" in str(err.value)


def test_guide_texts_sit_beside_the_repository_or_its_main_checkout(guides: None) -> None:
    found = seeds.seed_dir()
    assert found.name == "seeds" and found.parent.name == "shared"
    assert all(any(found.glob(prefix + "*.txt")) for prefix in seeds.GUIDE_SEEDS.values())
