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
