"""A snapshot written by ``foretune collect`` (facts with provenance, raw texts, metadata) or by the
collector script (raw texts only: the facts are extracted from them when the snapshot is read)."""

from __future__ import annotations

import gzip
import io
import re
import zlib
from pathlib import Path
from typing import Any

from foretune.errors import InputError
from foretune.facts.model import Fact, FactSet, Provenance
from foretune.facts.parsers import ParseError
from foretune.host.jsonfile import load_json
from foretune.safeio import open_input
from foretune.units import format_bytes

FORMAT = "foretune-snapshot"
FORMAT_VERSION = 1


MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024  # a snapshot of a large Satellite is a few MiB
MAX_INT = 2**62  # larger "counts" or "bytes" are not plausible: such a value is ignored
MAX_HOSTS = 10**7  # foretune estimate: far above the largest documented deployments (60,001+ hosts profile)


def _read(path: Path) -> bytes:
    """The snapshot's JSON bytes; gzip is decompressed with a size cap (no decompression bombs)."""
    try:
        with open_input(path) as handle:
            raw = handle.read(MAX_SNAPSHOT_BYTES + 1)
            if path.name.endswith(".gz"):
                with gzip.GzipFile(fileobj=io.BytesIO(raw)) as unpacked:
                    raw = unpacked.read(MAX_SNAPSHOT_BYTES + 1)
    except OSError as exc:
        if exc.strerror is None:  # gzip's BadGzipFile and friends
            raise InputError(f"{path} is not a foretune snapshot: {str(exc).splitlines()[0] if str(exc) else 'unreadable'}") from None
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    except (EOFError, zlib.error) as exc:
        raise InputError(f"{path} is not a foretune snapshot: {str(exc).splitlines()[0] if str(exc) else 'truncated'}") from None
    if len(raw) > MAX_SNAPSHOT_BYTES:
        raise InputError(f"{path}: ignored: too large for a snapshot (more than {format_bytes(MAX_SNAPSHOT_BYTES)})")
    return raw


def _document(path: Path, *, errors: str = "strict") -> tuple[dict[str, Any], str]:
    """The snapshot document at ``path``, checked to be one, and the label that names it in reports.

    ``errors`` is how undecodable bytes are taken (``"replace"``: the logs alone do not need every byte).
    """
    try:
        data = load_json(_read(path).decode("utf-8", errors))
    except UnicodeDecodeError:
        raise InputError(f"{path} is not a foretune snapshot: not UTF-8") from None
    except ParseError as exc:
        raise InputError(f"{path} is not a foretune snapshot: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path} is not a foretune snapshot (no \"format\": \"{FORMAT}\")")
    meta = data.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    return data, f"{path} (snapshot of {meta.get('host', '?')} taken {meta.get('time', '?')})"


def load_snapshot(path: Path) -> FactSet:
    """The FactSet stored in a snapshot; provenance source becomes ``snapshot``."""
    data, label = _document(path)
    if "facts" not in data:  # written by the collector: extract now, as from a live host
        return _replay(data, path, label)
    facts = FactSet(source_kind="snapshot", source_label=label)
    entries = data.get("facts")
    for name, entry in (entries if isinstance(entries, dict) else {}).items():
        fact, problem = _fact(str(name), entry)
        if fact is not None:
            facts.add(fact)
        if problem:
            facts.problems.append(f"{path.name}: fact {name}: {problem}")
    problems = data.get("problems")
    facts.problems.extend(str(p) for p in (problems if isinstance(problems, list) else []))
    return _taken(facts, data)


def _taken(facts: FactSet, data: dict[str, Any]) -> FactSet:
    """``facts`` with the snapshot's own time (metadata.time, UTC) as collected_at when no date file gave one."""
    from foretune.facts.model import Fact, Provenance  # start-up: only for a snapshot without a collection date

    if facts["collected_at"].known:
        return facts
    given = data.get("metadata")
    meta: dict[str, Any] = given if isinstance(given, dict) else {}
    found = re.fullmatch(r"(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|\+00:00)", str(meta.get("time", "")))
    if found:
        facts.add(Fact("collected_at", f"{found.group(1)} {found.group(2)} UTC",
                       (Provenance("snapshot", "metadata.time", str(meta["time"])),)))
    return facts


def _replay(data: dict[str, Any], path: Path, label: str) -> FactSet:
    """Facts extracted from a collector snapshot's raw texts, read through the specs as on the live host."""
    from foretune.facts.extract import extract  # start-up: only when _replay runs
    from foretune.host.sources.replay import Replay  # start-up: only when _replay runs

    raw, unread, problems = data.get("raw"), data.get("unread") or {}, data.get("problems") or []
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise InputError(f"{path} is not a foretune snapshot: no facts and no raw texts")
    if not isinstance(unread, dict) or not isinstance(problems, list):
        raise InputError(f"{path} is not a foretune snapshot: malformed \"unread\" or \"problems\"")
    return _taken(extract(Replay({str(k): v for k, v in raw.items()}, {str(k): str(v) for k, v in unread.items()}, label,
                                 [str(p) for p in problems], logs=snapshot_logs(data, path))), data)


def snapshot_logs(data: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The snapshot's ``logs`` section (``since``, ``files``: path -> text), checked; None when it carries none."""
    logs = data.get("logs")
    if logs is None:
        return None
    from foretune.logs.ship import since_epoch  # start-up: the log modules load only for a snapshot with logs

    files = logs.get("files") if isinstance(logs, dict) else None
    since = logs.get("since") if isinstance(logs, dict) else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise InputError(f"{path} is not a foretune snapshot: malformed \"logs\"")
    try:
        since_epoch(str(since))
    except ValueError:
        raise InputError(f"{path} is not a foretune snapshot: malformed \"logs\" (since {since!r})") from None
    ended = logs.get("ended") or {}
    if not isinstance(ended, dict) or not all(isinstance(v, list) and len(v) == 2 and all(isinstance(n, int) for n in v)
                                              for v in ended.values()):
        raise InputError(f"{path} is not a foretune snapshot: malformed \"logs\" (ended)")
    return {"since": str(since), "files": files, "ended": ended}


def load_snapshot_logs(path: Path) -> tuple[str, dict[str, Any] | None]:
    """(label, ``logs`` section or None) of the snapshot at ``path``."""
    data, label = _document(path, errors="replace")
    return label, snapshot_logs(data, path)


def _fact(name: str, entry: Any) -> tuple[Fact | None, str | None]:
    """The fact of one snapshot entry, or None and why it is ignored (unknown name, wrong type, absurd value)."""
    from foretune.facts.catalog import BY_NAME  # start-up: only when _fact runs

    spec = BY_NAME.get(name)
    if spec is None:
        return None, "not a fact foretune knows: ignored"
    if not isinstance(entry, dict):
        return Fact.unknown(name, "malformed snapshot entry"), "malformed entry: ignored"
    if entry.get("unknown"):
        return Fact.unknown(name, str(entry.get("reason", "unknown"))), None
    value = entry.get("value")
    problem = _check(spec.shape, name, value)
    if problem:
        return Fact.unknown(name, f"snapshot value ignored: {problem}"), f"ignored: {problem}"
    prov = entry.get("provenance")
    provenance = tuple(Provenance("snapshot", str(p.get("location", "")), str(p.get("excerpt", "")), str(p.get("note", "")))
                       for p in (prov if isinstance(prov, list) else []) if isinstance(p, dict))
    return Fact(name=name, value=value, provenance=provenance), None


def _check(shape: str, name: str, value: Any) -> str | None:
    """Why ``value`` does not fit the catalogue's ``shape`` (None when it fits)."""
    kind = shape.split(":", 1)[0].split(",", 1)[0].strip()
    optional = "or None" in shape.split(":", 1)[0] or (value is None and name == "cpu_governor")
    if value is None:
        return None if optional else "null where a value is required"
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected a whole number, found {type(value).__name__}"
        limit = MAX_HOSTS if name == "managed_hosts" else MAX_INT
        if not 0 <= value <= limit:
            return f"{value if abs(value) < 10**12 else 'a huge number'} is out of range"
    elif kind.startswith("str"):
        if not isinstance(value, str):
            return f"expected text, found {type(value).__name__}"
    elif kind.startswith("dict") and not isinstance(value, dict):
        return f"expected a mapping, found {type(value).__name__}"
    elif kind.startswith("dict"):
        return _check_fields(shape.split(":", 1)[1] if ":" in shape else "", value)
    elif kind.startswith("list") and not isinstance(value, list):
        return f"expected a list, found {type(value).__name__}"
    return None


_COUNT_FIELD = re.compile(r"workers|threads|backlog|bytes|size|count|nofile|nproc|pool|timeout|interval|processes|queue|"
                          r"percent|samples|reports|pages|limit|serverlimit|perchild", re.IGNORECASE)


def _check_fields(head: str, value: dict[str, Any]) -> str | None:
    """Inside a mapping fact: a fixed-field mapping holds scalars, numbers where its fields count something; a
    ``name -> {fields}`` mapping holds such mappings. Names mapped to free values (``key -> value``) are not checked.

    >>> _check_fields(" workers (int), api_workers (int or None)", {"workers": "", "api_workers": None})
    "workers: expected a number, found ''"
    >>> _check_fields(" path -> {mountpoint, size_bytes (int or None)}", {"/var": None})
    "'/var': expected a mapping, found NoneType"
    """
    first = head.split(",", 1)[0]
    if "->" in first:
        if "{" not in head.split("->", 1)[1][:3]:
            return None
        for key, entry in value.items():
            if not isinstance(entry, dict):
                return f"{str(key)[:40]!r}: expected a mapping, found {type(entry).__name__}"
            problem = _scalars(entry)
            if problem:
                return f"{str(key)[:40]!r}: {problem}"
        return None
    return _scalars(value)


def _scalars(value: dict[str, Any]) -> str | None:
    for key, entry in value.items():
        if entry is None or isinstance(entry, bool):
            continue
        if isinstance(entry, (list, dict)):
            return f"{str(key)[:40]}: expected a single value, found {type(entry).__name__}"
        if _COUNT_FIELD.search(str(key)) and (not isinstance(entry, (int, float)) or not abs(entry) <= MAX_INT):
            shown = repr(entry)[:40] if isinstance(entry, str) else "a huge number" if isinstance(entry, (int, float)) else \
                type(entry).__name__
            return f"{str(key)[:40]}: expected a number, found {shown}"
    return None
