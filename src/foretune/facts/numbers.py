"""Numbers read from untrusted files: ASCII digits only and a plausible size, or nothing.

``int()`` accepts ``'٣'`` (Arabic-Indic three), ``'1_000'`` and thousands of digits; a
configuration file that really sets a count writes it with ASCII digits, so anything else is
treated as not a number rather than silently converted.

>>> whole("42"), whole(" 42 "), whole(7), whole("٣"), whole("1_000"), whole("-1"), whole("9" * 40), whole(True)
(42, 42, 7, None, None, None, None, None)
"""

from __future__ import annotations

from typing import Any

MAX_WHOLE = 2**62  # larger counts or byte sizes are not plausible on any server


def whole(value: Any, *, limit: int = MAX_WHOLE) -> int | None:
    """``value`` as a non-negative int when it is one (or its ASCII decimal text), at most ``limit``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= limit else None
    text = value.strip() if isinstance(value, str) else ""
    if not text or len(text) > 20 or not (text.isascii() and text.isdigit()):
        return None
    number = int(text)
    return number if number <= limit else None
