"""MongoDB (Pulp 2): the storage engine and WiredTiger's cache size."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.knowledge.releases import resolve_release
from foretune.plan.components import mongodb
from tests.plan.components.helpers import GIB, explain, plan, run


def test_wiredtiger_cache_is_a_fifth_of_ram() -> None:
    # foreman-installer's MongoDB hiera (fi-mongo-cache): cacheSizeGB is 20 % of RAM; 20 % of 32 GiB is 6.4
    t = run(mongodb.plan, "satellite", "6.9")["mongodb.cache_size_gb"]
    assert t.foretune.value == 6.4
    assert t.fixes[0].value == {"storage.wiredTiger.engineConfig.cacheSizeGB": 6.4}
    assert run(mongodb.plan, "satellite", "6.15") == {}  # no MongoDB with pulpcore alone


def test_cache_wording_follows_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(load_data("module-defaults.yaml")["mongodb_cache_fraction"], "value", 0.25)
    p = plan("satellite", "6.9")
    assert p.tunables["mongodb.cache_size_gb"].foretune.value == 8.0
    assert "foretune: 8.0 — 25 % of RAM;" in explain(p, "mongodb.cache_size_gb")
    cache = next(m for m in p.memory if m.component == "MongoDB cache")
    assert cache.reason.startswith("cacheSizeGB 25 % of RAM") and cache.high_bytes == 8 * GIB


def test_mongodb_engine_boundary_is_the_scl_hiera_tag() -> None:
    # 540f931 (rh-mongodb34 hiera, no storage engine set) is first tagged foreman-installer 1.18.0
    assert resolve_release("foreman", "1.17").features.mongodb_engine == "mmapv1"
    assert resolve_release("foreman", "1.18").features.mongodb_engine == "wiredtiger"
    assert resolve_release("satellite", "6.3").features.mongodb_engine == "mmapv1"
    t63 = plan("satellite", "6.3").tunables
    assert t63["mongodb.storage_engine"].installer.value == "mmapv1"
    assert "mongodb.cache_size_gb" not in t63


def test_an_upgrade_that_kept_mmapv1_gets_no_cache_advice() -> None:
    # katello-installer 3.7.0 hooks/pre/30-upgrade.rb appends mongodb::server::storage_engine: 'mmapv1' to custom-hiera.yaml
    kept = {"mongodb::server::storage_engine": ("mmapv1", "custom-hiera.yaml")}
    p = plan("satellite", "6.4", configured=kept)
    t = p.tunables
    assert "mongodb.cache_size_gb" not in t
    engine = t["mongodb.storage_engine"]
    assert (engine.installer.value, engine.installer.origin, engine.installer.citations) == (
        "mmapv1", "custom-hiera.yaml", ("mongodb-upgrade-mmapv1",))
    assert "upgrade from MongoDB 2.6" in engine.installer.reason
    assert [m.component for m in p.memory if m.component.startswith("MongoDB")] == ["MongoDB"]
    fresh = plan("satellite", "6.4", configured={"mongodb::server::storage_engine": ("wiredTiger", "custom-hiera.yaml")})
    assert fresh.tunables["mongodb.cache_size_gb"].foretune.value == 6.4


def test_a_69_capsule_budgets_the_cache_the_installer_gives_its_mongodb() -> None:
    # foreman-installer 2.3.0 (Satellite 6.9): hooks/pre_commit/14-mongo-cache-size.rb runs when pulp_enabled? (the
    # Capsule answers set foreman_proxy::plugin::pulp pulpnode_enabled: true) and stores 20 % of RAM; tuning/common.yaml,
    # read for every scenario, puts it in storage.wiredTiger.engineConfig.cacheSizeGB. 32 GiB x 0.2 = 6.4
    p = plan("satellite", "6.9", role="capsule", cpus=8, ram_gib=32)
    t = p.tunables["mongodb.cache_size_gb"]
    assert (t.installer.value, t.foretune.value) == (6.4, 6.4) and not t.differs
    cache = next(item for item in p.memory if item.component == "MongoDB cache")
    assert (cache.low_bytes, cache.high_bytes) == (int(3.2 * GIB), int(6.4 * GIB))  # filled half to all of 6.4 GiB
    # a 6.2 Capsule's MongoDB 2.6 (MMAPv1) has no cache to size or budget
    assert "mongodb.cache_size_gb" not in plan("satellite", "6.2", role="capsule").tunables
