"""Merge values into an existing custom-hiera.yaml, keeping its comments, order and unrelated keys.

Line-based on purpose: a YAML round trip would drop comments. The result is checked by loading it
and comparing with the expected mapping, so a merge can never silently change other keys.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from foretune.errors import InputError
from foretune.render.snippets import yaml_scalar


def load_mapping(text: str, label: str) -> dict[str, Any]:
    from foretune.facts.parsers import ParseError
    from foretune.facts.parsers.yamlfile import load_yaml

    try:
        data = load_yaml(text) if text.strip() else {}
    except ParseError as exc:
        raise InputError(f"{label} is {exc}" if str(exc).startswith("not ") else f"{label}: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"{label}: expected a mapping of hiera keys, found {type(data).__name__}")
    return data


def expected_after(current: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(current)
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = {**result[key], **value}
        else:
            result[key] = value
    return result


def _key_re(key: str) -> re.Pattern[str]:
    return re.compile(rf"^(['\"]?){re.escape(key)}\1\s*:(\s|$)")


def _find_block(lines: list[str], key: str) -> tuple[int, int] | None:
    """(start, end) line indexes of top-level ``key`` and its indented continuation lines."""
    pattern = _key_re(key)
    for start, line in enumerate(lines):
        if pattern.match(line):
            end = start + 1
            while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
                end += 1
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            return start, end
    return None


def remove_keys(text: str, keys: list[str]) -> str:
    """``text`` without the top-level ``keys`` (and their indented values); nested keys are left alone."""
    lines = text.splitlines()
    for key in keys:
        block = _find_block(lines, key)
        if block is not None:
            lines[block[0]:block[1]] = [f"# foretune: removed {key} (stale on this release)"]
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def _block_lines(key: str, value: Any, comment: str | None) -> list[str]:
    head = [f"# {comment}"] if comment else []
    if isinstance(value, dict):
        return [*head, f"{key}:", *(f"  {k}: {yaml_scalar(v)}" for k, v in value.items())]
    return [*head, f"{key}: {yaml_scalar(value)}"]


def _after_key(line: str, key: str) -> str:
    """The text after ``key:`` on a top-level line, without a trailing comment."""
    match = _key_re(key).match(line)
    rest = line[match.end():] if match else ""
    return rest.split(" #", 1)[0].strip() if not rest.lstrip().startswith("#") else ""


def _trailing_comment(line: str) -> str:
    return "  #" + line.split(" #", 1)[1] if " #" in line else ""


def _merge_nested(lines: list[str], start: int, end: int, key: str, value: dict[str, Any],
                  current: dict[str, Any], comments: dict[str, str]) -> None:
    inline = _after_key(lines[start], key)
    if inline not in ("", "{}"):
        # flow style ({a: 1}): rewrite the block in block style, keeping the values
        merged = {**(current.get(key) or {}), **value}
        lines[start:end] = _block_lines(key, merged, None)
        return
    if inline == "{}":
        lines[start] = f"{key}:"
    children = [i for i in range(start + 1, end) if lines[i].strip() and not lines[i].lstrip().startswith("#")]
    indent = (len(lines[children[0]]) - len(lines[children[0]].lstrip())) if children else 2
    insert_at = (children[-1] + 1) if children else start + 1
    for name, entry in value.items():
        pattern = re.compile(rf"^\s{{{indent}}}(['\"]?){re.escape(str(name))}\1\s*:")
        found = next((i for i in children if pattern.match(lines[i])), None)
        text = " " * indent + f"{name}: {yaml_scalar(entry)}"
        if found is not None:
            lines[found] = text + _trailing_comment(lines[found])
        else:
            extra = [" " * indent + f"# {comments[name]}"] if name in comments else []
            lines[insert_at:insert_at] = [*extra, text]
            insert_at += len(extra) + 1


def merge_text(text: str, values: dict[str, Any], comments: dict[str, str] | None = None, label: str = "custom-hiera.yaml") -> str:
    """``text`` with ``values`` set; nested dicts (the PostgreSQL hash) are merged key by key.

    ``comments`` maps a key (or a PostgreSQL entry name) to a comment written above a new entry.
    """
    comments = comments or {}
    current = load_mapping(text, label)
    lines = text.splitlines()
    for key, value in values.items():
        block = _find_block(lines, key)
        if block and isinstance(value, dict):
            _merge_nested(lines, *block, key, value, current, comments)
        elif block:
            start, end = block
            tail = _trailing_comment(lines[start]) if end == start + 1 else ""
            lines[start:end] = _block_lines(key, value, None)
            lines[start] += tail
        else:
            if lines and lines[-1].strip():
                lines.append("")
            lines += _block_lines(key, value, comments.get(key))
    result = "\n".join(lines) + "\n"
    if load_mapping(result, label) != expected_after(current, values):
        raise InputError(f"{label}: cannot merge safely (unusual layout); edit it by hand using `foretune plan --format hiera`")
    return result


def unified_diff(old: str, new: str, path: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"{path} (current)", tofile=f"{path} (foretune)"))
