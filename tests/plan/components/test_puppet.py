"""Puppet: runinterval and splay, agents per box, the Puppet server's memory."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan.components import puppet
from tests.plan.components.helpers import GIB, plan, run


def test_agents_per_capsule_follow_the_capsule_guide() -> None:
    # capsule-puppet: 1250-1600 clients with 10 classes each on 4 CPUs; foretune takes the lower end, 2500 on 8 CPUs
    t = run(puppet.plan, "satellite", "6.15", role="capsule", hosts=6000, puppet_hosts=1500)
    assert t["puppet.hosts_per_capsule"].foretune.value == 2500
    assert t["puppet.splay"].foretune.value is True
    assert t["puppet.runinterval"].foretune.value == t["puppet.runinterval"].installer.value
    assert run(puppet.plan, "satellite", "6.15") == {}  # no Puppet agents, nothing to plan


def test_too_many_agents_for_a_capsule_is_a_problem() -> None:
    p = plan("satellite", "6.15", role="capsule", hosts=6000, cpus=4, ram_gib=16, puppet_hosts=1500)
    assert [q.code for q in p.problems if q.code == "puppet-hosts-per-capsule"] == ["puppet-hosts-per-capsule"]  # 1500 > 1250


def test_satellite_62_capsule_takes_the_briefs_measurement() -> None:
    # the 6.2 brief: "For puppet workloads we can go up to 600 hosts with 16GB RAM, 8 vCPUs."
    t = run(puppet.plan, "satellite", "6.2", role="capsule", hosts=600, physical_cores=4, ram_gib=16, puppet_hosts=600)
    assert t["puppet.hosts_per_capsule"].foretune.value == 600
    assert "about 320" in t["puppet.hosts_per_capsule"].foretune.reason  # "about 320 clients concurrently running"


def test_puppet_server_memory_and_wording_follow_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    item = next(m for m in plan("satellite", "6.15", role="capsule", hosts=6000, puppet_hosts=1500).memory
                if m.component == "Puppet server")
    assert (item.low_bytes, item.high_bytes) == (int(1.5 * GIB), int(2.5 * GIB))  # planner.yaml memory/puppetserver
    monkeypatch.setitem(load_data("planner.yaml")["puppet_hosts_per_4_cpus"], "value", 1600)
    t = run(puppet.plan, "satellite", "6.15", role="capsule", hosts=6000, puppet_hosts=1500)["puppet.hosts_per_capsule"]
    assert (t.foretune.value, t.foretune.formula) == (3200, "floor(1600 x 8 / 4) = 3200")
    assert t.foretune.reason.startswith("about 1600 agents per 4 CPUs")


def test_62_puppet_wording_follows_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    def capsule() -> tuple[str, str]:
        p = plan("satellite", "6.2", role="capsule", hosts=600, physical_cores=4, ram_gib=16, puppet_hosts=600)
        return (p.tunables["puppet.hosts_per_capsule"].foretune.reason,
                next(m.reason for m in p.memory if m.component == "Puppet (Passenger)"))

    reason, memory = capsule()
    assert reason.startswith("the 6.2 brief measured 600 Puppet hosts on 8 vCPUs / 16 GiB and about 320")  # "16GB RAM, 8 vCPUs"
    assert memory.endswith("Puppet 3 rack processes x 37.4 MiB (6.2 brief)")
    monkeypatch.setitem(load_data("planner.yaml")["g62_puppet_hosts"], "box", {"cpus": 12, "ram_gib": 24})
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["passenger_puppet_process"], "high", 64)
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["passenger_puppet_process"], "low", 32)
    reason, memory = capsule()
    assert reason.startswith("the 6.2 brief measured 600 Puppet hosts on 12 vCPUs / 24 GiB and about 320")
    assert memory.endswith("Puppet 3 rack processes x 32-64 MiB (6.2 brief)")
