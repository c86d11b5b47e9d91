"""Rule messages word their figures from the data they restate: change the figure in the data and the text follows.

The first assertion of each test pins today's text by hand (from the cited data); the second swaps the data for
another figure, so a number written back into a message fails here.
"""

from __future__ import annotations

import pytest

from foretune.audit.context import build_context
from foretune.knowledge import load_data, module_default, threshold
from foretune.rules.base import Status
from foretune.rules.capacity.memory_over_ram import running_memory
from foretune.rules.storage._nfs import option_problems
from foretune.units import MIB, format_bytes
from tests.rules.test_cited_defaults import FIXTURES, RULES, Patch, fact_set, load_fixture, patch_data, run  # noqa: F401 (fixture)


def test_development_profile_names_the_profiles_hardware(monkeypatch: pytest.MonkeyPatch) -> None:
    # hardware.yaml, from the installer's tuning hook: development: {cores: 1, ram_gib: 6}
    out = run("development-profile-in-use", "fail-development", {}, lambda: None)
    assert out.message.startswith("the development profile is for test boxes (1 CPU, 6 GiB); it is not sized for hosts")
    monkeypatch.setitem(load_data("hardware.yaml")["profiles"], "development", {"cores": 2, "ram_gib": 8})
    out = run("development-profile-in-use", "fail-development", {}, lambda: None)
    assert out.message.startswith("the development profile is for test boxes (2 CPUs, 8 GiB); it is not sized for hosts")


def test_storage_latency_names_the_block_sizes_bench_uses(patch_data: Patch) -> None:  # noqa: F811
    # thresholds-bench.yaml: bench-fsync-block 8192 (PostgreSQL's WAL block), bench-lat-block 4096
    assert "99 % of 8 KiB writes each followed by fdatasync take up to 35.2 ms" in run(
        "storage-latency-high", "fail-slow-flush", {}, lambda: None).message
    assert "99 % of random 4 KiB reads, one at a time take up to 45.0 ms" in run(
        "storage-latency-high", "fail-slow-reads", {}, lambda: None).message
    patched = lambda: patch_data(thresholds={"bench-fsync-block": 16384, "bench-lat-block": 65536})  # noqa: E731
    assert "99 % of 16 KiB writes each followed by fdatasync" in run("storage-latency-high", "fail-slow-flush", {}, patched).message
    assert "99 % of random 64 KiB reads, one at a time" in run("storage-latency-high", "fail-slow-reads", {}, patched).message


def test_hardware_below_profile_names_the_ram_allowance(monkeypatch: pytest.MonkeyPatch) -> None:
    # the installer's tuning hook accepts 90 % of the profile's RAM: large needs 16 CPUs, 64 GiB
    out = run("hardware-below-profile", "fail-large-on-32g", {}, lambda: None)
    assert "16 CPUs, 64 GiB (90 % = 57.6 GiB)" in out.message
    monkeypatch.setitem(load_data("hardware.yaml")["ram_allowance"], "value", 0.8)
    out = run("hardware-below-profile", "fail-large-on-32g", {}, lambda: None)
    assert "16 CPUs, 64 GiB (80 % = 51.2 GiB)" in out.message


def test_running_puma_workers_are_worded_from_the_worker_size(monkeypatch: pytest.MonkeyPatch) -> None:
    path = FIXTURES / "memory-budget-over-ram" / "fail-40-workers-32g.yaml"
    data = load_fixture(path)

    def puma_reason() -> str:
        ctx, _ = build_context(fact_set(path, data["facts"]), hosts=(data.get("options") or {}).get("hosts"))
        return next(m.reason for m in running_memory(ctx) if m.component == "Foreman (Puma)")

    assert puma_reason() == "40 workers in force x ~1 GiB (guide)"  # planner.yaml memory/puma_worker: 1.0 GiB
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["puma_worker"], "high", 1.5)
    assert puma_reason() == "40 workers in force x ~1.5 GiB (guide)"


def test_nfs_transfer_size_is_the_mounts_own() -> None:
    out = run("nfs-under-postgresql", "fail-soft-nolock-small-io", {}, lambda: None)
    assert out.status == Status.FAIL and "rsize=32768: every transfer moves at most 32 KiB" in out.message
    # an odd size is shown as it is, not cut to whole KiB
    assert option_problems(["hard", "rsize=1536"], 65536)[0][0].startswith("rsize=1536: every transfer moves at most 1.5 KiB,")


def _planner(key: str) -> object:
    return load_data("planner.yaml")[key]["value"]


# rule id -> the title's figure, formatted from the data the rule's check reads (titles are static: the generated
# docs and the rules table show them); a data change that leaves a title behind fails here, naming the title
TITLE_FIGURES = {
    "swap-not-configured": lambda: format_bytes(threshold("swap_min_bytes")),  # "At least 4 GiB of swap configured"
    "qpidd-storage-low": lambda: f"{format_bytes(float(_planner('qpidd_storage_per_host_mib')) * MIB)} per katello-agent host",
    "mongodb-cache-unbounded": lambda: f"about {float(module_default('mongodb_cache_fraction')) * 100:g} % of RAM",
    "passenger-pool-below-cores": lambda: f"at least {_planner('passenger_pool_per_core')} x physical cores",
    "apache-keepalive-timeout": lambda: f"between {threshold('keepalive_timeout_min')} and {threshold('keepalive_timeout_max')} seconds",
    "pulpcore-workers-high": lambda: f"at most min({module_default('pulpcore', 'workers_cap')}, CPUs)",
    "pulp2-concurrency-high": lambda: f"at most min(CPUs, {module_default('pulp2', 'workers_cap')})",
    "sidekiq-concurrency-high": lambda: f"at most {_planner('sidekiq_concurrency')}",
    "fs-aio-max-nr-low": lambda: f"above {_planner('aio_per_host')} x hosts",
    "puma-threads-min-below-max": lambda: f"({_planner('puma_threads')} with every profile)",
}


@pytest.mark.parametrize("rule_id", sorted(TITLE_FIGURES))
def test_rule_titles_agree_with_the_data(rule_id: str) -> None:
    assert TITLE_FIGURES[rule_id]() in RULES[rule_id].title, (rule_id, RULES[rule_id].title)
