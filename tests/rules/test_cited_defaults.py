"""Upstream defaults and thresholds the rules fall back on live in cited data, not in the rule modules.

Expected values are written by hand from the upstream files the citations name; the second half swaps the
data for other numbers and checks that the rules follow, so a constant put back into a rule fails here.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Callable

import pytest

import foretune.knowledge as knowledge
import foretune.knowledge.profiles as profiles
from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.knowledge import citation, module_default, module_default_citation, threshold_entries
from foretune.knowledge.profiles import newest_size_value
from foretune.rules.base import Outcome, Severity, Status
from foretune.rules.registry import all_rules
from tests.rules.test_rule_fixtures import FIXTURES, fact_set, load_fixture

RULES = {rule.id: rule for rule in all_rules()}


@pytest.mark.parametrize("key,field,value,cid", [
    ("passenger", "max_request_queue_size", 100, "passenger-queue-default"),
    ("httpd", "timeout", 60, "httpd-defaults"),
    ("httpd", "keepalive_timeout", 5, "httpd-defaults"),
    ("httpd", "max_keepalive_requests", 100, "httpd-defaults"),
    ("httpd_event", "serverlimit", 16, "httpd-event-defaults"),
    ("httpd_event", "threadsperchild", 25, "httpd-event-defaults"),
    ("candlepin_tomcat", "max_threads", 150, "candlepin-tomcat-threads"),
])
def test_module_defaults_carry_the_upstream_values(key: str, field: str, value: Any, cid: str) -> None:
    assert module_default(key, field) == value
    assert module_default_citation(key) == cid


def test_prefork_defaults_cite_prefork_pp() -> None:
    prefork = module_default("apache", "prefork")
    assert (prefork["serverlimit"], prefork["maxclients"], prefork["citation"]) == (256, 256, "apache-prefork-defaults")


@pytest.mark.parametrize("name,value,cid", [
    ("capsule_proxy_timeout_min", 600, "gf-proxy-timeout"),
    ("puma_threads_alternative", 5, "gf-puma-recommendations"),
    ("effective_cache_size_min_fraction", 0.5, "foretune-estimate"),
    ("shared_buffers_range_tolerance", 0.01, "foretune-estimate"),
    ("swap_min_fraction_accepted", 0.95, "foretune-estimate"),
])
def test_thresholds_carry_their_values_and_citations(name: str, value: Any, cid: str) -> None:
    entry = threshold_entries()[name]
    assert (entry["value"], entry["citation"]) == (value, cid)


def test_extra_large_heap_comes_from_the_installer_profile_data() -> None:
    assert newest_size_value("extra-large", "candlepin::java_opts") == "-Xms1024m -Xmx8192m"
    assert newest_size_value("extra-extra-large", "candlepin::java_opts") == "-Xms1024m -Xmx8192m"
    assert newest_size_value("large", "candlepin::java_opts") is None


@pytest.mark.parametrize("cid,repo,path,ref,excerpt", [
    ("passenger-queue-default", "phusion/passenger", "ext/common/ApplicationPool2/Options.h", "release-4.0.18",
     "maxRequestQueueSize     = 100;"),
    ("apache-prefork-defaults", "puppetlabs/puppetlabs-apache", "manifests/mod/prefork.pp", "1.10.0",
     "$serverlimit         = '256',"),
    ("pg-conf-defaults", "postgres/postgres", "src/backend/utils/misc/postgresql.conf.sample", "REL_15_20",
     "#max_connections = 100\t\t\t# (change requires restart)"),
    ("pg-conf-sample-90", "postgres/postgres", "src/backend/utils/misc/postgresql.conf.sample",
     "ab61df9e527dcedbd3bbefbcb8b634b0b72f2ad5", "#work_mem = 1MB\t\t\t\t# min 64kB"),
    ("pg-release-93-shared-buffers", "postgres/postgres", "doc/src/sgml/release-9.3.sgml",
     "02bb4bbc66ce2ce7ebfcb27a8a9e002ed9cadd2a", "the previous maximum was 32MB."),
    ("pg-release-94-defaults", "postgres/postgres", "doc/src/sgml/release-9.4.sgml",
     "a8b37ebe407f1916c5df22452cdbb1d00e2a409d", "The new defaults are 4MB and 64MB respectively."),
    ("httpd-defaults", "apache/httpd", "include/httpd.h", "2.4.62", "#define DEFAULT_TIMEOUT 60"),
    ("httpd-event-defaults", "apache/httpd", "server/mpm/event/event.c", "2.4.62", "#define DEFAULT_SERVER_LIMIT 16"),
    ("candlepin-tomcat-threads", "theforeman/puppet-candlepin", "templates/tomcat/server.xml.epp", "18.1.0",
     'maxThreads="150" scheme="https" secure="true"'),
])
def test_new_upstream_citations_name_file_tag_and_line(cid: str, repo: str, path: str, ref: str, excerpt: str) -> None:
    cit = citation(cid)
    assert (cit.kind, cit.repo, cit.path, cit.ref, cit.excerpt) == ("upstream", repo, path, ref, excerpt)
    assert cit.url == f"https://github.com/{repo}/blob/{ref}/{path}"


# --- the rules follow the data ---------------------------------------------------------------------------

Patch = Callable[..., None]


@pytest.fixture
def patch_data(monkeypatch: pytest.MonkeyPatch) -> Patch:
    """Replace module defaults, thresholds or installer size values for the rest of the test."""

    def apply(defaults: Callable[[dict[str, Any]], None] | None = None, thresholds: dict[str, Any] | None = None,
              sizes: dict[str, dict[str, Any]] | None = None) -> None:
        real = knowledge.load_data
        swapped: dict[str, Any] = {}
        if defaults:
            swapped["module-defaults.yaml"] = copy.deepcopy(real("module-defaults.yaml"))
            defaults(swapped["module-defaults.yaml"])
        if sizes:
            swapped["installer-tuning.yaml"] = {"steps": [{"since": "1.0", "sizes": sizes}]}

        def load(name: str) -> Any:
            return swapped[name] if name in swapped else real(name)

        monkeypatch.setattr(knowledge, "load_data", load)
        monkeypatch.setattr(profiles, "load_data", load)
        if thresholds:
            merged = {**threshold_entries(), **{k: {"value": v, "citation": "foretune-estimate"} for k, v in thresholds.items()}}
            monkeypatch.setattr(knowledge, "_thresholds", lambda: merged)

    return apply


def run(rule_id: str, fixture: str, facts: dict[str, Any], patch: Callable[[], None]) -> Outcome:
    """The rule on a fixture's facts (context built with the real data), run after ``patch``."""
    path = FIXTURES / rule_id / f"{fixture}.yaml"
    data = load_fixture(Path(path))
    data["facts"].update(facts)
    options = data.get("options") or {}
    ctx, _ = build_context(fact_set(path, data["facts"]), hosts=options.get("hosts"), bench=options.get("bench"))
    patch()
    return run_rule(RULES[rule_id], ctx)


def test_queue_saturated_reads_passengers_default_queue(patch_data: Patch) -> None:
    facts = {"passenger": {"PassengerMaxPoolSize": 20}}
    real = run("passenger-queue-saturated", "fail-pool-busy", facts, lambda: None)
    # 40 queued < Passenger's default 100: requests wait, none refused (medium)
    assert real.severity == Severity.MEDIUM and "all 20 Passenger processes busy" in real.message
    assert "of its PassengerMaxRequestQueueSize 100" in real.message
    out = run("passenger-queue-saturated", "fail-pool-busy", facts,
              lambda: patch_data(defaults=lambda d: d["passenger"].update(max_request_queue_size=40)))
    assert out.severity == Severity.CRITICAL and "at its PassengerMaxRequestQueueSize 40" in out.message


def test_queue_over_maxclients_reads_both_defaults(patch_data: Patch) -> None:
    facts = {"passenger": {"PassengerMaxPoolSize": 20}, "apache": {"mpm": "prefork"}}
    assert run("passenger-queue-over-maxclients", "fail-above", facts, lambda: None).status == Status.PASS  # 100 < 256

    def defaults(d: dict[str, Any]) -> None:
        d["passenger"]["max_request_queue_size"] = 300
        d["apache"]["prefork"].update(serverlimit=280, maxclients=290)

    out = run("passenger-queue-over-maxclients", "fail-above", facts, lambda: patch_data(defaults=defaults))
    assert out.status == Status.FAIL and out.current == 300 and "Apache's 280 MaxClients/ServerLimit" in out.message


def test_prefork_clients_over_connections_reads_prefork_and_postgresql_defaults(patch_data: Patch) -> None:
    facts = {"apache": {"mpm": "prefork"}, "postgresql": {"shared_buffers": "4GB"}}
    real = run("prefork-clients-over-connections", "fail-1170-vs-500", facts, lambda: None)
    assert (real.status, real.current, real.recommended) == (Status.FAIL, 100, 256)

    def defaults(d: dict[str, Any]) -> None:
        d["postgresql_by_version"]["max_connections"][-1]["value"] = 300  # the fixture's PostgreSQL version is unknown
        d["apache"]["prefork"].update(serverlimit=400, maxclients=400)

    out = run("prefork-clients-over-connections", "fail-1170-vs-500", facts, lambda: patch_data(defaults=defaults))
    assert (out.status, out.current, out.recommended) == (Status.FAIL, 300, 400)


def test_connection_exhaustion_reads_postgresqls_default(patch_data: Patch) -> None:
    facts = {"postgresql": {}}
    assert run("pg-connection-exhaustion", "fail-too-many-clients", facts, lambda: None).current == 100
    out = run("pg-connection-exhaustion", "fail-too-many-clients", facts,
              lambda: patch_data(defaults=lambda d: d["postgresql_by_version"]["max_connections"][-1].update(value=77)))
    assert out.current == 77 and "max_connections 77" in out.message


def test_proxy_timeout_reads_the_guides_value_and_apaches_timeout(patch_data: Patch) -> None:
    real = run("capsule-proxy-timeout", "fail-unset", {}, lambda: None)
    assert real.recommended == 600 and "(Apache's Timeout, 60 s by default)" in real.message
    out = run("capsule-proxy-timeout", "fail-unset", {}, lambda: patch_data(
        defaults=lambda d: d["httpd"].update(timeout=45), thresholds={"capsule_proxy_timeout_min": 900}))
    assert out.recommended == 900 and "(Apache's Timeout, 45 s by default)" in out.message
    assert [(f.target, f.value) for f in out.fixes] == [("apache::mod::proxy::proxy_timeout", 900)]


def test_tomcat_threads_reads_puppet_candlepins_default(patch_data: Patch) -> None:
    assert run("candlepin-tomcat-threads", "fail-384-puma-threads", {}, lambda: None).current == 150
    out = run("candlepin-tomcat-threads", "fail-384-puma-threads", {},
              lambda: patch_data(defaults=lambda d: d["candlepin_tomcat"].update(max_threads=400)))
    assert out.status == Status.PASS and "Tomcat maxThreads 400" in out.message


def test_out_of_memory_recommends_the_extra_large_profiles_heap(patch_data: Patch) -> None:
    facts = {"candlepin": {"java_opts": "-Xms1024m -Xmx4096m"}}
    real = run("candlepin-out-of-memory", "fail-heap-space", facts, lambda: None)
    assert real.recommended == "-Xms1024m -Xmx8192m" and "(the extra-large profiles give -Xmx8192m)" in real.message
    out = run("candlepin-out-of-memory", "fail-heap-space", facts,
              lambda: patch_data(sizes={"extra-large": {"candlepin::java_opts": "-Xms2048m -Xmx12288m"}}))
    assert out.recommended == "-Xms2048m -Xmx12288m" and "(the extra-large profiles give -Xmx12288m)" in out.message
    assert [(f.target, f.value) for f in out.fixes] == [("candlepin::java_opts", "-Xms2048m -Xmx12288m")]
