"""Kernel and OS: the tuned profile, transparent huge pages, and the OS's own memory floor."""

from __future__ import annotations

from foretune.plan.constants import const
from foretune.plan.model import Fix, MemoryItem, Setting
from foretune.plan.sizing import Component, Sizing, memory_item


def plan(s: Sizing) -> None:
    virtual = s.inp.virtual
    want = const("tuned_virtual") if virtual else const("tuned_bare_metal")
    why = (f"{want} on a VM" if virtual else f"{want} on bare metal" if virtual is False
           else f"{want} on bare metal ({const('tuned_virtual')} if this is a VM: pass --virtual)")
    s.add("os.tuned_profile", "tuned profile", "text", Setting(None, "not managed by the installer", ("g62-tuned",)),
          Setting(want, why, ("g62-tuned", "gf-hardware")),
          Fix("command", "systemctl enable --now tuned"), Fix("command", f"tuned-adm profile {want}"))
    s.add("os.thp", "transparent huge pages", "text", Setting("always", "RHEL default", ("gf-hardware",)),
          Setting("never", "THP hurts PostgreSQL and Redis" if s.f.redis else
                  "THP hurts PostgreSQL and MongoDB" + (" (the 6.9 guide's advice; the 6.2 brief does not cover THP)" if s.era62 else ""),
                  ("gf-hardware", "gf-redis") if s.f.redis else ("gf-hardware", "g69-thp")),
          Fix("command", "grubby --update-kernel=ALL --args=transparent_hugepage=never"),
          Fix("command", "echo never > /sys/kernel/mm/transparent_hugepage/enabled"))


def memory(s: Sizing) -> list[MemoryItem]:
    return [memory_item("OS and page cache floor", 1, "os_base", "foretune estimate")]


COMPONENT = Component("kernel", memory=memory)
