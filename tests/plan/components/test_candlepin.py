"""Candlepin: the JVM heap the installer gives it, its memory range, its database connections."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
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


def test_candlepin_wording_and_fix_follow_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    # the -Xms of the installer's java_opts goes into the fix and the memory range, not a fixed 1024m
    steps = load_data("module-defaults.yaml")["versioned"]["candlepin_java_opts"]
    monkeypatch.setitem(steps[-1], "value", "-Xms2048m -Xmx4096m")
    p = plan("satellite", "6.15")
    assert [(f.target, f.value) for f in p.tunables["candlepin.heap_max"].fixes] == [("candlepin::java_opts", "-Xms2048m -Xmx4096m")]
    item = next(m for m in p.memory if m.component == "Candlepin")
    assert item.reason == "heap -Xms 2 GiB .. -Xmx 4.0 GiB + JVM overhead"
    assert item.low_bytes == int((2 + 0.3) * GIB)  # -Xms + the low JVM overhead


def test_tomcat_heap_without_a_planned_heap_is_worded_from_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    # Satellite 6.2 (Katello 3.0): the installer sets no Candlepin heap; 2.5 x the JVM overhead estimate's middle
    item = next(m for m in plan("satellite", "6.2", physical_cores=4).memory if m.component == "Candlepin")
    assert item.reason == "Tomcat's own heap: about 1 GiB"  # 2.5 x (0.3 + 0.5) / 2
    monkeypatch.setitem(load_data("planner.yaml")["memory"]["jvm_overhead"], "high", 0.9)
    item = next(m for m in plan("satellite", "6.2", physical_cores=4).memory if m.component == "Candlepin")
    assert item.reason == "Tomcat's own heap: about 1.5 GiB"  # 2.5 x (0.3 + 0.9) / 2


def test_a_sites_larger_heap_is_kept_no_guide_sizes_candlepin() -> None:
    # The Foreman and Satellite tuning guides give no Candlepin heap; the -Xmx4096m under the large profile is
    # puppet-candlepin's default (the size file sets none), not a ceiling. A site's -Xmx6g in custom-hiera.yaml stays, and the memory budget counts 6 GiB.
    site = {"candlepin::java_opts": ("-Xms1024m -Xmx6g", "custom-hiera.yaml")}
    p = plan("satellite", "6.15", hosts=15000, cpus=16, ram_gib=64, configured=site)
    heap = p.tunables["candlepin.heap_max"]
    assert (heap.installer.value, heap.foretune.value) == (6 * GIB, 6 * GIB)
    assert heap.foretune.reason.startswith("kept: the custom-hiera.yaml gives Candlepin more heap than the installer's 4 GiB")
    assert [f.value for f in heap.fixes] == ["-Xms1024m -Xmx6g"]
    assert next(m for m in p.memory if m.component == "Candlepin").high_bytes > 6 * GIB
    # a smaller site heap is not kept: 4 GiB is what the installer would give
    small = plan("satellite", "6.15", hosts=15000, cpus=16, ram_gib=64,
                 configured={"candlepin::java_opts": ("-Xms1024m -Xmx2g", "custom-hiera.yaml")}).tunables["candlepin.heap_max"]
    assert small.foretune.value == 4 * GIB
