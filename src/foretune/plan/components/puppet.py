"""Puppet: the agents' runinterval and splay, how many agents a box serves, and the Puppet server's memory."""

from __future__ import annotations

import math

from foretune.knowledge import module_default, module_default_citation
from foretune.plan.constants import const, entry
from foretune.plan.model import Fix, Input, MemoryItem, Problem, Setting
from foretune.plan.sizing import GIB, MIB, C, Component, Sizing, box, given, memory_item, memory_size
from foretune.term import plural
from foretune.units import format_bytes


def _agents_file(s: Sizing) -> str:
    """Where a managed host's agent reads splay and runinterval: Puppet 3's path on 6.2, the AIO path after."""
    return "/etc/puppet/puppet.conf" if s.era62 else "/etc/puppetlabs/puppet/puppet.conf"


def _brief(s: Sizing, name: str) -> str:
    """Where the advice comes from, on a release whose own guide does not cover the agents' ``name``."""
    return "" if s.era62 else f" (the 6.2 brief's; later guides do not cover {name})"


def plan(s: Sizing) -> None:
    """runinterval and splay of the MANAGED agents (their puppet.conf, or the puppet class that manages them).

    The installer's puppet::splay / --puppet-splay configure only this box's own agent (pp-62-options: the class
    configures the agent of the host it is applied to), so the plan advises the agents the brief means ("Turn on
    splay for each Puppet client") and emits no key for the box itself.
    """
    if not s.inp.puppet_hosts:
        return
    default_interval = module_default("puppet", "runinterval")
    interval = s.inp.puppet_runinterval or default_interval
    conf = _agents_file(s)
    via_class = "or the puppet class parameter {name} = {value} where Foreman's puppet class (theforeman/puppet) manages their agents"
    own = "the installer's --puppet-{name} sets only this box's own agent"
    # --puppet-runinterval is the agents' interval now: kept (the capacity check sizes against it), never pushed to them
    inst = (Setting(interval, "the managed agents' interval (--puppet-runinterval)", ("g62-puppet",))
            if s.inp.puppet_runinterval else Setting(default_interval, "Puppet default", ("g62-puppet",)))
    s.add("puppet.runinterval", "runinterval of the managed Puppet agents", "seconds", inst,
          Setting(interval, "kept: runs spread evenly over it; a longer interval serves more agents, a shorter one fewer"
                  + _brief(s, "runinterval"), ("g62-puppet",), "",
                  (box("--puppet-runinterval", interval),) if s.inp.puppet_runinterval else (given(inst),)),
          Fix("advice", "Puppet agents", f"set runinterval = {interval} in the [agent] section of {conf} on each managed host and restart its agent, "
                                         + via_class.format(name="runinterval", value=interval) + "; "
                                         + own.format(name="runinterval")))
    s.add("puppet.splay", "splay on the managed Puppet agents", "bool",
          Setting(module_default("puppet", "splay"), "Puppet default", ("g62-puppet", "pp-62-options")),
          Setting(True, "randomise agent start times: \"Turn on splay for each Puppet client\"" + _brief(s, "splay"), ("g62-puppet",)),
          Fix("advice", "Puppet agents", f"set splay = true in the [agent] section of {conf} on each managed host and restart its agent, "
                                         + via_class.format(name="splay", value="true") + "; " + own.format(name="splay")))
    if not (s.era62 or s.f.puppet_passenger):
        _puppetserver(s)
    if s.era62:
        _capacity_62(s)
    else:
        _capacity(s)


def _puppetserver(s: Sizing) -> None:
    """puppetserver's JRuby pool and heap as puppet-puppet's params.pp sizes them, checked against Puppet's own docs."""
    ram_mib = s.inp.ram_bytes // MIB
    cap, big = module_default("puppetserver", "max_active_instances_cap"), module_default("puppetserver", "ram_mib_for_full_size")
    cites = (module_default_citation("puppetserver"),)
    if ram_mib >= big:
        instances, heap_mib = min(s.inp.cpus, cap), module_default("puppetserver", "jvm_heap_mib")
        rule = f"min({plural(s.inp.cpus, 'CPU')}, {cap}) on {big}+ MiB RAM"
    else:
        instances, heap_mib = 1, module_default("puppetserver", "small_jvm_heap_mib")
        rule = f"1 below {big} MiB RAM"
    inst = Setting(instances, f"puppet-puppet params.pp: {rule}", cites)
    s.add("puppet.server_max_active_instances", "puppetserver JRuby max-active-instances", "count", inst,
          s.same(inst, f"one JRuby per concurrent agent request; Puppet's docs: \"For most installations, four JRuby instances "
                       f"are adequate.\" (puppet-puppet's default is min(CPUs, {cap}); --puppet-server-max-active-instances can set more)", *cites, "puppet-jruby-sizing"),
          Fix("hiera", "puppet::server_max_active_instances", instances))
    per = const("puppetserver_jruby_mib")
    want = max(heap_mib, instances * per)
    inst_heap = Setting(heap_mib * MIB, f"puppet-puppet params.pp: {heap_mib} MiB ({rule.split(' ', 1)[1] if ram_mib < big else 'enough RAM'})", cites)
    s.add("puppet.server_jvm_max_heap", "puppetserver heap (-Xmx)", "bytes", inst_heap,
          Setting(want * MIB, f"at least {per} MiB per JRuby instance (Puppet's docs)", ("puppet-jruby-sizing",),
                  f"max({heap_mib} MiB, {instances} x {per} MiB) = {want} MiB",
                  (given(inst_heap), Input("max-active-instances", instances, cites[0]), C("puppetserver_jruby_mib"))),
          Fix("hiera", "puppet::server_jvm_max_heap_size", f"{want // 1024}G" if want % 1024 == 0 else f"{want}m"),
          Fix("hiera", "puppet::server_jvm_min_heap_size", f"{want // 1024}G" if want % 1024 == 0 else f"{want}m"))


def _capacity(s: Sizing) -> None:
    per_4 = const("puppet_hosts_per_4_cpus")
    default_interval = module_default("puppet", "runinterval")
    interval = s.inp.puppet_runinterval or default_interval
    # the guide's figure is at Puppet's default interval; "Raising the run-interval will directly increase the
    # capacity" (g62-puppet): foretune scales it in proportion (an estimate)
    per_capsule = math.floor(per_4 * s.inp.cpus / 4 * interval / default_interval)
    scaled = interval != default_interval
    s.add("puppet.hosts_per_capsule", "Puppet agents this box serves", "count",
          Setting(None, "not limited by the installer"),
          Setting(per_capsule, f"about {per_4} agents per 4 CPUs (10 classes each)"
                  + (f" at a {default_interval} s interval, scaled to {interval} s (an estimate)" if scaled else ""),
                  ("capsule-puppet", *(("g62-puppet", "foretune-estimate") if scaled else ())),
                  f"floor({per_4} x {s.inp.cpus} / 4" + (f" x {interval} / {default_interval}" if scaled else "") + f") = {per_capsule}",
                  (C("puppet_hosts_per_4_cpus"), box("CPUs", s.inp.cpus), *((box("--puppet-runinterval", interval),) if scaled else ()))),
          Fix("advice", "Puppet", f"serve at most {per_capsule} agents from a box of this size"))
    if s.inp.puppet_hosts > per_capsule:  # a server's Puppet server (its integrated Capsule) serves agents the same way
        fits = math.ceil(s.inp.puppet_hosts * 4 / (per_4 * s.inp.cpus) * default_interval)
        s.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                  f"{s.inp.puppet_hosts} Puppet agents exceed the about {per_capsule} a box of {s.inp.cpus} CPUs serves (the guide)"
                                  + (f" at a {interval} s runinterval" if scaled else "")
                                  + f": add a Capsule, more CPUs, or a runinterval of about {fits} s",
                                  ("capsule-puppet", "g62-puppet")))


def _capacity_62(s: Sizing) -> None:
    hosts, concurrent = const("g62_puppet_hosts"), const("g62_puppet_concurrent")
    measured = entry("g62_puppet_hosts")["box"]
    on = f"{measured['cpus']} vCPUs / {format_bytes(measured['ram_gib'] * GIB)}"
    s.add("puppet.hosts_per_capsule", "Puppet agents this box serves", "count",
          Setting(None, "not limited by the installer"),
          Setting(hosts, f"the 6.2 brief measured {hosts} Puppet hosts on {on} and about {concurrent} "
                         "concurrent agent runs on a default capsule; benchmark your own manifests before going further",
                  ("g62-puppet",), "", (C("g62_puppet_hosts"), C("g62_puppet_concurrent"))),
          Fix("advice", "Puppet", f"the 6.2 brief measured {hosts} Puppet hosts on {on}; keep concurrent runs "
                                  f"below about {concurrent} (splay)"))
    if s.inp.puppet_hosts > hosts:  # the same Passenger-hosted Puppet server runs on the Satellite itself
        s.problems.append(Problem("medium", "puppet-hosts-per-capsule",
                                  f"{s.inp.puppet_hosts} Puppet agents exceed the {hosts} the 6.2 brief measured on a capsule of "
                                  f"{on}; benchmark your manifests, or serve some agents from a Capsule",
                                  ("g62-puppet",)))


def memory(s: Sizing) -> list[MemoryItem]:
    """The Puppet server: Puppet 3's rack processes under Passenger in the 6.2 era, else puppetserver's JVM."""
    if not (s.inp.puppet_hosts or (s.era62 and not s.server)):
        return []
    if s.f.passenger and s.era62:
        pool = s.tunables.get("passenger.max_pool_size")
        n = max(1, pool.foretune.value // 2) if pool else 1
        return [memory_item("Puppet (Passenger)", n, "passenger_puppet_process", f"up to {n} Puppet 3 rack processes x {memory_size('passenger_puppet_process')} (6.2 brief)")]
    heap = s.tunables.get("puppet.server_jvm_max_heap")
    if heap is None:
        return [memory_item("Puppet server", 1, "puppetserver", "JVM")]
    # the memory item is sized for puppet-puppet's 2 GiB heap; a larger heap scales it
    share = heap.foretune.value / (module_default("puppetserver", "jvm_heap_mib") * MIB)
    return [memory_item("Puppet server", share, "puppetserver", f"JVM, -Xmx {heap.foretune.value // MIB} MiB")]


COMPONENT = Component("puppet", memory=memory)
