"""Everything foretune knows, read from cited data files in ``knowledge/data``.

Public API: :func:`load_data`, :func:`citation` (title, where, quote, figure, url of one source),
:func:`citations`, :func:`threshold`, :func:`module_default`, :func:`postgresql_default` (more — releases, profiles —
in the submodules).
"""

from __future__ import annotations

import functools
import os
from typing import Any

from foretune.errors import DataError
from foretune.knowledge.model import Citation, Quote
from foretune.knowledge.versions import version_key

COMPILED = "compiled.json"  # every data file as JSON, with the CRC-32 and length of the YAML it came from
_DIR = os.path.join(os.path.dirname(__file__), "data")


def _read(name: str) -> str:
    """A bundled data file's text: a plain read when installed, the zip importer's own read inside a zipapp.

    The zip importer keeps the archive's directory parsed once per process; importlib.resources would parse it
    again for every file (thousands of entries in the zipapp).
    """
    path = os.path.join(_DIR, name)
    if os.path.isdir(_DIR):
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    get_data = getattr(__spec__.loader, "get_data", None)
    if get_data is not None:
        try:
            return bytes(get_data(path)).decode("utf-8")
        except OSError:
            raise FileNotFoundError(path) from None
    from importlib import resources  # start-up: importlib.resources loads only when bundled data is read

    return resources.files("foretune.knowledge").joinpath("data").joinpath(name).read_text(encoding="utf-8")


def _fingerprint(text: str) -> str:
    import zlib  # start-up: zlib loads only to check the compiled data's fingerprint

    raw = text.encode("utf-8")
    return f"{zlib.crc32(raw):08x}-{len(raw)}"


@functools.cache
def load_data(name: str) -> Any:
    """Parse ``knowledge/data/<name>`` once: from ``compiled.json`` when it matches the YAML (inside a zipapp,
    always), else the YAML."""
    entry = _compiled().get(name)
    if isinstance(entry, dict) and not os.path.isdir(_DIR):
        return entry["data"]  # a zipapp: compiled from these very files when it was built
    try:
        text = _read(name)
    except FileNotFoundError as exc:
        raise DataError(f"bundled data file missing: {name}") from exc
    if isinstance(entry, dict) and entry.get("fingerprint") == _fingerprint(text):
        return entry["data"]
    import yaml  # start-up: PyYAML loads only when YAML is read or written

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@functools.lru_cache(maxsize=1)
def _compiled() -> dict[str, Any]:
    """The JSON compilation of the data files (empty when absent or unreadable: the YAML is read instead)."""
    import json  # start-up: json loads only for JSON input or output

    try:
        text = _read(COMPILED)
        files = json.loads(text).get("files", {})
    except (OSError, ValueError, AttributeError):
        return {}
    return files if isinstance(files, dict) else {}


def compile_data() -> str:
    """The text of ``compiled.json`` for the current YAML files (files JSON cannot represent exactly are left out)."""
    import json  # start-up: json loads only for JSON input or output

    import yaml  # start-up: PyYAML loads only when YAML is read or written

    files: dict[str, Any] = {}
    for name in _data_files(""):
        text = _read(name)
        data = yaml.safe_load(text)
        try:
            same = json.loads(json.dumps(data)) == data
        except (TypeError, ValueError):
            same = False
        if same:
            files[name] = {"fingerprint": _fingerprint(text), "data": data}
    return json.dumps({"generator": "python3 tools/compile_knowledge.py", "files": files}, indent=1,
                      sort_keys=True, ensure_ascii=False) + "\n"


def _data_files(prefix: str) -> list[str]:
    if os.path.isdir(_DIR):
        names = os.listdir(_DIR)
    elif _compiled():
        names = list(_compiled())
    else:
        from importlib import resources  # start-up: importlib.resources loads only when bundled data is read

        names = [p.name for p in resources.files("foretune.knowledge").joinpath("data").iterdir()]
    return sorted(n for n in names if n.startswith(prefix) and n.endswith(".yaml"))


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


def module_default(key: str, field: str = "value") -> Any:
    """An upstream default from ``module-defaults.yaml``: ``field`` of entry ``key`` (each entry cites its source)."""
    try:
        return load_data("module-defaults.yaml")[key][field]
    except KeyError:
        raise DataError(f"unknown module default {key}/{field}") from None


def module_default_citation(key: str) -> str:
    """The citation id of module-defaults entry ``key``."""
    try:
        return str(load_data("module-defaults.yaml")[key]["citation"])
    except KeyError:
        raise DataError(f"module default {key!r} has no citation") from None


def postgresql_default(setting: str, server_version: str | None = None) -> dict[str, Any]:
    """PostgreSQL's built-in ``setting`` on ``server_version`` (``module-defaults.yaml`` postgresql_by_version).

    Returns the step ``{since, value, citation}`` with the highest ``since`` not above the version: the newest
    step when the version is None, the oldest when the version predates every step (the caller says so).
    """
    try:
        steps = sorted(load_data("module-defaults.yaml")["postgresql_by_version"][setting],
                       key=lambda step: version_key(str(step["since"])))
    except KeyError:
        raise DataError(f"no PostgreSQL default for {setting!r}") from None
    if server_version is None:
        return dict(steps[-1])
    applies = [step for step in steps if version_key(str(step["since"])) <= version_key(server_version)]
    return dict(applies[-1] if applies else steps[0])
