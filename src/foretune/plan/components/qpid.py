"""qpid (katello-agent): qpidd and qdrouterd file limits, fs.aio-max-nr, journal space, Katello's accept timeout."""

from __future__ import annotations

from foretune.knowledge import module_default, module_default_citation
from foretune.plan.constants import cite, const
from foretune.plan.direct_edits import direct_edit
from foretune.plan.model import Fix, Input, MemoryItem, Setting
from foretune.plan.sizing import MIB, C, Component, Sizing, box, given, memory_item
from foretune.units import format_gib

# The guides' formulas count "N content hosts"; only a content host running katello-agent (goferd) opens the
# connections, queues and journal files they size, so N is the katello-agent hosts, and each row says so.
N_IS = "N = katello-agent hosts: the guide's N is 'content hosts', and only those running katello-agent connect to qpid"


def plan(s: Sizing) -> None:
    if not (s.f.qpid and s.katello):
        return
    n = s.inp.katello_agent_hosts
    cites = ("g62-qpid",) if s.era62 else ("g69-qpid",)
    if not router(s):
        return  # no katello-agent hosts: the Capsule's installer leaves qdrouterd absent, nothing to size
    _nofile(s, n, cites)
    if not broker(s):
        return  # the Capsule's module declares only qdrouterd: qpid::* broker keys would do nothing (fpc-broker-removed)
    _aio(s, n, cites)
    per_host = const("qpidd_storage_per_host_mib")
    storage = n * per_host * MIB
    if n:
        s.add("qpidd.storage_bytes", "free space in /var/lib/qpidd", "bytes", Setting(None, "not managed by the installer"),
              Setting(storage, f"{per_host} MiB per katello-agent host x {n} ({N_IS})", cites, f"{n} x {per_host} MiB",
                      (C("qpidd_storage_per_host_mib"), box("katello-agent hosts", n))),
              Fix("advice", "/var/lib/qpidd", f"keep at least {format_gib(storage)} free"))
    interval = const("qpid_mgmt_pub_interval")
    fix = Fix("hiera", "qpid::mgmt_pub_interval", interval)
    if n:  # the guides' cure for katello-agent's 'not-attached' channel errors: nothing to cure without agents
        s.add("qpid.mgmt_pub_interval", "qpidd mgmt-pub-interval", "seconds",
              Setting(module_default("qpid_mgmt_pub_interval"), "qpidd default", (module_default_citation("qpid_mgmt_pub_interval"),)),
              Setting(interval, "recycles management objects faster; avoids 'not-attached' channel errors (the brief: lower "
                      "than 10 s, no value; 5 s is foretune's start)", ("g62-qpid", cite("qpid_mgmt_pub_interval")), "",
                      (C("qpid_mgmt_pub_interval"),)),
              fix if s.f.qpid_mgmt_pub_interval_option else direct_edit(fix))  # puppet-qpid before 4.1: edit qpidd.conf
    if s.server and n:
        accept = const("accept_timeout_at_scale")
        s.add("katello.content_action_accept_timeout", "content_action_accept_timeout", "seconds",
              Setting(module_default("content_action_accept_timeout"), "Katello setting default", ("g62-katello-agent",)),
              Setting(accept, "more than 20 s so katello-agent clients have time to answer", ("g62-katello-agent", cite("accept_timeout_at_scale")),
                      "", (C("accept_timeout_at_scale"),)),
              Fix("command", f"hammer settings set --name content_action_accept_timeout --value {accept}"))


def router(s: Sizing) -> bool:
    """qdrouterd runs here: before foreman-installer 2.5 always; from it (puppet-katello 20, puppet-foreman_proxy_content
    18) only when katello-agent is enabled, which foretune takes from katello-agent hosts to serve
    (pk-katello-agent-opt-in, fpc-katello-agent-opt-in)."""
    opt_in = s.f.server_qpid_opt_in if s.server else s.f.capsule_router_opt_in
    return not opt_in or bool(s.inp.katello_agent_hosts)


def broker(s: Sizing) -> bool:
    """qpidd runs here: on a server wherever the router does; on a Capsule only while its module declares the broker."""
    return router(s) if s.server else s.f.capsule_qpidd


def _nofile(s: Sizing, n: int, cites: tuple[str, ...]) -> None:
    for tid, title, hkey, unit, per, base, floor in (
            ("qpidd.limit_nofile", "qpidd LimitNOFILE", "qpid::open_file_limit", "qpidd", "qpidd_fds_per_host", "qpidd_fds_base", 65536),
            ("qdrouterd.limit_nofile", "qdrouterd LimitNOFILE", "qpid::router::open_file_limit", "qdrouterd",
             "qdrouterd_fds_per_host", "qdrouterd_fds_base", 150100)):
        if unit == "qpidd" and not broker(s):
            continue
        inst = s.base_setting(hkey, None, "not set: systemd default", cites[0])
        if s.era62 and not n:
            s.add(tid, title, "count", inst, s.same(inst, "no katello-agent hosts: the brief's limit is for katello-agent at scale", *cites))
            continue
        if s.era62:
            want = const("g62_nofile")
            setting = Setting(want, "the 6.2 brief's limit for katello-agent at scale", cites, "", (C("g62_nofile"),))
            fix = Fix("limit", unit, want)
        else:
            lowest = inst.value or floor
            want = max(lowest, n * const(per) + const(base))
            said = (f"{const(per)} x {n} katello-agent hosts + {const(base)}, at least {lowest} ({N_IS})" if n else
                    f"no katello-agent hosts: {const(per)} x 0 + {const(base)} is below the installer's {lowest}, kept")
            opt_in = (s.f.server_qpid_opt_in if s.server else unit == "qdrouterd" and s.f.capsule_router_opt_in)
            if opt_in:  # the installer declares it absent unless asked (pk-katello-agent-opt-in, fpc-katello-agent-opt-in)
                said += "; it runs only with --foreman-proxy-content-enable-katello-agent true (the default is false)"
            agent_cite = "pk-katello-agent-opt-in" if s.server else "fpc-katello-agent-opt-in"
            setting = Setting(want, said, (*cites, agent_cite) if opt_in else cites,
                              f"max({lowest}, {const(per)} x {n} + {const(base)}) = {want}",
                              (C(per), C(base), box("katello-agent hosts", n),
                               given(inst) if inst.value else Input("profiles' limit", floor, "fi-tuning-profiles")))
            fix = Fix("hiera", hkey, want)
            if hkey == "qpid::open_file_limit" and not s.f.qpid_open_file_limit_option:
                fix = direct_edit(fix)  # puppet-qpid before 2.2 has no such parameter: a drop-in (pq-options-history)
        s.add(tid, title, "count", inst, setting, fix)


def _aio(s: Sizing, n: int, cites: tuple[str, ...]) -> None:
    """fs.aio-max-nr: qpidd's linear store takes asynchronous I/O contexts per katello-agent host."""
    per_host, default, brief = const("aio_per_host"), const("aio_default"), const("g62_aio_max_nr")
    if s.era62 and n and brief > n * per_host:
        aio = brief
        setting = Setting(aio, "the 6.2 brief's value", ("g62-qpid",), "", (C("g62_aio_max_nr"),))
    elif s.era62 and n:  # more agents than the brief's flat value covers: the later guides' per-host rule
        aio = n * per_host + 1
        setting = Setting(aio, f"the 6.2 brief's {brief} is not more than {per_host} x {n} katello-agent hosts ({N_IS})",
                          ("g62-qpid", "g69-qpid"), f"max({brief}, {per_host} x {n} + 1) = {aio}",
                          (C("g62_aio_max_nr"), C("aio_per_host"), box("katello-agent hosts", n)))
    elif not n:
        aio = default
        setting = Setting(aio, "no katello-agent hosts: nothing for qpidd's linear store to size", cites, "", (C("aio_default"),))
    else:
        aio = max(default, n * per_host + 1)
        setting = Setting(aio, f"more than {per_host} x {n} katello-agent hosts ({N_IS})", cites, f"max({default}, {per_host} x {n} + 1) = {aio}",
                          (C("aio_default"), C("aio_per_host"), box("katello-agent hosts", n)))
    s.add("sysctl.fs_aio_max_nr", "fs.aio-max-nr", "count", Setting(default, "kernel default", (cite("aio_default"),)), setting,
          Fix("sysctl", "fs.aio-max-nr", aio))


def memory(s: Sizing) -> list[MemoryItem]:
    if not (s.f.qpid and s.katello and router(s)):
        return []
    return [memory_item("qpidd + qdrouterd", 1, "qpid", "brokers") if broker(s) else memory_item("qdrouterd", 1, "qdrouterd", "router")]


COMPONENT = Component("qpid", memory=memory)
