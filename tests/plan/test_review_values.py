"""Plan values checked by hand against the guides and upstream files; each expected value is quoted from its source."""

from __future__ import annotations

from foretune.plan import PlanInput, make_plan
from foretune.plan.model import Plan

GIB = 1024**3


def plan(**kwargs: object) -> Plan:
    return make_plan(PlanInput(**kwargs))  # type: ignore[arg-type]


def test_dynflowd_executors_follow_the_ram_tiers_of_the_tuning_files() -> None:
    # RedHatSatellite/satellite-support tuning-profiles/custom-hiera-large-64G.yaml ("Tuning suitable for a Satellite
    # with 64G of RAM"): "# Recommended settings:\n# 32-64G RAM: 2\n# 65G-128G RAM or more: 3"
    def executors(ram_gib: float) -> object:
        p = plan(product="satellite", version="6.6", hosts=8000, cpus=16, ram_bytes=int(ram_gib * GIB))
        return p.tunables["dynflow.executors"].foretune.value

    assert executors(24) == 1  # below 32G: the README says the default settings are appropriate
    assert executors(32) == 2
    assert executors(64) == 2  # the 64G file's own box
    assert executors(62.5) == 2  # a 64 GB box less its crash-kernel reservation
    assert executors(96) == 3
    assert executors(128) == 3


def test_plain_foreman_db_pool_is_puppet_foremans() -> None:
    # theforeman/puppet-foreman manifests/config.pp (25.0.0 on): the + 4 applies with or without Katello:
    # "'db_pool'   => pick($foreman::db_pool, $foreman::foreman_service_puma_threads_max + 4),"
    # and its comment: "This means for systems without Katello we can reduce the amount of the pool to puma_threads_max + 1"
    p = plan(product="foreman", version="3.12", hosts=300, cpus=8, ram_bytes=32 * GIB, katello=False)
    t = p.tunables
    assert t["puma.threads_max"].installer.value == 5 and t["foreman.db_pool"].installer.value == 9
    assert t["puma.threads_max"].foretune.value == 16 and t["foreman.db_pool"].foretune.value == 17
    puma = next(n for what, n in p.connection_budget if what.startswith("Puma"))
    assert puma == t["puma.workers"].foretune.value * 17  # type: ignore[operator]
    # before puppet-foreman 25 (foreman-installer 3.11) the pool was max(db_pool 5, threads_max)
    assert plan(product="foreman", version="3.10", hosts=300, cpus=8, ram_bytes=32 * GIB,
                katello=False).tunables["foreman.db_pool"].installer.value == 5
