"""Judge custom-hiera keys against a release: stale keys, and keys that lock out ``--tuning``."""

from __future__ import annotations

from typing import Any, NamedTuple

from foretune.knowledge import load_data
from foretune.knowledge.model import SIZES, Release
from foretune.knowledge.profiles import flatten, installer_hiera
from foretune.knowledge.releases import version_key


class KeyNote(NamedTuple):
    """A custom-hiera key judged against a release (a named tuple: `plan` loads no dataclasses)."""

    key: str
    reason: str
    citation: str
    refused: bool = False  # the release refuses it (the service does not start), not merely ignores it


def _matches(pattern: str, key: str) -> bool:
    return key.startswith(pattern[:-1]) if pattern.endswith("*") else key == pattern


def stale_keys(release: Release, hiera: dict[str, Any]) -> list[KeyNote]:
    """Keys of ``hiera`` that are inert or harmful on ``release``."""
    notes = []
    for key in flatten(hiera):
        for entry in load_data("stale-hiera.yaml"):
            version = version_key(release.foreman_version)
            if version >= version_key(entry["since"]) and ("before" not in entry or version < version_key(entry["before"])) \
                    and _matches(entry["match"], key):
                notes.append(KeyNote(key, entry["reason"], entry["citation"], bool(entry.get("refused", False))))
                break
    return notes


def locking_keys(release: Release, hiera: dict[str, Any]) -> list[KeyNote]:
    """Keys of ``hiera`` that a tuning profile also sets: they win over every later ``--tuning`` change."""
    if not release.features.size_profiles:
        return []
    profile_keys: set[str] = set()
    for size in SIZES:
        profile_keys |= set(flatten(installer_hiera(release, size)))
    stale = {note.key for note in stale_keys(release, hiera)}
    return [KeyNote(key, "also set by the tuning profiles: this value locks out later --tuning changes", "fi-hiera-precedence")
            for key in flatten(hiera) if key in profile_keys and key not in stale]
