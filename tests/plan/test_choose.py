"""Choosing a plan from facts lives in plan/: `audit` builds its rule context from the same choice `plan --from` makes."""

from __future__ import annotations

from foretune.audit.context import build_context
from foretune.facts.model import Fact, FactSet, Provenance
from foretune.plan.choose import choose_plan, declared_profile, hardware_profile, host_figure

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
