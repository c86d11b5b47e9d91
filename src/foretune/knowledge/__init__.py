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


_GITHUB_OWNERS = ("theforeman", "puppetlabs", "voxpupuli", "Katello", "pulp", "sosreport", "RedHatInsights", "ATIX-AG")


def github_url(where: str) -> str | None:
    """The public GitHub address of an upstream locator: ``owner/repo path @sha`` or ``owner/repo sha``.

    >>> github_url("theforeman/foreman-installer config/foreman-hiera.yaml @97487cf")
    'https://github.com/theforeman/foreman-installer/blob/97487cf/config/foreman-hiera.yaml'
    >>> github_url("theforeman/foreman-installer e077f41 (2020-02-05, #28928, FI 2.0)")
    'https://github.com/theforeman/foreman-installer/commit/e077f41'
    >>> github_url("theforeman/foreman-installer config/foreman.hiera/tuning/{common.yaml,sizes/*.yaml}, current @97487cf")
    'https://github.com/theforeman/foreman-installer/tree/97487cf'
    >>> github_url("Tuning Foreman guide, 5.3.1") is None
    True
    """
    import re

    match = re.match(r'"?([A-Za-z0-9-]+)/([A-Za-z0-9_.-]+) (.*)', where)
    if not match or match.group(1) not in _GITHUB_OWNERS:
        return None
    owner, repo, rest = match.groups()
    base = f"https://github.com/{owner}/{repo}"
    path = re.match(r"([\w./-]+) @([0-9a-f]{7,40})\b", rest)
    if path:
        return f"{base}/blob/{path.group(2)}/{path.group(1)}"
    pinned = re.search(r"@([0-9a-f]{7,40})\b", rest)
    if pinned:
        return f"{base}/tree/{pinned.group(1)}"
    commit = re.match(r"([0-9a-f]{7,40})\b", rest)
    return f"{base}/commit/{commit.group(1)}" if commit else base


@functools.lru_cache(maxsize=1)
def citations() -> dict[str, Citation]:
    """All citations, merged from ``citations*.yaml`` (one file per area)."""
    merged: dict[str, Citation] = {}
    for name in _data_files("citations"):
        for cid, entry in (load_data(name) or {}).items():
            if cid in merged:
                raise DataError(f"citation {cid!r} defined twice ({name})")
            merged[cid] = Citation(cid, entry["title"], entry["where"], entry.get("url") or github_url(entry["where"]))
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
