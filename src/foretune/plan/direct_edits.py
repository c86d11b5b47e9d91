"""Releases without custom-hiera (Satellite 6.2): a hiera fix becomes an edit of the file the installer renders."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from foretune.knowledge import load_data
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix


def direct_edit(fix: Fix, *, capsule: bool = False, includes: Mapping[str, Any] | None = None) -> Fix:
    """On releases without custom-hiera (Satellite 6.2) a hiera fix becomes an edit of the file it ends up in: the
    one httpd reads it from, by the vhost's ``includes`` (the httpd_includes fact) when the source has them."""
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
    path = str(entry.get("capsule_file", entry["file"]) if capsule else entry["file"])
    line = str(entry["line"]).format(name=key, value=value)
    if includes:
        from foretune.knowledge.precedence import (
            httpd_edit_target,  # start-up: only for a plan made from a source's facts
        )

        path = httpd_edit_target(path, line.split()[0], includes)[0]
    return Fix("file", path, line)
