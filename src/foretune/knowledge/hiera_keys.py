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



def _pattern(name: str) -> str:
    """``name`` as a sed basic regular expression (hiera keys hold letters, digits, ``_``, ``:`` and ``.``)."""
    return name.replace(".", r"\.")


def backup_suffix(keys: list[str]) -> str:
    """The suffix of the copy a key deletion keeps, named after its first key, so that two deletions pasted one after
    the other never overwrite the copy of the file as it was (``.foretune-bak.db_pool``).

    >>> backup_suffix(["postgresql::server::config_entries/checkpoint_segments", "foreman::db_pool"])
    '.foretune-bak.checkpoint_segments'
    """
    return ".foretune-bak." + keys[0].replace("/", "::").rsplit("::", 1)[-1]


def delete_command(path: str, keys: list[str], hiera: dict[str, Any]) -> str | None:
    r"""One sed command that deletes ``keys`` (``a::b`` at the top, or ``a::b/leaf`` inside a hash) from the YAML file
    ``path`` in place, keeping the file before as ``path`` + :func:`backup_suffix`; a hash left empty goes with its
    last leaf. None when a value spans lines (a hash or list): a line edit could leave its lines behind.

    >>> delete_command("/f", ["foreman::db_pool"], {"foreman::db_pool": 5})
    "sed -i.foretune-bak.db_pool -e '/^foreman::db_pool:/d' /f"
    >>> delete_command("/f", ["p::c/checkpoint_segments"], {"p::c": {"checkpoint_segments": 32, "work_mem": "8MB"}})
    "sed -i.foretune-bak.checkpoint_segments -e '/^p::c:/,/^[^[:space:]#]/{/^[[:space:]]\\+checkpoint_segments:/d}' /f"
    """
    scripts: list[str] = []
    leaves: dict[str, list[str]] = {}
    for key in keys:
        top, _, leaf = key.partition("/")
        value = hiera.get(top)
        if not leaf:
            if isinstance(value, (dict, list)):
                return None
            scripts.append(f"/^{_pattern(top)}:/d")
        elif not isinstance(value, dict) or "/" in leaf or isinstance(value.get(leaf), (dict, list)):
            return None
        else:
            leaves.setdefault(top, []).append(leaf)
    for top, names in leaves.items():
        # from the hash's line to the next top-level key: its leaves' lines, and its own line when none is left
        head = [f"/^{_pattern(top)}:/d"] if set(hiera[top]) <= set(names) else []
        body = ";".join([*head, *(f"/^[[:space:]]\\+{_pattern(leaf)}:/d" for leaf in names)])
        scripts.append(f"/^{_pattern(top)}:/,/^[^[:space:]#]/{{{body}}}")
    return f"sed -i{backup_suffix(keys)} " + " ".join(f"-e '{script}'" for script in scripts) + f" {path}" if scripts else None
