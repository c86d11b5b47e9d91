"""Choosing a plan from facts lives in plan/: `audit` builds its rule context from the same choice `plan --from` makes."""

from __future__ import annotations

from foretune.audit.context import build_context
from foretune.facts.model import Fact, FactSet, Provenance
from foretune.knowledge import hardware
from foretune.plan.choose import choose_plan, declared_profile, hardware_profile, host_figure, profile_move

GIB = 1024**3


def facts(**values: object) -> FactSet:
    fs = FactSet("fixture", "test")
    base: dict[str, object] = {"product": "satellite", "product_version": "6.15.2", "foreman_version": "3.9.1",
                               "role": "server", "cpu_logical": 16, "ram_bytes": 64 * GIB}
    base.update(values)
    for name, value in base.items():
        fs.add(Fact(name, value, (Provenance("fixture", f"{name}.file", f"{name}: {value}"),)))
    return fs


def test_the_audit_context_carries_the_choice_plan_from_makes() -> None:
    fs = facts(tuning_profile="medium")
    choice = choose_plan(fs)
    ctx, notes = build_context(fs)
    assert choice.plan is not None and ctx.plan == choice.plan and ctx.plan.profile == "medium"
    assert ctx.host_figure == choice.figure and ctx.profile_reason == choice.profile_reason
    assert notes == list(choice.notes)


def test_profile_and_host_figure_parts() -> None:
    fs = facts(tuning_profile="large", managed_hosts=12000)
    assert declared_profile(fs, choose_plan(fs).release) == "large"
    # the tuning guide's table: large "10000 – 20000" hosts, "64 GiB", "16" cores; extra-large 128 GiB, 32 cores
    assert hardware_profile(fs) == "large"
    assert hardware_profile(fs, cpus=8, ram=32 * GIB) == "medium"
    figure = host_figure(fs, None, "large")
    assert (figure.count, figure.source, figure.assumed) == (12000, "source", False)
    assert host_figure(fs, 500, "large").source == "--hosts"


def test_profile_move_follows_the_installer_hardware_check() -> None:
    """Figures by hand from hardware.yaml: medium ends at 10,000 hosts, large at 20,000; from foreman-installer 1.24 the
    check refuses large below 16 cores / 64 GiB (90 % of it: 57.6 GiB) and extra-large below 32 cores / 128 GiB."""
    gib = 1024 ** 3
    assert profile_move("large", 15000, 16, 64 * gib, "3.9") is None  # large covers 15,000 hosts
    move = profile_move("medium", 15000, 16, 64 * gib, "3.9")
    assert move is not None and (move.needed, move.now, move.refused) == ("large", "large", None)
    # 30,000 hosts need extra-large; 16 CPUs are refused it, and large is the largest accepted
    move = profile_move("medium", 30000, 16, 64 * gib, "3.9")
    assert move is not None and (move.needed, move.now) == ("extra-large", "large")
    assert move.refused is not None and (move.refused.cores, move.refused.profile) == (32, "extra-large")
    # a box the check accepts nothing above medium for: no move now, hardware first
    move = profile_move("medium", 30000, 12, 48 * gib, "3.9")
    assert move is not None and move.now is None
    # nothing known about the box: the needed profile, unchecked
    move = profile_move("medium", 30000, None, None, None)
    assert move is not None and (move.now, move.refused) == ("extra-large", None)


def test_largest_accepted_counts_only_profiles_below() -> None:
    gib = 1024 ** 3
    assert hardware.largest_accepted(16, 64 * gib, "3.9", below="extra-large") == "large"
    assert hardware.largest_accepted(16, 57 * gib, "3.9", below="extra-large") == "medium"  # 57 < 57.6 GiB
    assert hardware.largest_accepted(2, 4 * gib, "3.9", below="medium") is None
