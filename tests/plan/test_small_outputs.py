"""Capsule outputs name their scenario and no --tuning; inputs far beyond the guides' scale get a note."""

from __future__ import annotations

import pytest

from foretune.knowledge import load_data
from foretune.plan import PlanInput, make_plan
from foretune.render.outputs import hiera_fragment, installer_command

GIB = 1024**3


def test_capsules_get_their_scenario_and_no_tuning_wording() -> None:
    # foreman-installer's scenario for a Capsule is config/foreman-proxy-content.yaml; satellite-installer's is capsule
    foreman = make_plan(PlanInput("foreman", "3.7", role="capsule", hosts=1000, cpus=4, ram_bytes=16 * GIB))
    assert installer_command(foreman).splitlines()[0].startswith("foreman-installer --scenario foreman-proxy-content")
    satellite = make_plan(PlanInput("satellite", "6.15", role="capsule", hosts=1000, cpus=4, ram_bytes=16 * GIB))
    assert installer_command(satellite).splitlines()[0].startswith("satellite-installer --scenario capsule")
    for capsule in (foreman, satellite):
        assert "--tuning" not in hiera_fragment(capsule) and "--tuning" not in installer_command(capsule)
    server = make_plan(PlanInput("satellite", "6.15", hosts=3000, cpus=8, ram_bytes=32 * GIB))
    assert "# Values here win over --tuning: remove them before changing profiles." in hiera_fragment(server)
    assert installer_command(server).startswith("satellite-installer \\\n  --tuning default")


def notes(**box: int) -> list[str]:
    plan = make_plan(PlanInput("satellite", "6.15", **box))
    return [p.message for p in plan.problems if p.code == "beyond-tested-scale"]


def test_far_beyond_the_guides_largest_profile_is_a_note() -> None:
    # the guides' largest row: extra-extra-large "60000+" hosts, "256 GiB+", "48+" cores
    far = notes(hosts=10_000_000, cpus=64, ram_bytes=20 * 1024 * GIB)
    assert len(far) == 1 and far[0].startswith("10000000 hosts and 20480.0 GiB RAM: far beyond the guides' largest profile")
    assert notes(hosts=60_000, cpus=48, ram_bytes=256 * GIB) == []
    assert notes(hosts=100_000, cpus=64, ram_bytes=512 * GIB) == []  # above the last boundary, still within reach of it


def test_beyond_scale_note_words_the_largest_profile_from_the_data(monkeypatch: pytest.MonkeyPatch) -> None:
    far = notes(hosts=10_000_000, cpus=64, ram_bytes=512 * GIB)
    assert far == ["10000000 hosts: far beyond the guides' largest profile (extra-extra-large: over 60000 hosts, 48+ cores, "
                   "256 GiB+): the values follow the formulas, but no guide or load test covers this scale"]
    sizes = load_data("hardware.yaml")["profiles"]["sizes"]
    monkeypatch.setitem(sizes["extra-extra-large"], "cores", 96)
    monkeypatch.setitem(sizes["extra-extra-large"], "ram_gib", 1536)
    monkeypatch.setitem(sizes["extra-large"], "max_hosts", 90000)
    assert notes(hosts=10_000_000, cpus=64, ram_bytes=512 * GIB)[0].startswith(
        "10000000 hosts: far beyond the guides' largest profile (extra-extra-large: over 90000 hosts, 96+ cores, 1.5 TiB+)")
