"""Typed access to the planner's cited constants (knowledge/data/planner.yaml)."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import load_data


def const(key: str) -> Any:
    """The value of planner constant ``key``."""
    return load_data("planner.yaml")[key]["value"]


def cite(key: str) -> str:
    """The citation id of planner constant ``key``."""
    return str(load_data("planner.yaml")[key]["citation"])


def memory_gib(item: str) -> float:
    return float(load_data("planner.yaml")["memory"][item])


def default(key: str, field: str = "value") -> Any:
    """A module default from knowledge/data/module-defaults.yaml."""
    return load_data("module-defaults.yaml")[key][field]


def default_cite(key: str) -> str:
    return str(load_data("module-defaults.yaml")[key]["citation"])


def stepped(key: str, x: float, *, inclusive: bool = True) -> int:
    """Look ``x`` up in a ``[[upper_bound, value], ...]`` table (null bound = no limit)."""
    for bound, value in const(key):
        if bound is None or x < bound or (inclusive and x == bound):
            return int(value)
    raise ValueError(f"table {key} has no open upper bound")
