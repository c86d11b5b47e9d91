"""`render --merge-into` is a ruamel.yaml round trip over real-looking custom-hiera files.

Property: for every file of the corpus, merging values (and removing keys) gives a file in which what was set
reads back as set under two YAML loaders, the rest as before and the removed keys gone (tests/support/hiera_oracle.py,
not merge.py's own expectation), and every comment line of the original survives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from foretune.render.merge import PG, merge_text
from tests.conftest import run_cli
from tests.support.hiera_oracle import check_merge, owned_by_removed

CORPUS = Path(__file__).parent / "fixtures" / "custom-hiera"
FILES = {path.name: path.read_text(encoding="utf-8") for path in sorted(CORPUS.glob("*.yaml"))}

KEYS = ["foreman::foreman_service_puma_workers", "foreman::foreman_service_puma_threads_max", "foreman::db_pool",
        "foreman::dynflow_worker_instances", "foreman::dynflow_worker_concurrency", "candlepin::java_opts",
        "foreman_proxy_content::pulpcore_worker_count", "apache::mod::event::serverlimit", "redis::maxmemory",
        "foreman::new_key"]
PG_NAMES = ["max_connections", "shared_buffers", "work_mem", "effective_cache_size", "checkpoint_segments",
            "autovacuum_vacuum_cost_limit"]
scalars = st.one_of(st.integers(0, 100_000), st.sampled_from(["8GB", "512mb", "-Xms1024m -Xmx4096m", "on", "yes", "0755",
                                                             "a: b", "#x", "null", "1e3"]), st.booleans())


def comment_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("#")]


def removable(text: str) -> list[str]:
    """Top-level scalar keys and PostgreSQL entries of ``text`` (what a stale-key removal can name)."""
    data = yaml.safe_load(text) or {}
    paths = [k for k, v in data.items() if not isinstance(v, (dict, list))]
    return paths + [f"{PG}/{name}" for name in (data.get(PG) or {})]


@st.composite
def merges(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str]]:
    name = draw(st.sampled_from(sorted(FILES)))
    text = FILES[name]
    values: dict[str, Any] = draw(st.dictionaries(st.sampled_from(KEYS), scalars, max_size=5))
    if draw(st.booleans()):
        values[PG] = draw(st.dictionaries(st.sampled_from(PG_NAMES), scalars, min_size=1, max_size=4))
    options = [p for p in removable(text) if p not in values and p.split("/", 1)[-1] not in values.get(PG, {})]
    remove = draw(st.lists(st.sampled_from(options), unique=True, max_size=3)) if options else []
    return text, values, remove


@settings(max_examples=300, deadline=None)
@given(merges())
def test_merge_parses_as_merged_dicts_and_keeps_every_comment_line(case: tuple[str, dict[str, Any], list[str]]) -> None:
    text, values, remove = case
    merged = merge_text(text, values, remove=remove)
    check_merge(text, merged, values, remove)  # an oracle of its own, not merge.py's expected_after
    removed_lines = {line.strip() for line in text.splitlines()
                     if any(line.strip().startswith((p.split("/")[-1] + ":", f"'{p}'", f'"{p}"')) for p in remove)}
    gone = owned_by_removed(text, remove)
    lines = text.splitlines()
    nested = {p.split("/", 1)[1] for p in remove if "/" in p}
    kept = [line.strip() for i, line in enumerate(lines) if line.strip().startswith("#") and i not in gone
            and not (line.startswith(" ") and i + 1 < len(lines) and lines[i + 1].strip().split(":")[0] in nested)]
    kept = [c for c in kept if not any(line.endswith(c) for line in removed_lines)]
    merged_lines = [line.strip() for line in merged.splitlines()]
    for comment in kept:
        assert any(line.endswith(comment) for line in merged_lines), comment
    for i in gone:  # a comment written above a removed key goes with it: none is left orphaned under another key
        if lines[i].strip() not in kept:
            assert lines[i].strip() not in merged_lines, lines[i]
    assert merge_text(merged, values, remove=remove) == merged  # idempotent


@pytest.mark.parametrize("name", sorted(FILES))
def test_nothing_to_set_leaves_every_file_byte_for_byte(name: str) -> None:
    assert merge_text(FILES[name], {}) == FILES[name]


def test_layout_survives_a_merge() -> None:
    merged = merge_text(FILES["satellite-6.9-puma.yaml"], {PG: {"work_mem": "8MB"}, "foreman::db_pool": 9})
    lines = merged.splitlines()
    assert lines[0] == "---" and lines[-1] == "..."  # document markers
    assert "    work_mem: 8MB" in lines and "    max_connections: 1000" in lines  # its 4-space indentation
    assert "foreman::db_pool: 9" in lines
    order = [line.split(": ")[0] for line in lines if line and not line.startswith((" ", "#", "-", "."))]
    assert order[:5] == ["foreman::foreman_service_puma_workers", "foreman::foreman_service_puma_threads_min",
                         "foreman::foreman_service_puma_threads_max", "foreman::db_pool", "foreman::dynflow_worker_instances"]


def test_anchors_aliases_quotes_and_list_indentation_survive() -> None:
    anchored = merge_text(FILES["satellite-6.15-anchors.yaml"], {"foreman::foreman_service_puma_workers": 18,
                                                                 PG: {"work_mem": "8MB"}})
    assert "common_logging: &logging" in anchored and "foreman::logging: *logging" in anchored
    assert "pulpcore_workers: &pulp_workers 8" in anchored and "*pulp_workers" in anchored
    assert "  'effective_cache_size': \"32GB\"" in anchored  # its quoting
    assert "foreman::foreman_service_puma_workers: 18" in anchored
    lists = merge_text(FILES["foreman-3.16-lists.yaml"], {"foreman::db_pool": 9})
    assert "  - 10.0.0.0/8" in lists.splitlines()


def test_new_strings_yaml_1_1_would_misread_are_quoted() -> None:
    merged = merge_text("a: 1\n", {"b": "on", "c": "0755"})
    assert yaml.safe_load(merged) == {"a": 1, "b": "on", "c": "0755"}


PLAN_62_ON_615 = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]


def test_remove_stale_drops_what_audit_reports_and_keeps_the_rest(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    original = FILES["satellite-6.2-passenger.yaml"]
    target.write_text(original, encoding="utf-8")
    kept = run_cli("render", *PLAN_62_ON_615, "--merge-into", str(target), "--write")
    assert kept.status == 0 and "apache::mod::passenger::passenger_max_pool_size" in target.read_text(encoding="utf-8")
    assert "add --remove-stale" in kept.stderr
    # a key the release refuses goes without asking: PostgreSQL 12 does not start with checkpoint_segments
    # (removed in 9.5, fi-checkpoint-segments-removed); the inert Passenger keys above stay until asked
    assert "checkpoint_segments" not in yaml.safe_load(target.read_text(encoding="utf-8"))[PG]
    assert "stale key postgresql::server::config_entries/checkpoint_segments" in kept.stderr and "— removed" in kept.stderr
    target.write_text(original, encoding="utf-8")
    result = run_cli("render", *PLAN_62_ON_615, "--merge-into", str(target), "--write", "--remove-stale")
    assert result.status == 0, result.stderr
    data = yaml.safe_load(target.read_text(encoding="utf-8"))
    stale = [k for k in data if k.startswith(("apache::mod::passenger::", "foreman::passenger", "qpid::", "mongodb::"))]
    assert stale == []
    assert "checkpoint_segments" not in data[PG]
    assert data[PG]["checkpoint_completion_target"] == 0.9  # unrelated entries stay
    assert "stale key qpid::mgmt_pub_interval" in result.stderr and "— removed" in result.stderr
    new = target.read_text(encoding="utf-8")
    assert "# /etc/foreman-installer/custom-hiera.yaml" in new.splitlines()  # the file's own header stays
    # each section heading goes with its section (every key under it was removed), and render names it: nothing is
    # left to speak for a key that is gone, nothing leaves unsaid
    for key, comment in [("apache::mod::passenger::passenger_max_pool_size", "Passenger: 1.5 x physical cores"),
                         ("qpid::router::open_file_limit", "qpid: bigger journal for katello-agent"),
                         ("mongodb::server::config_data", "MongoDB for Pulp 2"),
                         ("apache::mod::passenger::passenger_max_request_queue_size",
                          "default 100 overflowed during registration storms"),
                         (f"{PG}/checkpoint_segments", "removed in PostgreSQL 9.5")]:
        assert comment not in new
        assert f"{key}: the site's comment \"{comment}\" went with it" in result.stderr
    assert new.startswith('# /etc/foreman-installer/custom-hiera.yaml\n# Tuned 2017-03 after the "Satellite 6.2 '
                          'performance" brief (ticket INFRA-4411).\n---\npostgresql::server::config_entries:\n')
    again = run_cli("render", *PLAN_62_ON_615, "--merge-into", str(target), "--remove-stale")
    assert "nothing to change" in again.stdout and "stale key" not in again.stderr  # the site's own values are kept


def test_the_merge_oracle_catches_a_wrong_merge() -> None:
    before = "a: 1\nb: 'on'\npostgresql::server::config_entries:\n  work_mem: 4MB\n  max_connections: 500\n"
    good = "a: 2\nb: 'on'\npostgresql::server::config_entries:\n  work_mem: 8MB\n  max_connections: 500\n"
    values = {"a": 2, PG: {"work_mem": "8MB"}}
    check_merge(before, good, values)
    for wrong in (good.replace("b: 'on'", "b: on"),  # a string that YAML 1.1 reads as true
                  good.replace("  max_connections: 500\n", ""),  # an entry not set was lost
                  good.replace("work_mem: 8MB", "work_mem: 4MB"),  # the value was not set
                  good + "c: 3\n"):  # a key appeared
        with pytest.raises(AssertionError):
            check_merge(before, wrong, values)
    with pytest.raises(AssertionError):  # set as a string but written so YAML 1.2 reads a number
        check_merge("a: 1\n", "a: 1e3\n", {"a": "1e3"})


def test_removing_a_stale_entry_beside_a_merge_key_keeps_the_comment_of_the_next_key() -> None:
    # a comment line above a top-level key documents that key: removing the stale entry above it (in a hash that
    # takes other entries through a << merge key) must leave it where it is
    from foretune.render.merge import merge_text

    text = ("---\npg_defaults: &pg\n  work_mem: 8MB\npostgresql::server::config_entries:\n  <<: *pg\n  max_connections: 500\n"
            "  checkpoint_segments: 32\n# locked puma settings from 2021 review\nforeman::foreman_service_puma_workers: 24\n")
    assert merge_text(text, {}, remove=["postgresql::server::config_entries/checkpoint_segments"]) == (
        "---\npg_defaults: &pg\n  work_mem: 8MB\npostgresql::server::config_entries:\n  <<: *pg\n  max_connections: 500\n"
        "# locked puma settings from 2021 review\nforeman::foreman_service_puma_workers: 24\n")


def test_a_crlf_file_keeps_its_document_marker_and_line_endings() -> None:
    text = "---\r\n# heap\r\ncandlepin::java_opts: '-Xms1024m -Xmx2048m'\r\npostgresql::server::config_entries:\r\n  work_mem: 2MB # small\r\n"
    merged = merge_text(text, {PG: {"work_mem": "8MB"}})
    assert merged == text.replace("work_mem: 2MB", "work_mem: 8MB")
    assert merge_text(text, {}) == text
