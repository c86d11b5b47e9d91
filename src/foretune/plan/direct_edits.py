"""Releases without custom-hiera (Satellite 6.2): a hiera fix becomes an edit of the file the installer renders."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import load_data
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix


def direct_edit(fix: Fix, *, capsule: bool = False) -> Fix:
    """On releases without custom-hiera (Satellite 6.2) a hiera fix becomes an edit of the file it ends up in."""
    if fix.kind != "hiera":
        return fix

    edits: dict[str, Any] = load_data("direct-edits.yaml")
    key = fix.target.split("/", 1)[1] if fix.target.startswith(PG + "/") else fix.target
    entry = edits.get(key) or (edits["postgresql"] if fix.target.startswith(PG + "/") else None)
    if entry is None:
        return Fix("advice", fix.target, f"set {fix.value} in the file the installer renders it to (no custom-hiera on this release)")
    if entry.get("kind") == "limit":
        return Fix("limit", entry["unit"], fix.value)
    value = {True: "true", False: "false"}.get(fix.value, fix.value) if isinstance(fix.value, bool) else fix.value
    if entry.get("kind") == "installer":  # a class parameter of this release's module: the answers file keeps it
        return Fix("installer", str(entry["option"]), value)
    path = entry.get("capsule_file", entry["file"]) if capsule else entry["file"]
    return Fix("file", str(path), str(entry["line"]).format(name=key, value=value))
