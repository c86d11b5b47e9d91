"""Evidence of a directory's space: its mount and df lines, without lsblk's rotational flag (which proves no size)."""

from __future__ import annotations

from foretune.rules.base import Context, Evidence


def space_evidence(ctx: Context, mountpoint: str) -> tuple[Evidence, ...]:
    return tuple(e for e in ctx.evidence("key_dirs", about=mountpoint) if "lsblk" not in e.location)
