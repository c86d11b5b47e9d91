"""Everything foretune knows, read from cited data files in ``knowledge/data``.

Public API: :func:`load_data`, :func:`citation`, :func:`citations`, :func:`threshold`
(more — releases, profiles, module defaults — in the submodules).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from foretune.errors import DataError
from foretune.knowledge.model import Citation


@functools.cache
def load_data(name: str) -> Any:
    """Parse ``knowledge/data/<name>`` (YAML) once."""
    import yaml

    try:
        text = resources.files("foretune.knowledge").joinpath("data").joinpath(name).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise DataError(f"bundled data file missing: {name}") from exc
    return yaml.safe_load(text)


def _data_files(prefix: str) -> list[str]:
    folder = resources.files("foretune.knowledge").joinpath("data")
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(prefix) and p.name.endswith(".yaml"))


@functools.lru_cache(maxsize=1)
def citations() -> dict[str, Citation]:
    """All citations, merged from ``citations*.yaml`` (one file per area)."""
    merged: dict[str, Citation] = {}
    for name in _data_files("citations"):
        for cid, entry in (load_data(name) or {}).items():
            if cid in merged:
                raise DataError(f"citation {cid!r} defined twice ({name})")
            merged[cid] = Citation(cid, entry["title"], entry["where"])
    return merged


def citation(cid: str) -> Citation:
    """The citation with id ``cid``; an unknown id is a data bug."""
    try:
        return citations()[cid]
    except KeyError:
        raise DataError(f"unknown citation id {cid!r}") from None


@functools.lru_cache(maxsize=1)
def _thresholds() -> dict[str, dict[str, Any]]:
    merged: dict[str, dict[str, Any]] = {}
    for name in _data_files("thresholds"):
        merged.update(load_data(name) or {})
    return merged


def threshold(key: str) -> Any:
    """A rule threshold from ``thresholds*.yaml`` (each entry: value, unit, citation, note)."""
    try:
        return _thresholds()[key]["value"]
    except KeyError:
        raise DataError(f"unknown threshold {key!r}") from None


def threshold_entries() -> dict[str, dict[str, Any]]:
    """Every threshold with its metadata (for docs and data tests)."""
    return dict(_thresholds())
