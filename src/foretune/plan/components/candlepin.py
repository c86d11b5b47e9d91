"""Candlepin: the JVM heap the installer gives it, its resident memory, its database connections."""

from __future__ import annotations

from foretune.plan.constants import const, memory_range, versioned
from foretune.plan.model import Fix, MemoryItem, Setting
from foretune.plan.sizing import GIB, MIB, Component, Sizing, memory_item
from foretune.units import format_bytes, format_gib, jvm_size_option


def _configured_heap(value: object) -> int | None:
    """candlepin::java_opts as the box sets it, as the heap it gives."""
    return jvm_size_option(str(value))


def candlepin_memory(heap: int, xms: int = GIB) -> MemoryItem:
    """Candlepin's resident range: -Xms plus JVM overhead up to the full -Xmx heap plus overhead."""
    olow, ohigh, osrc = memory_range("jvm_overhead")
    growth = memory_range("heap_growth")[1]
    xms = min(xms, heap)
    plan = int(xms + (heap - xms) * growth + ohigh * GIB)
    return MemoryItem("Candlepin", plan, f"heap -Xms {format_bytes(xms)} .. -Xmx {format_gib(heap)} + JVM overhead",
                      int(xms + olow * GIB), int(heap + ohigh * GIB), (osrc, "candlepin-defaults"))


def _java_opts(s: Sizing) -> tuple[str | None, str | None, str]:
    """(options, the profile's options, the module default's citation) the installer gives Candlepin's JVM."""
    module_opts, module_cite = versioned("candlepin_java_opts", s.fv)
    profile_opts = s.base.get("candlepin::java_opts")
    return profile_opts or module_opts, profile_opts, module_cite


def plan(s: Sizing) -> None:
    if not (s.server and s.katello):
        return
    opts, profile_opts, module_cite = _java_opts(s)
    if opts is None:
        return  # the installer sets no Candlepin heap on this release and the brief gives none: nothing to plan
    inst = Setting(jvm_size_option(opts), f"{'profile' if profile_opts else 'puppet-candlepin default'} {opts}",
                   ("fi-tuning-profiles",) if profile_opts else tuple(dict.fromkeys((module_cite, "candlepin-defaults"))))
    fix = Fix("hiera", "candlepin::java_opts", f"-Xms{(jvm_size_option(opts, '-Xms') or GIB) // MIB}m -Xmx{(inst.value or 0) // MIB}m")
    site = s.in_force((fix,), inst, _configured_heap)
    if site.origin and isinstance(site.value, int) and site.value > (inst.value or 0):
        # no guide sizes Candlepin's heap: the profile's is a default, not a ceiling, so a site's larger heap stays
        s.add("candlepin.heap_max", "Candlepin JVM heap (-Xmx)", "bytes", inst,
              s.same(site, f"kept: the {site.origin} gives Candlepin more heap than the installer's "
                           f"{format_bytes(inst.value or 0)}; no guide sizes it, so that is no ceiling", *inst.citations),
              fix._replace(value=str(s.inp.configured["candlepin::java_opts"][0])), configured=_configured_heap)
        return
    whose = (f"the {s.profile} profile's heap" if profile_opts
             else f"puppet-candlepin's default (the {s.profile} profile sets none)")
    s.add("candlepin.heap_max", "Candlepin JVM heap (-Xmx)", "bytes", inst,
          s.same(inst, whose, *inst.citations), fix, configured=_configured_heap)


def memory(s: Sizing) -> list[MemoryItem]:
    t = s.tunables
    if "candlepin.heap_max" in t and t["candlepin.heap_max"].foretune.value:
        return [candlepin_memory(t["candlepin.heap_max"].foretune.value, jvm_size_option(_java_opts(s)[0], "-Xms") or GIB)]
    if s.server and s.katello:
        item = memory_item("Candlepin", 2.5, "jvm_overhead", "")
        return [item._replace(reason=f"Tomcat's own heap: about {format_bytes(item.bytes)}")]
    return []


def connections(s: Sizing, installer: bool) -> list[tuple[str, int]]:
    return [("Candlepin", const("candlepin_connections"))] if s.server and s.katello else []


COMPONENT = Component("candlepin", memory=memory, connections=connections)
