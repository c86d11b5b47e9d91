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


def test_satellite_62_postgresql_defaults_are_92s() -> None:
    # Satellite 6.2 runs PostgreSQL 9.2 on RHEL 7 and its installer sets no PostgreSQL entries. PostgreSQL 9.2 manual,
    # 18.4.1 shared_buffers: "The default is typically 32 megabytes (32MB)"; the 9.3 release notes: "the previous
    # maximum was 32MB". The 6.2 brief, 5.13: "increase max_connections setting (set to 100 by default)".
    t = plan(product="satellite", version="6.2", hosts=5000, cpus=16, physical_cores=8, ram_bytes=32 * GIB).tunables
    assert t["postgresql.shared_buffers"].installer.value == "32MB"
    assert t["postgresql.shared_buffers"].installer.citations == ("pg-docs-92-shared-buffers",)
    assert t["postgresql.max_connections"].installer.value == 100
    assert "gf-postgresql" not in t["postgresql.max_connections"].installer.citations  # the Foreman guide gives no default
    # a later release with no profile value: PostgreSQL's newest default, cited to PostgreSQL
    later = plan(product="satellite", version="6.16", hosts=3000, cpus=4, ram_bytes=20 * GIB).tunables
    assert later["postgresql.effective_cache_size"].installer.value == "4GB"  # 9.4 release notes: "to 4GB"
    assert later["postgresql.effective_cache_size"].installer.citations == ("pg-release-94-defaults",)


def test_passenger_queue_default_is_cited_to_passenger() -> None:
    # phusion/passenger Users guide Apache (4.0.18), PassengerMaxRequestQueueSize: "The default value is '100'."
    # The 6.2 brief gives no default for it, only its tuned example ("PassengerMaxRequestQueueSize 200").
    t = plan(product="satellite", version="6.2", hosts=5000, cpus=16, physical_cores=8, ram_bytes=32 * GIB).tunables
    queue = t["passenger.max_request_queue_size"]
    assert queue.installer.value == 100 and queue.installer.citations == ("passenger-queue-default",)
    assert queue.foretune.value == 200
