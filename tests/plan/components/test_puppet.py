"""Puppet: runinterval and splay, agents per box, the Puppet server's memory."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan import PlanInput, make_plan
from foretune.plan.components import puppet
from tests.plan.components.helpers import GIB, hiera_and_installer, plan, run


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


def test_splay_is_advice_for_the_managed_agents_never_the_servers_own_key() -> None:
    # 6.2 brief 5.8: "Turn on splay for each Puppet client". puppet-puppet's $splay (4.3.0 manifests/init.pp:
    # "Switch to enable a random amount of time to sleep before each run") configures the agent of the host the
    # class is applied to: on the server that is the server's own agent, so no puppet::splay / --puppet-splay.
    for version, conf in (("6.2", "/etc/puppet/puppet.conf"), ("6.9", "/etc/puppetlabs/puppet/puppet.conf"),
                          ("6.15", "/etc/puppetlabs/puppet/puppet.conf")):
        p = plan("satellite", version, puppet_hosts=500)
        fixes = [f for t in p.tunables.values() for f in t.fixes]
        assert not [f for f in fixes if "splay" in f.target or (f.kind == "installer" and "splay" in str(f.value))], version
        splay = p.tunables["puppet.splay"].fixes
        assert [f.kind for f in splay] == ["advice"], version
        assert f"splay = true in the [agent] section of {conf} on each managed host and restart its agent" in splay[0].value
        assert "puppet class parameter splay = true" in splay[0].value
        hiera, command = hiera_and_installer("satellite", version, puppet_hosts=500)
        assert "puppet::splay" not in hiera and "--puppet-splay" not in command, version


def test_agent_capacity_is_checked_on_servers_too() -> None:
    # capsule-puppet: "a Capsule Server with 4 CPUs has a maximum of 1250-1600 Puppet clients" (lower end, 10 classes);
    # the server's own Puppet server serves its agents the same way
    p = plan("satellite", "6.15", hosts=3000, cpus=4, ram_gib=20, puppet_hosts=1500)
    assert p.tunables["puppet.hosts_per_capsule"].foretune.value == 1250
    assert [q.code for q in p.problems if q.code == "puppet-hosts-per-capsule"] == ["puppet-hosts-per-capsule"]
    # the 6.2 brief: "For puppet workloads we can go up to 600 hosts with 16GB RAM, 8 vCPUs."
    p62 = plan("satellite", "6.2", hosts=3000, cpus=8, physical_cores=8, ram_gib=32, puppet_hosts=700)
    assert [q.code for q in p62.problems if q.code == "puppet-hosts-per-capsule"] == ["puppet-hosts-per-capsule"]
    ok = plan("satellite", "6.15", hosts=3000, cpus=4, ram_gib=20, puppet_hosts=1200)
    assert not [q for q in ok.problems if q.code == "puppet-hosts-per-capsule"]


def test_puppetserver_sizing_follows_puppet_puppet_params() -> None:
    # puppet-puppet 16.2.0 manifests/params.pp (foreman-installer 3.3.0): with $mem_in_mb >= 3072,
    # $server_jvm_max_heap_size = '2G' and $server_max_active_instances = min(abs($facts['processors']['count']), 4);
    # Puppet's docs: "one JRuby process uses approximately 512 MB of RAM": 4 x 512 MB = 2 GiB, the heap holds them
    t = plan("satellite", "6.15", role="capsule", hosts=6000, cpus=8, ram_gib=24, puppet_hosts=1500).tunables
    assert t["puppet.server_max_active_instances"].installer.value == 4  # min(8, 4)
    assert t["puppet.server_max_active_instances"].foretune.value == 4
    assert t["puppet.server_jvm_max_heap"].installer.value == 2 * GIB
    assert t["puppet.server_jvm_max_heap"].foretune.value == 2 * GIB
    small = plan("satellite", "6.15", role="capsule", hosts=600, cpus=2, ram_gib=12, puppet_hosts=300).tunables
    assert small["puppet.server_max_active_instances"].installer.value == 2  # min(2, 4)
    # puppetserver on a Passenger release does not exist: 6.2 runs Puppet 3 under Passenger (puppet-puppet 4.3.0)
    assert "puppet.server_max_active_instances" not in plan("satellite", "6.2", puppet_hosts=500).tunables


def test_puppetserver_memory_follows_its_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    # with 1024 MiB per JRuby instead of Puppet's 512, 4 instances need max(2048, 4 x 1024) = 4096 MiB of heap,
    # and the memory item (1.5-2.5 GiB for puppet-puppet's 2 GiB heap) doubles: 3-5 GiB
    monkeypatch.setitem(load_data("planner.yaml")["puppetserver_jruby_mib"], "value", 1024)
    p = plan("satellite", "6.15", role="capsule", hosts=6000, cpus=8, ram_gib=24, puppet_hosts=1500)
    assert p.tunables["puppet.server_jvm_max_heap"].foretune.value == 4 * GIB
    item = next(m for m in p.memory if m.component == "Puppet server")
    assert (item.low_bytes, item.high_bytes) == (3 * GIB, 5 * GIB)
    assert item.reason == "JVM, -Xmx 4096 MiB"


def test_advice_from_the_62_brief_says_so_on_later_releases() -> None:
    # splay and runinterval: only the 6.2 brief speaks of them ("Turn on splay for each Puppet client"); the Tuning
    # guides of 6.9 and later do not, so a later plan's row names the brief as its source
    late = plan("satellite", "6.15", puppet_hosts=500).tunables
    assert late["puppet.splay"].foretune.reason.endswith("(the 6.2 brief's; later guides do not cover splay)")
    assert late["puppet.runinterval"].foretune.reason.endswith("(the 6.2 brief's; later guides do not cover runinterval)")
    early = plan("satellite", "6.2", puppet_hosts=500).tunables
    assert early["puppet.splay"].foretune.reason == 'randomise agent start times: "Turn on splay for each Puppet client"'
    # hammer: the 6.9 guide lists "Configure hammer to reduce API timeouts" with no value; -1 is the 6.2 brief's
    hammer = plan("satellite", "6.15", hosts=20000, cpus=16, ram_gib=64).tunables["hammer.request_timeout"].foretune
    assert hammer.value == -1 and "(the 6.2 brief's; the 6.9 guide's" in hammer.reason


def test_the_jruby_cap_is_named_as_puppet_puppets_default_not_an_installer_limit() -> None:
    # puppet-puppet params.pp: "min(abs($facts['processors']['count']), 4)" is the default of server_max_active_instances,
    # a parameter the installer passes on (--puppet-server-max-active-instances) with no cap of its own
    made = make_plan(PlanInput("satellite", "6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB, puppet_hosts=6000))
    reason = made.tunables["puppet.server_max_active_instances"].foretune.reason
    assert "puppet-puppet's default is min(CPUs, 4); --puppet-server-max-active-instances can set more" in reason
    assert "installer caps" not in reason
