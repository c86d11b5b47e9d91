"""The Smart Proxy: smart_proxy_dynflow's file limit (SSH remote execution) and database, and its own memory."""

from __future__ import annotations

from foretune.knowledge import module_default
from foretune.plan.constants import const, versioned
from foretune.plan.model import Fix, MemoryItem, Setting
from foretune.plan.sizing import C, Component, Sizing, memory_item


def plan(s: Sizing) -> None:
    nofile, nofile_cite = versioned("smart_proxy_dynflow_nofile", s.fv)
    inst = (Setting(nofile, "puppet-foreman_proxy default", (nofile_cite,)) if nofile else
            Setting(module_default("systemd_default_nofile"), "not set by the installer on this release: systemd's default applies",
                    (nofile_cite,)))
    if not s.era62:
        s.add("smart_proxy_dynflow.limit_nofile", "Smart Proxy dynflow LimitNOFILE", "count", inst,
              s.same(inst, "SSH remote execution holds one descriptor per connection" if s.inp.rex != "pull-mqtt" else
                     "the installer's limit; with pull-based remote execution the hosts connect to mosquitto, not over SSH",
                     "proxy-dynflow-nofile"),
              Fix("hiera", "foreman_proxy::plugin::dynflow::open_file_limit", inst.value))
        return
    want = Setting(const("g62_nofile"), "the 6.2 brief's limit for remote execution at scale", ("g62-remote-execution",),
                   "", (C("g62_nofile"),))
    s.add("smart_proxy_dynflow.limit_nofile", "smart_proxy_dynflow_core LimitNOFILE", "count", inst, want,
          Fix("limit", "smart_proxy_dynflow_core", const("g62_nofile")))
    s.add("smart_proxy_dynflow.database", "smart_proxy_dynflow_core database", "text",
          Setting("/var/lib/foreman-proxy/dynflow/dynflow.sqlite", "on-disk sqlite", ("pfp-dynflow-database", "g62-remote-execution")),
          Setting("in-memory", "in-memory sqlite answers faster under remote execution load", ("g62-remote-execution",)),
          Fix("file", "/etc/smart_proxy_dynflow_core/settings.yml", ':database: ""'))


def memory(s: Sizing) -> list[MemoryItem]:
    return [memory_item("Smart Proxy", 1, "foreman_proxy", "WEBrick and plugins")]


COMPONENT = Component("smart_proxy", memory=memory)
