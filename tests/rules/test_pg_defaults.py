"""PostgreSQL's defaults follow the server release in force.

Expected values are written by hand from the sources the citations name: postgresql.conf.sample in the
9.0 development cycle (work_mem 1MB, effective_cache_size 128MB, shared_buffers 32MB, max_connections 100,
vacuum_cost_limit 200), the 9.2 manual (shared_buffers typically 32MB), the 9.3 release notes (initdb's
shared_buffers up to 128MB, 32MB before) and the 9.4 release notes (work_mem 4MB, effective_cache_size 4GB).
"""

from __future__ import annotations

from typing import Any

import pytest

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.errors import DataError
from foretune.facts import read_source
from foretune.facts.model import Fact, FactSet
from foretune.knowledge import citation, postgresql_default
from foretune.rules.base import Context, Status
from foretune.rules.postgresql._defaults import cited, major, pg_default
from foretune.rules.registry import get_rule
from tests.conftest import REPO

SOS = REPO / "tests" / "fixtures" / "sosreports"


@pytest.mark.parametrize("setting,version,value,since,cid", [
    ("work_mem", "9.2.23", "1MB", "9.0", "pg-conf-sample-90"),
    ("work_mem", "9.3.25", "1MB", "9.0", "pg-conf-sample-90"),
    ("work_mem", "9.4.0", "4MB", "9.4", "pg-release-94-defaults"),
    ("work_mem", "12.18", "4MB", "9.4", "pg-release-94-defaults"),
    ("work_mem", None, "4MB", "9.4", "pg-release-94-defaults"),
    ("effective_cache_size", "9.2.23", "128MB", "9.0", "pg-conf-sample-90"),
    ("effective_cache_size", "9.3.25", "128MB", "9.0", "pg-conf-sample-90"),
    ("effective_cache_size", "9.4.26", "4GB", "9.4", "pg-release-94-defaults"),
    ("effective_cache_size", "13.4", "4GB", "9.4", "pg-release-94-defaults"),
    ("shared_buffers", "9.2.23", "32MB", "9.0", "pg-docs-92-shared-buffers"),
    ("shared_buffers", "9.3.0", "128MB", "9.3", "pg-release-93-shared-buffers"),
    ("shared_buffers", None, "128MB", "9.3", "pg-release-93-shared-buffers"),
    ("max_connections", "9.2.23", 100, "9.0", "pg-conf-sample-90"),
    ("max_connections", "12.5", 100, "9.0", "pg-conf-sample-90"),
    ("vacuum_cost_limit", "9.2.23", 200, "9.0", "pg-conf-sample-90"),
    ("vacuum_cost_limit", None, 200, "9.0", "pg-conf-sample-90"),
    ("work_mem", "8.4.20", "1MB", "9.0", "pg-conf-sample-90"),  # older than the history: its oldest step
])
def test_default_by_server_release(setting: str, version: str | None, value: Any, since: str, cid: str) -> None:
    step = postgresql_default(setting, version)
    assert (step["since"], step["value"], step["citation"]) == (since, value, cid)


def test_unknown_setting_is_a_data_error() -> None:
    with pytest.raises(DataError, match="no PostgreSQL default for 'wal_buffers'"):
        postgresql_default("wal_buffers", "12.18")


def test_every_step_cites_a_source_with_a_tag_or_quote() -> None:
    assert citation("pg-docs-92-shared-buffers").quote == (
        "The default is typically 32 megabytes (32MB), but might be less if your kernel settings will not support it "
        "(as determined during initdb).")
    assert citation("pg-docs-92-shared-buffers").url == (
        "https://access.crunchydata.com/documentation/postgresql92/9.2.23/runtime-config-resource.html")
    assert citation("pg-release-94-defaults").url == (
        "https://github.com/postgres/postgres/blob/a8b37ebe407f1916c5df22452cdbb1d00e2a409d/doc/src/sgml/release-9.4.sgml")


def test_major_release() -> None:
    assert (major("9.2.23"), major("9.4"), major("12.18"), major("13")) == ("9.2", "9.4", "12", "13")


def context(name: str, *, drop: tuple[str, ...] = ()) -> Context:
    facts = read_source(str(SOS / name))
    for fact in drop:
        facts.facts[fact] = Fact.unknown(fact, "left out by the test")
    ctx, _ = build_context(facts, hosts=8000)
    return ctx


def test_satellite_62_runs_postgresql_92_whose_work_mem_is_1mb() -> None:
    ctx = context("satellite-6.2")
    work_mem = pg_default(ctx, "work_mem")
    assert (work_mem.value, work_mem.version, work_mem.citation) == ("1MB", "9.2.23", "pg-conf-sample-90")
    assert work_mem.shown == "1MB (unset: PostgreSQL 9.2's default)"
    assert [(e.fact, e.location) for e in work_mem.evidence(ctx)] == [
        ("postgresql default", "citation pg-conf-sample-90"), ("postgresql_version", "installed-rpms")]
    assert work_mem.evidence(ctx)[0].excerpt == "work_mem = 1MB from PostgreSQL 9.0 on (PostgreSQL 9.2's default)"
    assert work_mem.evidence(ctx)[1].excerpt.startswith("postgresql-server-9.2.23-3.el7_4.x86_64")
    assert (pg_default(ctx, "effective_cache_size").value, pg_default(ctx, "shared_buffers").value) == ("128MB", "32MB")
    # a Passenger-era plan has no work_mem tunable: the rule is skipped whatever the default
    assert run_rule(get_rule("pg-work-mem-low"), ctx).message == "not applicable to Satellite 6.2 (Foreman 1.11) servers"


def test_satellite_615_runs_postgresql_12_whose_work_mem_is_4mb() -> None:
    ctx = context("satellite-6.15")
    work_mem = pg_default(ctx, "work_mem")
    assert (work_mem.value, work_mem.version, work_mem.citation) == ("4MB", "12.18", "pg-release-94-defaults")
    assert work_mem.origin == "PostgreSQL 12's default"


def test_unknown_version_takes_the_newest_default_and_says_so() -> None:
    ctx = context("satellite-6.2", drop=("postgresql_version",))
    work_mem = pg_default(ctx, "work_mem")
    assert (work_mem.value, work_mem.version, work_mem.citation) == ("4MB", None, "pg-release-94-defaults")
    assert work_mem.shown == "4MB (unset: PostgreSQL's newest default, server version unknown)"
    assert [(e.fact, e.excerpt) for e in work_mem.evidence(ctx)] == [
        ("postgresql default", "work_mem = 4MB from PostgreSQL 9.4 on (PostgreSQL's newest default, server version unknown)")]


def test_a_server_older_than_the_history_says_which_default_it_got() -> None:
    facts = FactSet("fixture", "test")
    facts.add(Fact("postgresql_version", "8.4.20", ()))
    ctx = Context(facts=facts, release=None, role="server", hosts=None)
    assert pg_default(ctx, "work_mem").origin == "PostgreSQL 8.4 predates the defaults foretune knows: 9.0's default"


def test_findings_cite_the_step_that_applied() -> None:
    rule = get_rule("pg-work-mem-low")
    ctx = context("satellite-6.2")
    assert cited(rule, pg_default(ctx, "work_mem"))["citations"] == ("gf-postgresql", "pg-conf-sample-90")
    assert cited(rule, pg_default(context("satellite-6.15"), "work_mem"))["citations"] == ("gf-postgresql", "pg-release-94-defaults")


def test_unset_max_connections_on_satellite_62_is_postgresql_92s_100() -> None:
    ctx = context("satellite-6.2")  # prefork MaxClients 256 in etc/httpd/conf.modules.d/prefork.conf
    ctx.facts.facts["postgresql"] = Fact("postgresql", {"shared_buffers": "256MB"}, ctx.facts["postgresql"].provenance)
    out = run_rule(get_rule("prefork-clients-over-connections"), ctx)
    assert (out.status, out.current, out.recommended) == (Status.FAIL, 100, 256)
    assert "but max_connections is 100 (unset: PostgreSQL 9.2's default)" in out.message
    assert ("postgresql default", "citation pg-conf-sample-90") in [(e.fact, e.location) for e in out.evidence]
    assert out.citations == ("g62-postgresql", "apache-prefork-defaults", "pg-conf-sample-90")


def test_a_configured_setting_cites_none_of_the_default_history() -> None:
    out = run_rule(get_rule("pg-work-mem-low"), context("satellite-6.15"))  # work_mem = 4MB in postgresql.conf
    assert (out.status, out.current) == (Status.FAIL, "4MB")
    assert out.citations == ("gf-postgresql",)
