"""Invariants that hold for every box and workload the planner accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foretune.knowledge.releases import known_versions, resolve_release
from foretune.plan import PlanInput, make_plan

GIB = 1024**3

releases = st.sampled_from([("satellite", v) for v in known_versions("satellite")]
                           + [("orcharhino", v) for v in known_versions("orcharhino")]
                           + [("foreman", "3.16"), ("foreman", "1.24"), ("foreman", "2.4")])


@st.composite
def plan_inputs(draw: st.DrawFn) -> PlanInput:
    product, version = draw(releases)
    hosts = draw(st.integers(0, 120_000))
    cpus = draw(st.integers(1, 128))
    return PlanInput(
        product=product, version=version, hosts=hosts, cpus=cpus,
        ram_bytes=draw(st.integers(4, 1024)) * GIB,
        role=draw(st.sampled_from(["server", "capsule"])),
        virtual=draw(st.sampled_from([None, True, False])),
        katello_agent_hosts=draw(st.integers(0, hosts)) if resolve_release(product, version).features.qpid else 0,
        puppet_hosts=draw(st.integers(0, hosts)),
    )


@settings(max_examples=150, deadline=None)
@given(plan_inputs())
def test_plan_is_consistent(inp: PlanInput) -> None:
    plan = make_plan(inp)
    t = plan.tunables
    if "apache.max_request_workers" in t:
        assert t["apache.max_request_workers"].foretune.value <= (
            t["apache.server_limit"].foretune.value * t["apache.threads_per_child"].foretune.value)
    if "postgresql.max_connections" in t:
        budget = sum(n for _, n in plan.connection_budget)
        assert t["postgresql.max_connections"].foretune.value >= budget
        assert t["postgresql.max_connections"].foretune.value >= t["postgresql.max_connections"].installer.value
    if "puma.workers" in t:
        workers = t["puma.workers"].foretune.value
        assert 2 <= workers <= max(2, inp.cpus * 1.5)
        assert t["puma.threads_min"].foretune.value == t["puma.threads_max"].foretune.value
        assert t["foreman.db_pool"].foretune.value == t["puma.threads_max"].foretune.value + 4
    if "pulp.workers" in t:  # puppet-pulpcore 1.1.0 (foreman-installer 2.1) runs two, whatever the CPUs
        assert t["pulp.workers"].foretune.value == (min(8, inp.cpus) if plan.release.features.pulpcore_worker_count_option else 2)
    if "qpidd.limit_nofile" in t and inp.katello_agent_hosts:
        assert t["qpidd.limit_nofile"].foretune.value >= 4 * inp.katello_agent_hosts + 500
        assert t["qdrouterd.limit_nofile"].foretune.value >= 3 * inp.katello_agent_hosts + 100
        assert t["sysctl.fs_aio_max_nr"].foretune.value > 33 * inp.katello_agent_hosts
    if inp.role == "capsule":
        assert "puma.workers" not in t and "postgresql.max_connections" not in t
    # one problem, one finding: a box is either over its RAM or tight, never both; neither when the plan fits
    codes = {p.code for p in plan.problems}
    assert not {"memory-over-ram", "memory-tight"} <= codes
    if codes & {"memory-over-ram", "memory-tight"}:
        assert sum(m.bytes for m in plan.memory) > inp.ram_bytes
    for m in plan.memory:
        assert m.low_bytes <= m.bytes <= m.high_bytes, m.component
    if not plan.hardware.ok:
        assert any(p.code == "hardware-below-profile" for p in plan.problems)


@settings(max_examples=60, deadline=None)
@given(plan_inputs())
def test_plan_is_deterministic(inp: PlanInput) -> None:
    assert make_plan(inp) == make_plan(inp)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 200_000))
def test_profile_grows_with_hosts(hosts: int) -> None:
    from foretune.knowledge.hardware import profile_for_hosts
    from foretune.knowledge.model import SIZES

    assert SIZES.index(profile_for_hosts(hosts)) <= SIZES.index(profile_for_hosts(hosts + 1))


MEMORY_SETTINGS = ("puma.workers", "passenger.max_pool_size", "postgresql.shared_buffers", "postgresql.effective_cache_size",
                   "postgresql.work_mem", "candlepin.heap_max", "mongodb.cache_size_gb", "dynflow.executors")


def _amount(value: object) -> float:
    """A setting as a number: PostgreSQL sizes ("8GB", "512MB") in MiB, everything else as is."""
    if isinstance(value, str):
        number, unit = value[:-2], value[-2:]
        return float(number) * {"MB": 1, "GB": 1024}[unit]
    return float(value)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(plan_inputs(), st.integers(1, 512))
def test_more_ram_never_lowers_memory_settings(inp: PlanInput, extra_gib: int) -> None:
    small = make_plan(inp).tunables
    big = make_plan(inp._replace(ram_bytes=inp.ram_bytes + extra_gib * GIB)).tunables
    for tid in MEMORY_SETTINGS:
        if tid in small and tid in big and small[tid].foretune.value is not None:
            assert _amount(big[tid].foretune.value) >= _amount(small[tid].foretune.value), tid


@settings(max_examples=60, deadline=None)
@given(plan_inputs(), st.integers(1, 512))
def test_a_box_that_carries_its_plan_still_does_with_more_ram(inp: PlanInput, extra_gib: int) -> None:
    memory = {"memory-over-ram", "memory-tight"}
    if not memory & {p.code for p in make_plan(inp).problems}:
        bigger = make_plan(inp._replace(ram_bytes=inp.ram_bytes + extra_gib * GIB))
        assert not memory & {p.code for p in bigger.problems}


# The largest effective_cache_size any foreman-installer size profile sets (extra-large and
# extra-extra-large: "effective_cache_size: 32GB", tests/profiles_expected) and the guide's work_mem
# ("Setting this value to 8 MB should be more than enough for most of the intensive operations on Foreman.").
LARGEST_PROFILE_ECS_MIB = 32 * 1024
GUIDE_WORK_MEM = "8MB"


@settings(max_examples=150, deadline=None)
@given(plan_inputs())
def test_postgresql_cache_settings_follow_the_memory_budget(inp: PlanInput) -> None:
    """work_mem is the installer's or the guide's 8 MB, and never raised on a box short of RAM; effective_cache_size
    fits the RAM and never exceeds what the largest installer profile sets."""
    plan = make_plan(inp)
    t = plan.tunables
    if "postgresql.work_mem" in t:
        work_mem = t["postgresql.work_mem"]
        assert work_mem.foretune.value in (work_mem.installer.value, GUIDE_WORK_MEM)
        assert _amount(work_mem.foretune.value) >= _amount(work_mem.installer.value)
        if {p.code for p in plan.problems} & {"memory-over-ram", "memory-tight"}:
            assert work_mem.foretune.value == work_mem.installer.value
    if "postgresql.effective_cache_size" in t:
        ecs = _amount(t["postgresql.effective_cache_size"].foretune.value)
        assert ecs * 1024**2 <= inp.ram_bytes
        if plan.release.features.size_profiles:
            assert ecs <= LARGEST_PROFILE_ECS_MIB


def _satellite(hosts: int, cpus: int, ram_gib: int) -> PlanInput:
    return PlanInput(product="satellite", version="6.15", hosts=hosts, cpus=cpus, ram_bytes=ram_gib * GIB, role="server",
                     virtual=None, katello_agent_hosts=0, puppet_hosts=0)


# The tuning guide's quickstart table, "Name  Number of hosts  Recommend RAM  Recommend Cores" (default 0 - 5000,
# 20 GiB, 4; medium 5000 - 10000, 32 GiB, 8; large ... 64 GiB, 16; extra-large ... 128 GiB, 32; extra-extra-large
# 60000+, 256 GiB+, 48+): each profile's top host count on its recommended box.
RECOMMENDED_BOXES = [(5000, 4, 20), (10000, 8, 32), (20000, 16, 64), (60000, 32, 128), (100000, 48, 256)]


@pytest.mark.parametrize(("hosts", "cpus", "ram_gib"), RECOMMENDED_BOXES)
def test_the_guides_recommended_box_carries_its_plan(hosts: int, cpus: int, ram_gib: int) -> None:
    codes = {p.code for p in make_plan(_satellite(hosts, cpus, ram_gib)).problems}
    assert not codes & {"memory-over-ram", "memory-tight", "hardware-below-profile"}, codes


def test_postgresql_settings_of_concrete_boxes() -> None:
    t = make_plan(_satellite(100000, 48, 256)).tunables
    # extra-extra-large: the installer's own 8MB and 32GB (shared_buffers 32GB alone reaches that ceiling)
    assert (t["postgresql.work_mem"].foretune.value, t["postgresql.effective_cache_size"].foretune.value) == ("8MB", "32GB")
    t = make_plan(_satellite(100, 16, 1024)).tunables
    # default profile (work_mem 4MB) on 1 TiB: 1000 connections x 4 MB more is under 4 GiB, so the guide's 8 MB fits
    assert (t["postgresql.work_mem"].installer.value, t["postgresql.work_mem"].foretune.value) == ("4MB", "8MB")
    plan = make_plan(_satellite(60000, 16, 4))
    # 4 GiB for 60000 hosts, a fifth of the guide's smallest box: over its RAM, and work_mem stays the profile's 8MB
    assert "memory-over-ram" in {p.code for p in plan.problems}
    assert plan.tunables["postgresql.work_mem"].foretune.value == "8MB"
    assert _amount(plan.tunables["postgresql.effective_cache_size"].foretune.value) <= 4 * 1024
