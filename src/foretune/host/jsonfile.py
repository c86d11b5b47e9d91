"""JSON from untrusted files with bounded work: nesting depth and integer length are capped.

>>> load_json('{"a": [1, 2.5, "x"]}')
{'a': [1, 2.5, 'x']}
>>> load_json("[" * 100 + "]" * 100)
Traceback (most recent call last):
...
foretune.errors.ParseError: ignored: JSON nested deeper than 64 levels
>>> load_json("9" * 40)
Traceback (most recent call last):
...
foretune.errors.ParseError: ignored: integer with more than 30 digits
"""

from __future__ import annotations

import json
from typing import Any

from foretune.errors import ParseError

MAX_DEPTH = 64
MAX_INT_DIGITS = 30


class _TooLarge(Exception):
    pass


def _int(text: str) -> int:
    if len(text) > MAX_INT_DIGITS + 1:
        raise _TooLarge(f"ignored: integer with more than {MAX_INT_DIGITS} digits")
    return int(text)


def _constant(text: str) -> Any:
    raise ValueError(f"{text} is not JSON")


def _depth(value: Any) -> int:
    """Nesting depth, iteratively (never recursion on hostile data)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, level)
            if deepest > MAX_DEPTH:
                return deepest
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def load_json(text: str) -> Any:
    """Plain data from JSON text; ParseError (one line) when malformed, too deep or holding huge integers."""
    try:
        data = json.loads(text, parse_int=_int, parse_constant=_constant)
    except _TooLarge as exc:
        raise ParseError(str(exc)) from None
    except RecursionError:
        raise ParseError(f"ignored: JSON nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise ParseError(f"not valid JSON (line {exc.lineno}): {exc.msg}") from None
    except ValueError as exc:
        raise ParseError(f"not valid JSON: {str(exc).splitlines()[0][:100]}") from None
    if _depth(data) > MAX_DEPTH:
        raise ParseError(f"ignored: JSON nested deeper than {MAX_DEPTH} levels")
    return data
