"""Puppet: the agents' runinterval and splay, how many agents a box serves, and the Puppet server's memory."""

from __future__ import annotations

import math

from foretune.knowledge import module_default
from foretune.plan.constants import const, entry
from foretune.plan.model import Fix, MemoryItem, Problem, Setting
from foretune.plan.sizing import GIB, C, Component, Sizing, box, given, memory_item, memory_size
from foretune.units import format_bytes


def plan(s: Sizing) -> None:
    if not s.inp.puppet_hosts:
        return
    default_interval = module_default("puppet", "runinterval")
    interval = s.inp.puppet_runinterval or default_interval
    inst = Setting(default_interval, "Puppet default", ("g62-puppet",))
    s.add("puppet.runinterval", "Puppet runinterval", "seconds", inst,
          Setting(interval, "spread agent runs evenly over the interval", ("g62-puppet",), "",
                  (box("--puppet-runinterval", interval),) if s.inp.puppet_runinterval else (given(inst),)),
          Fix("hiera", "puppet::runinterval", interval))
    s.add("puppet.splay", "Puppet splay", "bool", Setting(module_default("puppet", "splay"), "Puppet default", ("g62-puppet",)),
          Setting(True, "randomise agent start times", ("g62-puppet",)), Fix("hiera", "puppet::splay", True))
    if s.era62:
        _capacity_62(s)
    else:
        _capacity(s)


def _capacity(s: Sizing) -> None:
    per_4 = const("puppet_hosts_per_4_cpus")
    per_capsule = math.floor(per_4 * s.inp.cpus / 4)
    s.add("puppet.hosts_per_capsule", "Puppet agents per Capsule", "count",
          Setting(None, "not limited by the installer"),
          Setting(per_capsule, f"about {per_4} agents per 4 CPUs (10 classes each)", ("capsule-puppet",),
                  f"floor({per_4} x {s.inp.cpus} / 4) = {per_capsule}", (C("puppet_hosts_per_4_cpus"), box("CPUs", s.inp.cpus))),
          Fix("advice", "Puppet", f"serve at most {per_capsule} agents from a box of this size"))
    if not s.server and s.inp.puppet_hosts > per_capsule:
        s.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                  f"{s.inp.puppet_hosts} Puppet agents exceed the guide's about {per_capsule} for {s.inp.cpus} CPUs",
                                  ("capsule-puppet",)))


def _capacity_62(s: Sizing) -> None:
    hosts, concurrent = const("g62_puppet_hosts"), const("g62_puppet_concurrent")
    measured = entry("g62_puppet_hosts")["box"]
    on = f"{measured['cpus']} vCPUs / {format_bytes(measured['ram_gib'] * GIB)}"
    s.add("puppet.hosts_per_capsule", "Puppet agents per Capsule", "count",
          Setting(None, "not limited by the installer"),
          Setting(hosts, f"the 6.2 brief measured {hosts} Puppet hosts on {on} and about {concurrent} "
                         "concurrent agent runs on a default capsule; benchmark your own manifests before going further",
                  ("g62-puppet",), "", (C("g62_puppet_hosts"), C("g62_puppet_concurrent"))),
          Fix("advice", "Puppet", f"the 6.2 brief measured {hosts} Puppet hosts on {on}; keep concurrent runs "
                                  f"below about {concurrent} (splay)"))
    if not s.server and s.inp.puppet_hosts > hosts:
        s.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                  f"{s.inp.puppet_hosts} Puppet agents exceed the {hosts} the 6.2 brief measured per capsule",
                                  ("g62-puppet",)))


def memory(s: Sizing) -> list[MemoryItem]:
    """The Puppet server: Puppet 3's rack processes under Passenger in the 6.2 era, else puppetserver's JVM."""
    if not (s.inp.puppet_hosts or (s.era62 and not s.server)):
        return []
    if s.f.passenger and s.era62:
        pool = s.tunables.get("passenger.max_pool_size")
        n = max(1, pool.foretune.value // 2) if pool else 1
        return [memory_item("Puppet (Passenger)", n, "passenger_puppet_process", f"up to {n} Puppet 3 rack processes x {memory_size('passenger_puppet_process')} (6.2 brief)")]
    return [memory_item("Puppet server", 1, "puppetserver", "JVM")]


COMPONENT = Component("puppet", memory=memory)
