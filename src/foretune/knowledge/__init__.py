"""Everything foretune knows, read from cited data files in ``knowledge/data``.

Public API: :func:`load_data`, :func:`citation` (title, where, quote, figure, url of one source),
:func:`citations`, :func:`threshold` (more — releases, profiles, module defaults — in the submodules).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from foretune.errors import DataError
from foretune.knowledge.model import Citation, Quote


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


def _github_url(repo: str, path: str, ref: str) -> str:
    """The public GitHub address of ``path`` at ``ref`` (or of the commit/tag when no path)."""
    if not (repo and ref):
        return ""
    if path:
        return f"https://github.com/{repo}/blob/{ref}/{path}"
    is_commit = len(ref) >= 7 and all(c in "0123456789abcdef" for c in ref)
    return f"https://github.com/{repo}/{'commit' if is_commit else 'tree'}/{ref}"


def _quotes(cid: str, entry: dict[str, Any]) -> tuple[Quote, ...]:
    """``quote``/``figure`` for one quote, or ``quotes``: a list of ``{quote, figure}``."""
    raw: list[dict[str, Any]] = []
    if "quote" in entry:
        raw.append({"quote": entry["quote"], "figure": entry.get("figure", "")})
    raw += entry.get("quotes") or []
    try:
        return tuple(Quote(str(q["quote"]).strip(), str(q.get("figure", "")).strip()) for q in raw)
    except (KeyError, TypeError, AttributeError):
        raise DataError(f"citation {cid!r}: every quote needs quote and figure") from None


def _citation(cid: str, entry: dict[str, Any]) -> Citation:
    text = {key: str(entry.get(key) or "").strip()
            for key in ("kind", "guide", "url", "repo", "path", "ref", "excerpt")}
    url = text.pop("url") or _github_url(text["repo"], text["path"], text["ref"])
    return Citation(cid, entry["title"], entry["where"], quotes=_quotes(cid, entry), url=url, **text)


@functools.lru_cache(maxsize=1)
def citations() -> dict[str, Citation]:
    """All citations, merged from ``citations*.yaml`` (one file per area)."""
    merged: dict[str, Citation] = {}
    for name in _data_files("citations"):
        for cid, entry in (load_data(name) or {}).items():
            if cid in merged:
                raise DataError(f"citation {cid!r} defined twice ({name})")
            merged[cid] = _citation(cid, entry)
    return merged


def citation(cid: str) -> Citation:
    """The citation with id ``cid`` (title, where, quote, figure, url, ...); an unknown id is a data bug."""
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
