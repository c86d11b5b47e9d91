"""Dotted version strings compared as numbers (releases, installer modules, PostgreSQL)."""

from __future__ import annotations


def version_key(version: str) -> tuple[int, ...]:
    """Numeric sort key of a dotted version.

    >>> version_key("3.9") < version_key("3.11")
    True
    """
    parts = []
    for part in version.split(".")[:8]:
        digits = "".join(ch for ch in part if ch in "0123456789")[:9]
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)
