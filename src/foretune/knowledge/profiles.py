"""What ``foreman-installer --tuning PROFILE`` applies on a given installer version."""

from __future__ import annotations

import copy
from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import load_data
from foretune.knowledge.model import PROFILES, SIZES, Release
from foretune.knowledge.releases import version_key

PG = "postgresql::server::config_entries"


def profiles_for(release: Release) -> tuple[str, ...]:
    """Profiles the installer of ``release`` accepts (none before size profiles)."""
    if not release.features.size_profiles:
        return ()
    if version_key(release.foreman_version) >= (3, 4):
        return PROFILES
    return SIZES


def installer_hiera(release: Release, profile: str = "default", role: str = "server") -> dict[str, Any]:
    """The hiera ``--tuning profile`` gives on ``release`` (common + size, PostgreSQL hash merged).

    Capsules get the common layer only: the installer has no tuning fact for them.
    """
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r} (choose from {', '.join(PROFILES)})")
    allowed = profiles_for(release)
    if profile != "default" and allowed and profile not in allowed:
        raise UsageError(f"{release.label} has no {profile!r} tuning profile")
    if profile != "default" and not allowed:
        raise UsageError(f"{release.label} has no tuning profiles (they arrived with Foreman 1.24 / Satellite 6.7)")
    common: dict[str, Any] = {}
    sizes: dict[str, dict[str, Any]] = {name: {} for name in SIZES[1:]}
    data = load_data("installer-tuning.yaml")
    for step in data["steps"]:
        if version_key(step["since"]) > version_key(release.foreman_version):
            break
        _apply(common, step.get("common", {}))
        for size, values in step.get("sizes", {}).items():
            _apply(sizes[size], values)
        for key in step.get("remove", []):
            for layer in (common, *sizes.values()):
                _remove(layer, key)
    merged = copy.deepcopy(common)
    if role == "server" and profile in sizes:
        _apply(merged, sizes[profile])
    return merged


def newest_size_value(size: str, key: str) -> Any:
    """What the newest installer's ``sizes/<size>.yaml`` gives ``key`` (None when it sets nothing there)."""
    layer: dict[str, Any] = {}
    for step in load_data("installer-tuning.yaml")["steps"]:
        _apply(layer, step.get("sizes", {}).get(size, {}))
        for removed in step.get("remove", []):
            _remove(layer, removed)
    return copy.deepcopy(layer.get(key))


def tuning_files(release: Release, profile: str) -> str:
    """The installer files ``--tuning profile`` reads on this release, for provenance lines."""
    if release.epoch == "tuning.yaml":
        return "tuning.yaml"
    if profile in SIZES and profile != "default":
        return f"tuning/common.yaml + tuning/sizes/{profile}.yaml"
    return "tuning/common.yaml"


def _apply(target: dict[str, Any], values: dict[str, Any]) -> None:
    for key, value in values.items():
        if key == PG and isinstance(target.get(key), dict):
            target[key] = {**target[key], **value}
        else:
            target[key] = copy.deepcopy(value)


def _remove(layer: dict[str, Any], key: str) -> None:
    if "/" in key:
        outer, inner = key.split("/", 1)
        layer.get(outer, {}).pop(inner, None)
    else:
        layer.pop(key, None)


def flatten(hiera: dict[str, Any]) -> dict[str, Any]:
    """One level: PostgreSQL entries become ``postgresql::server::config_entries/<name>``.

    >>> flatten({PG: {"work_mem": "4MB"}, "a": 1})
    {'postgresql::server::config_entries/work_mem': '4MB', 'a': 1}
    """
    flat: dict[str, Any] = {}
    for key, value in hiera.items():
        if key == PG:
            flat.update({f"{PG}/{name}": entry for name, entry in value.items()})
        else:
            flat[key] = value
    return flat
