"""The break-even host count of an Apache worker limit: the largest size profile it reaches."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from foretune.knowledge.hardware import host_range
from foretune.knowledge.model import SIZES
from foretune.knowledge.profiles import flatten, installer_hiera
from foretune.rules.base import Context


def profile_held(ctx: Context, effective: int, workers: Callable[[dict[str, Any]], int]) -> tuple[str, int] | None:
    """The largest size profile whose request workers (``workers`` of the profile's flattened installer hiera,
    foreman-installer's sizes, fi-tuning-profiles) ``effective`` reaches, and the top of that profile's host range
    (the guide's); None on a release without size profiles."""
    if ctx.release is None or not ctx.release.features.size_profiles:
        return None
    best = None
    for size in SIZES:
        top = host_range(size)[1]
        if top is not None and workers(flatten(installer_hiera(ctx.release, size))) <= effective:
            best = (size, top)
    return best
