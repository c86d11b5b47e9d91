"""Every component module is registered: its budget share in COMPONENTS, its planning steps in STEPS."""

from __future__ import annotations

import importlib
import pkgutil

import foretune.plan.components as package
from foretune.plan.components import COMPONENTS, STEPS
from foretune.plan.sizing import num, percent


def test_every_component_module_is_registered() -> None:
    names = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
    assert names == sorted(c.name for c in COMPONENTS)
    for name in names:
        module = importlib.import_module(f"foretune.plan.components.{name}")
        assert module.COMPONENT in COMPONENTS, name
        steps = [step for step in STEPS if step.__module__ == module.__name__]
        assert steps or name == "redis", f"{name} plans no tunable"  # Redis only takes its share of the memory budget


def test_figures_are_worded_as_the_data_gives_them() -> None:
    assert (num(1.5), num(100), num(0.2), num(1 + 0.1)) == ("1.5", "100", "0.2", "1.1")
    assert (percent(0.25), percent(0.07), percent(0.2), percent(0.125)) == ("25 %", "7 %", "20 %", "12.5 %")
