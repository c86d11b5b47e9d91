"""A snapshot written by ``foretune collect`` (facts with provenance, raw texts, metadata) or by the
collector script (raw texts only: the facts are extracted from them when the snapshot is read)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from foretune.errors import InputError
from foretune.facts.model import Fact, FactSet, Provenance

FORMAT = "foretune-snapshot"
FORMAT_VERSION = 1


def load_snapshot(path: Path) -> FactSet:
    """The FactSet stored in a snapshot; provenance source becomes ``snapshot``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        if path.name.endswith(".gz"):
            raw = gzip.decompress(raw)
        data = json.loads(raw.decode("utf-8"))
    except (OSError, EOFError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"{path} is not a foretune snapshot: {str(exc).splitlines()[0] if str(exc) else 'unreadable'}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{path} is not a foretune snapshot (no \"format\": \"{FORMAT}\")")
    meta = data.get("metadata", {})
    label = f"{path} (snapshot of {meta.get('host', '?')} taken {meta.get('time', '?')})"
    if "facts" not in data:  # written by the collector: extract now, as from a live host
        return _replay(data, label)
    facts = FactSet(source_kind="snapshot", source_label=label)
    for name, entry in (data.get("facts") or {}).items():
        facts.add(_fact(name, entry))
    facts.problems.extend(str(p) for p in data.get("problems", []))
    return facts


def _replay(data: dict[str, Any], label: str) -> FactSet:
    from foretune.facts.extract import extract
    from foretune.facts.sources.replay import Replay

    raw, unread = data.get("raw"), data.get("unread") or {}
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()) or not isinstance(unread, dict):
        raise InputError(f"{label.split(' (')[0]} is not a foretune snapshot: no facts and no raw texts")
    return extract(Replay(raw, {str(k): str(v) for k, v in unread.items()}, label, [str(p) for p in data.get("problems", [])]))


def _fact(name: str, entry: dict[str, Any]) -> Fact:
    if entry.get("unknown"):
        return Fact.unknown(name, str(entry.get("reason", "unknown")))
    provenance = tuple(Provenance("snapshot", str(p.get("location", "")), str(p.get("excerpt", "")))
                       for p in entry.get("provenance", []))
    return Fact(name=name, value=entry.get("value"), provenance=provenance)
