"""Resolve a product release to its Foreman version, features and generation."""

from __future__ import annotations

import functools
import re
from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import load_data
from foretune.knowledge.model import Features, Release
from foretune.knowledge.versions import version_key as version_key  # where rules and the planner import it from

PRODUCTS = ("foreman", "satellite", "orcharhino")


def major_minor(version: str) -> str:
    """``"6.15.2"`` -> ``"6.15"``; raises UsageError on garbage.

    >>> major_minor("6.15.2")
    '6.15'
    """
    key = version_key(version.strip())
    if len(key) < 2 or not re.match(r"[0-9]{1,4}\.[0-9]{1,4}(?:$|[.\-_+~])", version.strip(), re.ASCII):
        raise UsageError(f"version {version!r} is not of the form X.Y")
    return f"{key[0]}.{key[1]}"


def known_versions(product: str) -> list[str]:
    """Versions foretune knows for ``product``, oldest first."""
    entry = _products().get(product)
    if entry is None:
        raise UsageError(f"unknown product {product!r} (choose from {', '.join(PRODUCTS)})")
    if "versions" in entry:
        return sorted(entry["versions"], key=version_key)
    low, high = (version_key(v) for v in entry["range"])
    return [f"{a}.{b}" for a, b in _foreman_series() if low <= (a, b) <= high]


def resolve_release(product: str, version: str, *, foreman_version: str | None = None) -> Release:
    """The release for ``product`` ``version``; ``foreman_version`` (e.g. from installed packages) wins."""
    product = product.strip().lower()
    entry = _products().get(product)
    if entry is None:
        raise UsageError(f"unknown product {product!r} (choose from {', '.join(PRODUCTS)})")
    short = major_minor(version)
    if foreman_version:
        foreman = major_minor(foreman_version)
    elif product == "foreman":
        low, high = (version_key(v) for v in entry["range"])
        if not low <= version_key(short) <= high:
            raise UsageError(f"Foreman {short} is outside the versions foretune knows ({entry['range'][0]}..{entry['range'][1]})")
        foreman = short
    else:
        versions = entry["versions"]
        if short not in versions:
            known = ", ".join(sorted(versions, key=version_key))
            raise UsageError(f"unknown {product} version {short} (known: {known})")
        foreman = versions[short]
    values, citations = _features_for(foreman, product)
    epoch = values.pop("epoch")
    features = Features(**values)
    return Release(product=product, version=short, foreman_version=foreman, generation=_generation(features),
                   epoch=epoch, features=features, citations=(entry["citation"], *citations))


def _features_for(foreman: str, product: str = "") -> tuple[dict[str, Any], tuple[str, ...]]:
    values: dict[str, Any] = {}
    citations: list[str] = []
    data = load_data("releases.yaml")
    steps = [*data["features"], *data.get("product_features", {}).get(product, [])]
    for step in sorted(steps, key=lambda step: version_key(step["since"])):
        if version_key(step["since"]) <= version_key(foreman):
            values.update(step["values"])
            citations.append(step["citation"])
    return values, tuple(dict.fromkeys(citations))


def _generation(features: Features) -> str:
    for entry in load_data("releases.yaml")["generations"]:
        if all(getattr(features, key) == want for key, want in entry["when"].items()):
            return str(entry["name"])
    return "unknown"


@functools.lru_cache(maxsize=1)
def _products() -> dict[str, Any]:
    return dict(load_data("releases.yaml")["products"])


def _foreman_series() -> list[tuple[int, int]]:
    series = {version_key(v)[:2] for entry in _products().values() for v in entry.get("versions", {}).values()}
    low, high = (version_key(v) for v in _products()["foreman"]["range"])
    series |= {(1, m) for m in range(low[1], 25)} | {(2, m) for m in range(6)} | {(3, m) for m in range(high[1] + 1)}
    return sorted((a, b) for a, b in series if low <= (a, b) <= high)
