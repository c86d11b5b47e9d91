"""Typed access to the planner's cited constants (knowledge/data/planner.yaml)."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import load_data
from foretune.knowledge.versions import version_key


def const(key: str) -> Any:
    """The value of planner constant ``key``."""
    return load_data("planner.yaml")[key]["value"]


def cite(key: str) -> str:
    """The citation id of planner constant ``key``."""
    return str(load_data("planner.yaml")[key]["citation"])


def memory_range(item: str) -> tuple[float, float, str]:
    """(low, high, citation) of memory item ``item`` in GiB (MiB for ``*_mib`` items)."""
    entry = load_data("planner.yaml")["memory"][item]
    scale = 1 / 1024 if entry.get("unit") == "MB" else 1.0  # the 6.2 brief's passenger-memory-stats give MB
    return float(entry["low"]) * scale, float(entry["high"]) * scale, str(entry["citation"])


def memory_gib(item: str) -> float:
    """The planning figure (high end) of memory item ``item``."""
    return memory_range(item)[1]


def entry(key: str) -> dict[str, Any]:
    """The whole planner constant entry (value, citation, quote, note)."""
    return dict(load_data("planner.yaml")[key])


def versioned(key: str, foreman_version: str) -> tuple[Any, str]:
    """(value, citation) of a module default that changed between releases."""

    found: tuple[Any, str] | None = None
    for step in load_data("module-defaults.yaml")["versioned"][key]:
        if version_key(step["since"]) <= version_key(foreman_version):
            found = (step["value"], str(step["citation"]))
    if found is None:
        raise ValueError(f"no {key} default for Foreman {foreman_version}")
    return found


def stepped(key: str, x: float, *, inclusive: bool = True) -> int:
    """Look ``x`` up in a ``[[upper_bound, value], ...]`` table (null bound = no limit)."""
    for bound, value in const(key):
        if bound is None or x < bound or (inclusive and x == bound):
            return int(value)
    raise ValueError(f"table {key} has no open upper bound")
