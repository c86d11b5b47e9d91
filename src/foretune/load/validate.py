"""A result read back (``--compare``) checked against the shipped JSON Schema, ``schema/load-v1.json``.

The schema uses a small part of JSON Schema (``type``, ``required``, ``properties``, ``additionalProperties``,
``items``, ``maxItems``, ``enum``, ``const``, ``minimum``, ``maximum``, local ``$ref``); this checks exactly
those, so a well-formed JSON document of the wrong shape is one input error, not a failure deep in the comparison.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SCHEMA_FILE = Path(__file__).parent / "schema" / "load-v1.json"

_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
                                       "integer": (int,), "number": (int, float), "null": (type(None),)}


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("integer", "number"):
        return False
    return isinstance(value, _TYPES[name])


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _check(value: Any, schema: dict[str, Any], root: dict[str, Any], where: str) -> str | None:
    schema = _resolve(schema, root)
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is(value, n) for n in names):
            return f"{where} is {_name(value)}, expected {' or '.join(names)}"
    if "const" in schema and value != schema["const"]:
        return f"{where} is not {schema['const']!r}"
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} is {json.dumps(value)[:40]}, expected one of {', '.join(map(str, schema['enum']))}"
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{where} is below {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{where} is above {schema['maximum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{where} has no {key!r}"
        properties = schema.get("properties", {})
        for key, item in value.items():
            sub = properties.get(key, schema.get("additionalProperties"))
            if isinstance(sub, dict):
                problem = _check(item, sub, root, f"{where}.{key}")
                if problem:
                    return problem
    if isinstance(value, list):
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{where} has more than {schema['maxItems']} items"
        if isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                problem = _check(item, schema["items"], root, f"{where}[{index}]")
                if problem:
                    return problem
    return None


def _name(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def problem(doc: Any) -> str | None:
    """The first place ``doc`` differs from the schema (``steps[2].p95_ms is a string, expected number or null``)."""
    root = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    found = _check(doc, root, root, "$")
    return None if found is None else found.removeprefix("$.")
