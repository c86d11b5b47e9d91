"""Candlepin: the JVM heap the installer gives it, its memory range, its database connections."""

from __future__ import annotations

from foretune.plan.components import candlepin
from tests.plan.components.helpers import GIB, plan, run


def test_heap_is_puppet_candlepins_4_gib_default() -> None:
    # puppet-candlepin manifests/init.pp: $java_opts = '-Xms1024m -Xmx4096m'
    t = run(candlepin.plan, "satellite", "6.15")["candlepin.heap_max"]
    assert t.installer.value == t.foretune.value == 4 * GIB
    assert [(f.target, f.value) for f in t.fixes] == [("candlepin::java_opts", "-Xms1024m -Xmx4096m")]
    assert run(candlepin.plan, "satellite", "6.15", role="capsule") == {}


def test_a_heap_the_box_sets_is_the_installer_column() -> None:
    configured = {"candlepin::java_opts": ("-Xms1024m -Xmx6g", "custom-hiera.yaml")}
    t = run(candlepin.plan, "satellite", "6.15", configured=configured)["candlepin.heap_max"]
    assert (t.installer.value, t.installer.origin) == (6 * GIB, "custom-hiera.yaml")


def test_memory_plans_half_the_way_from_xms_to_xmx_plus_jvm_overhead() -> None:
    # -Xms 1 GiB + half of the 3 GiB growth to -Xmx 4 GiB + 0.5 GiB overhead; from 1.3 GiB (-Xms + 0.3) to 4.5 GiB
    item = candlepin.candlepin_memory(4 * GIB)
    assert (item.bytes, item.low_bytes, item.high_bytes) == (3 * GIB, int(1.3 * GIB), int(4.5 * GIB))
    assert item.reason == "heap -Xms 1 GiB .. -Xmx 4.0 GiB + JVM overhead"
    assert candlepin.candlepin_memory(4 * GIB) in plan("satellite", "6.15").memory


def test_candlepin_connections_on_katello_servers_only() -> None:
    assert dict(plan("satellite", "6.15").connection_budget)["Candlepin"] == 25  # quartz 5 + Hibernate's estimated 20
    assert "Candlepin" not in dict(plan("satellite", "6.15", role="capsule").connection_budget)


def test_candlepin_heap_starts_with_the_puppet_candlepin_5_pin() -> None:
    # katello-installer 3.6.0 (theforeman/foreman 9.0.x, i.e. Foreman 1.17) first pins katello/candlepin 5.0.x
    assert "candlepin.heap_max" not in plan("foreman", "1.16").tunables
    heap = plan("foreman", "1.17").tunables["candlepin.heap_max"].installer
    assert heap.value == 4096 * 1024**2
    assert heap.citations == ("candlepin-heap-history", "candlepin-defaults")
    assert "candlepin.heap_max" not in plan("satellite", "6.3").tunables  # Foreman 1.15
