"""YAML files (installer scenario, answers, custom-hiera, database.yml, dynflow and proxy settings).

Kafo and Ruby write symbols as ``:key:``; those keys are returned without the colon.

>>> parse_yaml(":facts:\\n  tuning: medium\\n")
{'facts': {'tuning': 'medium'}}
>>> parse_yaml("") is None
True
>>> parse_yaml("# only a comment\\n") is None
True
>>> parse_yaml("a: [unclosed")
Traceback (most recent call last):
...
foretune.facts.parsers.ParseError: not valid YAML (line 1): expected ',' or ']', but got '<stream end>'
>>> parse_yaml("- just a list")
Traceback (most recent call last):
...
foretune.facts.parsers.ParseError: expected a YAML mapping, found list
"""

from __future__ import annotations

from typing import Any


def _strip_symbols(value: Any) -> Any:
    if isinstance(value, dict):
        return {(k[1:] if isinstance(k, str) and k.startswith(":") else k): _strip_symbols(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_symbols(v) for v in value]
    return value


def parse_yaml(text: str) -> dict[str, Any] | None:
    """A YAML mapping (Ruby symbol keys de-coloned), or None for empty/comment-only input."""
    import yaml

    from foretune.facts.parsers import ParseError

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParseError(f"not valid YAML{where}: {problem}") from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ParseError(f"expected a YAML mapping, found {type(data).__name__}")
    result: dict[str, Any] = _strip_symbols(data)
    return result
