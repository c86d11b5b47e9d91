"""Every number in plan's foretune column comes from a cited constant, an installer value or a formula with cited inputs;
every quote foretune stores occurs verbatim in the guides; ``plan --explain`` shows quote, source and arithmetic."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from foretune.knowledge import citations
from foretune.knowledge.releases import known_versions
from foretune.plan import PlanInput, make_plan
from foretune.plan.model import Plan, Tunable
from tests.conftest import run_cli
from tests.plan.cases import CASES

GIB = 1024**3
DATA = Path(__file__).resolve().parents[2] / "src" / "foretune" / "knowledge" / "data"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _numeric(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?(MB|GB|kB|TB)", value) is not None)


def _plans() -> list[Plan]:
    plans = []
    for product in ("satellite", "orcharhino"):
        for version in known_versions(product):
            for role, hosts, cpus, ram in (("server", 3000, 4, 20), ("server", 8000, 8, 32), ("server", 30000, 32, 128),
                                           ("server", 90000, 96, 512), ("capsule", 3000, 4, 12)):
                plans.append(make_plan(PlanInput(product=product, version=version, hosts=hosts, cpus=cpus, ram_bytes=ram * GIB,
                                                 role=role, virtual=True, puppet_hosts=min(hosts, 1000))))
    plans.append(make_plan(PlanInput(product="foreman", version="3.16", hosts=3000, cpus=4, ram_bytes=8 * GIB, katello=False)))
    return plans


def _cited(t: Tunable) -> list[str]:
    known = set(citations()) | {"box"}
    setting = t.foretune
    problems = []
    if not setting.inputs:
        problems.append("a number with no recorded inputs")
    for inp in setting.inputs:
        if inp.citation not in known:
            problems.append(f"input {inp.name} cites unknown {inp.citation!r}")
    if not setting.formula and setting.inputs and setting.value not in [i.value for i in setting.inputs]:
        problems.append(f"no formula, yet {setting.value!r} is none of the inputs {[i.value for i in setting.inputs]}")
    return problems


def test_every_foretune_number_is_cited() -> None:
    failures = []
    plans = _plans()
    assert sum(1 for p in plans for t in p.tunables.values() if _numeric(t.foretune.value)) > 1000
    for plan in plans:
        for t in plan.tunables.values():
            if _numeric(t.foretune.value):
                failures += [f"{plan.release.label} {plan.input.role} {t.id}: {p}" for p in _cited(t)]
    assert failures == []


def test_the_check_catches_an_uncited_number() -> None:

    from foretune.plan.model import Input, Setting

    plan = make_plan(PlanInput(product="satellite", version="6.15", hosts=3000, cpus=4, ram_bytes=20 * GIB))
    t = plan.tunables["puma.threads_max"]
    bare = t._replace(foretune=Setting(17, "made up"))
    wrong = t._replace(foretune=Setting(17, "made up", (), "", (Input("x", 16, "no-such-citation"),)))
    assert _cited(bare) and _cited(wrong)


def _quotes() -> list[tuple[str, str]]:
    found = []

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "quote":
                    found.append((where, str(value)))
                else:
                    walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for item in node:
                walk(item, where)

    for path in sorted(p for p in DATA.glob("*.yaml") if not p.name.startswith("citations")):
        walk(yaml.safe_load(path.read_text(encoding="utf-8")), path.name)
    return found


@pytest.mark.needs_guides
def test_every_quote_in_the_data_occurs_in_the_guides() -> None:
    """Constants' own quote fields too (citations' quotes are checked per guide in tests/test_citations.py)."""
    from tests.support import seeds

    guides = seeds.all_guides_text()
    quotes = _quotes()
    assert len(quotes) >= 15
    missing = [f"{where}: {quote}" for where, quote in quotes if seeds.normalise(quote) not in guides]
    assert missing == []


def test_explain_prints_quote_source_and_arithmetic() -> None:
    argv = CASES["satellite-6.15-large"]
    result = run_cli("plan", *argv, "--explain", "puma.threads_max")
    assert result.status == 0, result.stderr
    assert "foretune: 16" in result.stdout
    assert "we recommend 16 threads with all the tuning profiles" in result.stdout
    assert "Tuning Foreman guide, 5.2.4" in result.stdout
    result = run_cli("plan", *argv, "--explain", "puma.workers")
    assert "arithmetic: max(2, min(min(18, max(12, 24))" in result.stdout
    assert "CPUs = 16" in result.stdout and "[pf-puma-formula]" in result.stdout
    result = run_cli("plan", *argv, "--explain", "postgresql.max_connections")
    assert "arithmetic: max(1000, ceil(" in result.stdout


def test_explain_unknown_tunable_is_one_line_exit_2() -> None:
    result = run_cli("plan", *CASES["satellite-6.15-large"], "--explain", "puma.nonsense")
    assert result.status == 2
    assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1
    assert "no tunable 'puma.nonsense'" in result.stderr


def _readme_choices() -> tuple[str, list[str]]:
    """The README's "Choices worth knowing" section and the guide quotes in it."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    choices = readme.split("## Choices worth knowing", 1)[1].split("\n## ", 1)[0]
    return choices, [q for q in re.findall(r'"([^"]*)"', choices) if len(q) >= 20]


def test_readme_choices_name_their_topics_with_quotes() -> None:
    choices, quotes = _readme_choices()
    assert len(quotes) >= 5
    for topic in ("Puma threads: 16", "**Memory.**", "**Connections.**"):
        assert topic in choices


@pytest.mark.needs_guides
def test_readme_choices_quote_the_guides_verbatim() -> None:
    from tests.support import seeds

    _, quotes = _readme_choices()
    guides = seeds.all_guides_text()
    assert [q for q in quotes if seeds.normalise(q) not in guides] == []


def test_explain_inputs_quote_only_the_sentence_carrying_their_number() -> None:
    # Tuning Foreman guide 5.2.4: the workers table ("medium 5000 – 10000 32 GiB 8 16 8 – 12") carries the range 8-12;
    # its sentences on threads ("we recommend 16 threads", "Keeping default 5 min/max threads") do not.
    result = run_cli("plan", "--product", "satellite", "--version", "6.15", "--cpus", "8", "--ram", "32G", "--hosts", "8000",
                     "--explain", "puma.workers")
    assert result.status == 0, result.stderr
    inputs = result.stdout.split("\ninputs:\n", 1)[1]
    low = inputs.split("    guide workers low = 8\n", 1)[1].split("\n    guide workers high", 1)[0]
    assert "medium 5000 – 10000 32 GiB 8 16 8 – 12" in low
    assert "we recommend 16 threads" not in low and "Keeping default 5 min/max threads" not in low


def test_explain_a_setting_input_quotes_the_sentence_naming_it_not_one_about_a_maximum() -> None:
    # Tuning Foreman guide 5.6: max_connections is in the block "max_connections: 1000 shared_buffers: 2GB ..."; the
    # shared_buffers sentence ("a maximum of 25% of your total system memory") says nothing of connections
    result = run_cli("plan", "--product", "satellite", "--version", "6.15", "--cpus", "8", "--ram", "32G", "--hosts", "2000",
                     "--explain", "postgresql.work_mem")
    assert result.status == 0, result.stderr
    inputs = result.stdout.split("\ninputs:\n", 1)[1]
    connections = inputs.split("\n    max_connections = ", 1)[1].split("\n    ", 1)[1].split("\n    RAM left", 1)[0]
    assert "max_connections: 1000 shared_buffers: 2GB work_mem: 8MB" in connections
    assert "a maximum of 25%" not in connections


def test_explain_applies_a_value_through_the_channel_every_other_output_uses() -> None:
    # foreman-installer 3.9 has --foreman-foreman-service-puma-workers; custom-hiera.yaml would win over it, so the
    # one-value view gives the option (as installer.sh does), never the hiera key
    argv = ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
    workers = run_cli(*argv, "--explain", "puma.workers").stdout
    assert "  --foreman-foreman-service-puma-workers 18\n" in workers
    assert "foreman::foreman_service_puma_workers: 18" not in workers
    # the large profile already gives ServerLimit 64: nothing to apply
    assert "apply: nothing to change" in run_cli(*argv, "--explain", "apache.server_limit").stdout


def test_explain_quotes_the_sentence_with_the_setting_written_with_hyphens_and_says_5_is_an_estimate() -> None:
    # the 6.2 brief, 5.12: "lower mgmt-pub-interval parameter from the default 10s to something lower (needs
    # tuning)"; "10" is no match for "echo 1000000", and the brief gives no value, so 5 is foretune's estimate
    result = run_cli("plan", "--product", "satellite", "--version", "6.2", "--hosts", "8000", "--cpus", "16",
                     "--physical-cores", "8", "--ram", "48G", "--katello-agent-hosts", "6000",
                     "--explain", "qpid.mgmt_pub_interval")
    assert result.status == 0, result.stderr
    top = result.stdout.split("\ninputs:\n", 1)[0]
    assert top.count("quote:") == 2 and top.count("to something lower (needs tuning)") == 2
    assert "aio-max-nr" not in top
    assert "[foretune-estimate]" in top
