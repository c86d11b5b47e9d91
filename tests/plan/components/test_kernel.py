"""Kernel and OS: the tuned profile and transparent huge pages."""

from __future__ import annotations

from foretune.plan.components import kernel
from tests.plan.components.helpers import plan, run


def test_tuned_profile_follows_the_guides_bare_metal_and_vm_advice() -> None:
    # Foreman guide: "On bare-metal, Foreman community recommends to run the throughput-performance tuned profile on
    # Foreman server and Smart Proxies. On virtual machines, Foreman community recommends to run the virtual-guest profile"
    assert run(kernel.plan, "satellite", "6.15", virtual=False)["os.tuned_profile"].foretune.value == "throughput-performance"
    assert run(kernel.plan, "satellite", "6.15", virtual=True)["os.tuned_profile"].foretune.value == "virtual-guest"
    unknown = run(kernel.plan, "satellite", "6.15")["os.tuned_profile"].foretune
    assert unknown.value == "throughput-performance" and "pass --virtual" in unknown.reason


def test_transparent_huge_pages_off_naming_the_release_s_datastore() -> None:
    assert run(kernel.plan, "satellite", "6.15")["os.thp"].foretune.value == "never"
    assert "Redis" in run(kernel.plan, "satellite", "6.15")["os.thp"].foretune.reason
    assert "MongoDB" in run(kernel.plan, "satellite", "6.7")["os.thp"].foretune.reason


def test_os_floor_opens_the_memory_budget() -> None:
    first = plan("satellite", "6.15").memory[0]
    assert first.component == "OS and page cache floor"
    assert (first.low_bytes, first.high_bytes) == (1 * 1024**3, 2 * 1024**3)  # planner.yaml memory/os_base: 1.0-2.0 GiB
