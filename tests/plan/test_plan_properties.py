"""Invariants that hold for every box and workload the planner accepts."""

from __future__ import annotations

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
    if "pulp.workers" in t:
        assert t["pulp.workers"].foretune.value == min(8, inp.cpus)
    if "qpidd.limit_nofile" in t and inp.katello_agent_hosts:
        assert t["qpidd.limit_nofile"].foretune.value >= 4 * inp.katello_agent_hosts + 500
        assert t["qdrouterd.limit_nofile"].foretune.value >= 3 * inp.katello_agent_hosts + 100
        assert t["sysctl.fs_aio_max_nr"].foretune.value > 33 * inp.katello_agent_hosts
    if inp.role == "capsule":
        assert "puma.workers" not in t and "postgresql.max_connections" not in t
    # a box that cannot carry its plan says so
    memory = sum(m.bytes for m in plan.memory)
    if sum(m.low_bytes for m in plan.memory) > inp.ram_bytes:
        assert any(p.code == "memory-over-ram" for p in plan.problems)
    elif memory > inp.ram_bytes:
        assert any(p.code == "memory-tight" for p in plan.problems)
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


@settings(max_examples=150, deadline=None)
@given(plan_inputs())
def test_postgresql_cache_settings_follow_the_memory_budget(inp: PlanInput) -> None:
    """A box near its RAM never gets a larger work_mem; effective_cache_size never exceeds what the profile for that RAM uses."""
    plan = make_plan(inp)
    t = plan.tunables
    total = sum(m.bytes for m in plan.memory)
    if "postgresql.work_mem" in t and _amount(t["postgresql.work_mem"].foretune.value) > _amount(t["postgresql.work_mem"].installer.value):
        extra = (_amount(t["postgresql.work_mem"].foretune.value) - _amount(t["postgresql.work_mem"].installer.value)) * 1024**2
        assert total + extra * t["postgresql.max_connections"].foretune.value <= inp.ram_bytes
    if "postgresql.effective_cache_size" in t:
        from foretune.knowledge import hardware
        from foretune.knowledge.model import SIZES
        from foretune.knowledge.profiles import PG, installer_hiera

        ecs = _amount(t["postgresql.effective_cache_size"].foretune.value)
        fitting = [p for p in SIZES if inp.ram_bytes >= hardware.recommended(p).ram_bytes * 0.9]
        ceilings = [_amount(t["postgresql.effective_cache_size"].installer.value)]
        if plan.release.features.size_profiles:
            ceilings = [_amount(installer_hiera(plan.release, fitting[-1] if fitting else "default")[PG].get("effective_cache_size", "4GB"))]
        assert ecs <= max(ceilings)
        assert ecs * 1024**2 <= inp.ram_bytes
