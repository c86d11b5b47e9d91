"""A plan can start from facts; the user's options win, and missing facts are named."""

from __future__ import annotations

import pytest

from foretune.errors import UsageError
from foretune.facts.model import Fact, FactSet, Provenance
from foretune.plan import input_from_facts, make_plan

GIB = 1024**3


def facts(**values: object) -> FactSet:
    fs = FactSet("sosreport", "test")
    for name, value in values.items():
        fs.add(Fact(name, value, (Provenance("sosreport", f"/{name}"),)))
    return fs


def test_facts_give_the_box_and_options_win() -> None:
    fs = facts(product="orcharhino", product_version="6.9.1", foreman_version="3.9.2", role="server",
               cpu_logical=16, cpu_physical_cores=8, ram_bytes=64 * GIB, virtualization="kvm", managed_hosts=12000,
               mqtt={"pull_rex": True})
    inp = input_from_facts(fs, cpus=32)
    assert (inp.product, inp.version, inp.foreman_version, inp.cpus, inp.physical_cores) == ("orcharhino", "6.9.1", "3.9.2", 32, 8)
    assert inp.virtual is True and inp.rex == "pull-mqtt" and inp.hosts == 12000
    assert make_plan(inp).release.foreman_version == "3.9"


def test_hosts_option_fills_a_gap() -> None:
    fs = facts(product="satellite", product_version="6.15.2", cpu_logical=8, ram_bytes=32 * GIB)
    assert input_from_facts(fs, hosts=500).hosts == 500


def test_missing_facts_are_named() -> None:
    with pytest.raises(UsageError, match="version, RAM, managed hosts"):
        input_from_facts(facts(product="satellite", cpu_logical=8))


def test_installer_column_is_what_is_in_force() -> None:
    # kafo's hierarchy: custom-hiera.yaml above the answers file above the tuning profile
    fs = facts(product="satellite", product_version="6.15.2", cpu_logical=16, ram_bytes=64 * GIB, managed_hosts=15000,
               installer_answers={"foreman": {"foreman_service_puma_workers": 12, "foreman_service_puma_threads_max": 8,
                                              "db_pool": None},
                                  "candlepin": {"java_opts": "-Xms1024m -Xmx4096m"}},
               custom_hiera={"foreman::foreman_service_puma_workers": 10,
                             "postgresql::server::config_entries": {"max_connections": 600}})
    plan = make_plan(input_from_facts(fs))
    t = plan.tunables
    assert t["puma.workers"].installer.value == 10 and "custom-hiera.yaml" in t["puma.workers"].installer.reason
    assert t["puma.threads_max"].installer.value == 8 and t["puma.threads_max"].installer.origin == "answers file"
    assert t["puma.workers"].installer.origin == "custom-hiera.yaml" and t["postgresql.shared_buffers"].installer.origin == ""
    assert t["postgresql.max_connections"].installer.value == 600  # the profile (large) would give 1000
    assert t["postgresql.shared_buffers"].installer.value == "8GB"  # not set locally: the profile's value stays
    assert "fi-hiera-precedence" in t["puma.workers"].installer.citations
    # the installer budget uses the values in force: 10 workers x max(5, 8) pool
    assert dict(plan.installer_connection_budget)["Puma 10 workers x 8 pool (threads 8)"] == 80


def test_only_tuning_keys_reach_the_plan() -> None:
    fs = facts(product="satellite", product_version="6.15.2", cpu_logical=8, ram_bytes=32 * GIB, managed_hosts=3000,
               installer_answers={"foreman": {"db_password": "[redacted]", "initial_admin_username": "admin",
                                              "foreman_service_puma_workers": 6}})
    assert input_from_facts(fs).configured == {"foreman::foreman_service_puma_workers": (6, "answers file")}


def test_candlepin_heap_in_force_is_the_last_xmx_as_the_jvm_takes_it() -> None:
    # The JVM processes its options in order and the last -Xmx wins: '-Xmx2g -Xmx8g' runs with an 8 GiB heap.
    fs = facts(product="satellite", product_version="6.15.2", cpu_logical=16, ram_bytes=64 * GIB, managed_hosts=15000,
               installer_answers={"candlepin": {"java_opts": "-Xms1024m -Xmx2g -Xmx8g"}})
    heap = make_plan(input_from_facts(fs)).tunables["candlepin.heap_max"].installer
    assert heap.value == 8 * GIB and heap.origin == "answers file"
