"""MongoDB (Pulp 2): the storage engine and, with WiredTiger, its cache size."""

from __future__ import annotations

from foretune.knowledge import module_default, module_default_citation
from foretune.plan.constants import memory_range
from foretune.plan.model import Fix, Input, MemoryItem, Setting
from foretune.plan.sizing import GIB, Component, Sizing, box, memory_item, percent

ENGINE_KEY = "mongodb::server::storage_engine"  # an upgrade that kept MMAPv1 writes it to custom-hiera.yaml


def engine(s: Sizing) -> tuple[str, str]:
    """(engine, where set): a mongodb::server::storage_engine the box sets wins over the release's engine.

    An upgrade from MongoDB 2.6 keeps MMAPv1 by writing that key to custom-hiera.yaml (mongodb-upgrade-mmapv1).
    """
    value, where = s.inp.configured.get(ENGINE_KEY, (None, ""))
    name = str(value).lower()
    if name in ("mmapv1", "wiredtiger"):
        return name, where
    return s.f.mongodb_engine, ""


def plan(s: Sizing) -> None:
    if not (s.f.mongodb and s.katello):
        return
    name, where = engine(s)
    if not s.server and name != "wiredtiger":  # a Capsule's MMAPv1: nothing to size, as on the server
        return
    if name != "wiredtiger":
        inst = (Setting("mmapv1", f"set in the {where}: the upgrade from MongoDB 2.6 kept the MMAPv1 data files",
                        ("mongodb-upgrade-mmapv1",), origin=where) if where else
                Setting("mmapv1", "MongoDB 2.6 on this release: MMAPv1 maps the data files with mmap()", ("mongodb-engine",)))
        s.add("mongodb.storage_engine", "MongoDB storage engine", "text", inst,
              Setting("mmapv1", "no cache size to set: mmap() leaves caching to the kernel (a cacheSizeGB key would stop mongod); "
                                "keep /var/lib/mongodb off NFS", ("mongodb-engine", "g62-mongodb")))
        return
    fraction = module_default("mongodb_cache_fraction")
    want = round(s.ram_gib * fraction, 2)
    auto = s.base.get("mongodb::server::config_data") is not None  # tuning/common.yaml: servers and Capsules alike
    inst = Setting(want if auto else None, f"installer computes {percent(fraction)} of RAM" if auto
                   else "not set: mongod takes about 50 % of RAM", ("fi-mongo-cache",))
    s.add("mongodb.cache_size_gb", "MongoDB WiredTiger cacheSizeGB", "count", inst,
          Setting(want, f"{percent(fraction)} of RAM; unbounded mongod competes with "
                        f"{'PostgreSQL' if s.server else 'the Capsule services'} (WiredTiger only: not on a box whose "
                        "upgrade kept MMAPv1)", ("g69-mongodb", "fi-mongo-cache", "mongodb-upgrade-mmapv1"),
                  f"round({s.ram_gib:.2f} GiB x {fraction}, 2) = {want}",
                  (Input("cache fraction", fraction, module_default_citation("mongodb_cache_fraction")), box("RAM GiB", round(s.ram_gib, 2)))),
          Fix("hiera", "mongodb::server::config_data", {"storage.wiredTiger.engineConfig.cacheSizeGB": want}))


def memory(s: Sizing) -> list[MemoryItem]:
    if not (s.f.mongodb and s.katello):
        return []
    if engine(s)[0] == "wiredtiger":  # a Capsule's Pulp 2 too: foreman-installer 2.1-2.3 sizes its cache as the server's
        fraction = module_default("mongodb_cache_fraction")
        cache = s.ram_gib * fraction
        fill = memory_range("mongodb_cache_fill")
        plan = cache * (fill[0] + fill[1]) / 2
        return [memory_item("MongoDB", 1, "mongodb_overhead", "mongod beside its cache"),
                MemoryItem("MongoDB cache", int(plan * GIB), f"cacheSizeGB {percent(fraction)} of RAM, filled as the working set grows",
                           int(cache * fill[0] * GIB), int(cache * fill[1] * GIB), ("fi-mongo-cache", fill[2]))]
    return [memory_item("MongoDB", 1, "mongodb_overhead", "mongod; MMAPv1 data lives in the evictable page cache")]


COMPONENT = Component("mongodb", memory=memory)
