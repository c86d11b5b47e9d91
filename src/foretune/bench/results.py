"""The foretune-bench/1 results document: build, write, load and validate.

Schema: ``foretune/bench/schema/bench-v1.json``. :func:`load` checks the same rules by hand
(jsonschema is a development dependency only), so ``audit`` can trust what it reads.
"""

from __future__ import annotations

import datetime
import json
import socket
from pathlib import Path
from typing import Any

from foretune import __version__, safeio
from foretune.errors import InputError, ParseError

SCHEMA = "foretune-bench/1"
KINDS = ("storage", "db")
STORAGE_JOBS = ("quick-seq-read", "seq-read", "seq-write", "rand-rw", "fsync-write", "lat-qd1", "lat-qd16")
VERDICTS = ("pass", "warn", "fail", "info")
DB_TESTS = ("read-write", "read-only")
STORAGE_NUMBERS = ("read_mb_s", "write_mb_s", "read_iops", "write_iops", "lat_p50_ms", "lat_p99_ms")
DB_NUMBERS = ("tps", "lat_avg_ms", "lat_p95_ms")


def document(kind: str, results: list[dict[str, Any]], *, tool_version: str, mode: str) -> dict[str, Any]:
    """A new results document for this host, stamped now (UTC)."""

    created = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    return {
        "schema": SCHEMA,
        "kind": kind,
        "host": socket.gethostname(),
        "created": created,
        "tool_version": tool_version,
        "foretune_version": __version__,
        "mode": mode,
        "results": results,
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2) + "\n"


def write(doc: dict[str, Any], path: str) -> None:
    """Write the document to ``path`` (an InputError when the file cannot be written)."""
    try:
        safeio.write_file(path, dumps(doc))
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror}") from exc


def load(path: str | Path) -> dict[str, Any]:
    """Read and validate a results file; InputError names the file and the first problem."""
    try:
        text = safeio.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise InputError(f"{path}: cannot read bench results: {reason}") from exc
    from foretune.host.jsonfile import load_json  # start-up: only when load runs

    try:
        doc = load_json(text)
    except ParseError as exc:
        raise InputError(f"{path}: {exc}") from None
    problems = validate(doc)
    if problems:
        raise InputError(f"{path}: not a {SCHEMA} document: {problems[0]}")
    return dict(doc)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number_or_null(item: dict[str, Any], key: str, where: str) -> list[str]:
    value = item.get(key)
    if value is None:
        return []
    if not _is_number(value) or value < 0:
        return [f"{where}.{key}: expected a non-negative number or null, got {value!r}"]
    return []


def validate(doc: Any) -> list[str]:
    """Every way ``doc`` breaks the schema (empty when valid)."""
    if not isinstance(doc, dict):
        return ["top level: expected an object"]
    problems = []
    for key in ("schema", "kind", "host", "created", "tool_version", "results"):
        if key not in doc:
            problems.append(f"missing {key!r}")
    if problems:
        return problems
    if doc["schema"] != SCHEMA:
        return [f"schema is {doc['schema']!r}, expected {SCHEMA!r}"]
    if doc["kind"] not in KINDS:
        return [f"kind {doc['kind']!r} is not one of {', '.join(KINDS)}"]
    for key in ("host", "created", "tool_version"):
        if not isinstance(doc[key], str):
            problems.append(f"{key}: expected a string")
    if isinstance(doc["created"], str):
        try:
            datetime.datetime.fromisoformat(doc["created"][:19])
        except ValueError:
            problems.append(f"created: not an ISO-8601 time: {doc['created']!r}")
    if not isinstance(doc["results"], list):
        return [*problems, "results: expected a list"]
    check = _check_storage if doc["kind"] == "storage" else _check_db
    for index, item in enumerate(doc["results"]):
        where = f"results[{index}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected an object")
            continue
        problems.extend(check(item, where))
    return problems


def _check_storage(item: dict[str, Any], where: str) -> list[str]:
    required = ("directory", "job", *STORAGE_NUMBERS, "verdict", "threshold", "message", "device")
    missing = [key for key in required if key not in item]
    if missing:
        return [f"{where}: missing {', '.join(missing)}"]
    problems = []
    if not isinstance(item["directory"], str) or not isinstance(item["message"], str):
        problems.append(f"{where}: directory and message must be strings")
    if item["job"] not in STORAGE_JOBS:
        problems.append(f"{where}.job: {item['job']!r} is not one of {', '.join(STORAGE_JOBS)}")
    if item["verdict"] not in VERDICTS:
        problems.append(f"{where}.verdict: {item['verdict']!r} is not one of {', '.join(VERDICTS)}")
    for key in STORAGE_NUMBERS:
        problems += _number_or_null(item, key, where)
    threshold = item["threshold"]
    if threshold is not None:
        if not isinstance(threshold, dict) or any(k not in threshold for k in ("key", "value", "unit", "citation")):
            problems.append(f"{where}.threshold: expected null or an object with key, value, unit, citation")
        elif not _is_number(threshold["value"]):
            problems.append(f"{where}.threshold.value: expected a number")
    device = item["device"]
    if not isinstance(device, dict) or any(k not in device for k in ("fstype", "rotational", "nfs")):
        problems.append(f"{where}.device: expected an object with fstype, rotational, nfs")
    elif not isinstance(device["nfs"], bool) or device["rotational"] not in (True, False, None):
        problems.append(f"{where}.device: nfs must be true/false and rotational true/false/null")
    return problems


def _check_db(item: dict[str, Any], where: str) -> list[str]:
    missing = [key for key in ("test", "clients", *DB_NUMBERS) if key not in item]
    if missing:
        return [f"{where}: missing {', '.join(missing)}"]
    problems = []
    if item["test"] not in DB_TESTS:
        problems.append(f"{where}.test: {item['test']!r} is not one of {', '.join(DB_TESTS)}")
    clients = item["clients"]
    if not isinstance(clients, int) or isinstance(clients, bool) or clients < 1:
        problems.append(f"{where}.clients: expected a positive integer")
    for key in DB_NUMBERS:
        problems += _number_or_null(item, key, where)
    return problems


def schema() -> dict[str, Any]:
    """The bundled JSON schema (for tests and tools that validate with jsonschema)."""
    from importlib import resources  # start-up: importlib.resources loads only when bundled data is read

    text = resources.files("foretune.bench").joinpath("schema").joinpath("bench-v1.json").read_text(encoding="utf-8")
    return dict(json.loads(text))
