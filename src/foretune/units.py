"""Parse and format sizes the way administrators write them.

All multiples are binary: ``G``, ``GB`` and ``GiB`` all mean 1024**3 bytes, as in
``free -g``, PostgreSQL settings and the installer's own RAM check.

>>> parse_size("64G")
68719476736
>>> parse_size("64GiB") == parse_size("65536M") == parse_size("64 gb")
True
>>> format_size(parse_size("512MB"))
'512MB'
>>> format_size(3 * 1024**3 // 2)
'1536MB'
"""

from __future__ import annotations

import re

from foretune.errors import UsageError

_MULTIPLIERS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}
_SIZE = re.compile(r"^(\d{1,15}(?:\.\d{1,9})?)[ \t]*([kmgtp]?)(i?b)?$", re.IGNORECASE | re.ASCII)
GIB = 1024**3
MIB = 1024**2


def parse_size(text: str, *, default_unit: str = "") -> int:
    """Return bytes for ``text`` such as ``64G``, ``64GiB``, ``65536M`` or ``512MB``.

    A bare number uses ``default_unit`` (``""`` = bytes, ``"G"`` = GiB).

    >>> parse_size("32", default_unit="G") == 32 * GIB
    True
    >>> parse_size("512B", default_unit="G")
    512
    >>> parse_size("lots")
    Traceback (most recent call last):
    ...
    foretune.errors.UsageError: not a size: 'lots' (use e.g. 64G, 64GiB or 65536M)
    """
    match = _SIZE.match(text.strip())
    if not match:
        raise UsageError(f"not a size: {text[:40]!r} (use e.g. 64G, 64GiB or 65536M)")
    number, unit, suffix = match.groups()
    # a bare "B" means bytes ("1B" is one byte, not one GiB)
    unit = unit.lower() if unit else ("" if suffix and suffix.lower() == "b" else default_unit.lower())
    value = float(number) * _MULTIPLIERS[unit]
    if value <= 0:
        raise UsageError(f"size must be positive: {text!r}")
    return int(value)


def format_size(size: int) -> str:
    """Format bytes in the largest PostgreSQL-style unit (``GB``/``MB``/``kB``) that divides exactly."""
    for unit, factor in (("TB", 1024**4), ("GB", GIB), ("MB", MIB), ("kB", 1024)):
        if size >= factor and size % factor == 0:
            return f"{size // factor}{unit}"
    return f"{size}B"


def format_gib(size: int) -> str:
    """Human figure in GiB with one decimal: ``'31.3 GiB'``.

    >>> format_gib(parse_size("31.3G"))
    '31.3 GiB'
    """
    return f"{size / GIB:.1f} GiB"


def format_setting(value: object, unit: str, *, missing: str = "-") -> str:
    """A tunable's value as people write it: GiB for byte counts, on/off for booleans."""
    if value is None:
        return missing
    if unit == "bytes" and isinstance(value, int):
        return format_gib(value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)
