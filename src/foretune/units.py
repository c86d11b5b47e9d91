"""Parse and format sizes: as administrators write them, and as each service reads its own settings.

All multiples are binary: ``G``, ``GB`` and ``GiB`` all mean 1024**3 bytes, as in
``free -g``, PostgreSQL settings and the installer's own RAM check. The one parser per service
rule lives here: :func:`pg_size` (PostgreSQL's memory units) and :func:`jvm_size_option` (the JVM's
``-Xmx``/``-Xms``, the last one given wins); :func:`format_gib` and :func:`format_size` are the
byte formatting every report uses.

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


def format_gib(size: float) -> str:
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


# PostgreSQL's memory units, case-sensitive, multiplier 1024 ("Valid memory units are B (bytes), kB
# (kilobytes), MB (megabytes), GB (gigabytes), and TB (terabytes). The multiplier for memory units is
# 1024, not 1000." - PostgreSQL documentation, 20.1.1 Parameter Names and Values)
PG_MEMORY_UNITS = {"B": 1, "kB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
_PG_SIZE = re.compile(r"\s*'?\s*(\d{1,15}(?:\.\d{1,9})?)\s*(B|kB|MB|GB|TB)?\s*'?\s*", re.ASCII)


def pg_size(value: object, *, unit_bytes: int = 8192) -> int | None:
    """A PostgreSQL memory setting in bytes, as the server reads it; None when the server would refuse it.

    A number without a unit counts the setting's own unit: ``unit_bytes`` is 8192 for settings
    kept in 8 kB pages (``shared_buffers``, ``effective_cache_size``) and 1024 for those kept in
    kB (``work_mem``, ``maintenance_work_mem``). Unit names are case-sensitive, as in PostgreSQL.

    >>> pg_size("4GB"), pg_size("512MB"), pg_size("16384"), pg_size("'4MB'"), pg_size(None)
    (4294967296, 536870912, 134217728, 4194304, None)
    >>> pg_size("4096", unit_bytes=1024), pg_size(4096, unit_bytes=1024)
    (4194304, 4194304)
    >>> pg_size("4gb") is None, pg_size("lots") is None
    (True, True)
    """
    if value is None or isinstance(value, bool):
        return None
    match = _PG_SIZE.fullmatch(str(value))
    if not match:
        return None
    number, unit = match.groups()
    return int(float(number) * (PG_MEMORY_UNITS[unit] if unit else unit_bytes))


# The JVM's -Xmx/-Xms: "-Xmx<size>[k|K|m|M|g|G|t|T]", bytes without a letter; when an option is
# given more than once the JVM takes the last one.
_JVM_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def jvm_option_text(java_opts: str | None, flag: str = "-Xmx") -> str | None:
    """The value after the LAST ``flag`` in ``java_opts`` (the one the JVM uses), as written.

    >>> jvm_option_text("-Xms1g -Xmx2g -Xmx8g"), jvm_option_text("-Xms1g", "-Xms"), jvm_option_text("-Xss1m")
    ('8g', '1g', None)
    """
    found = [token[len(flag):] for token in (java_opts or "").split() if token.startswith(flag)]
    return found[-1] if found else None


def jvm_size(text: str) -> int | None:
    """A JVM size such as ``8g``, ``8192m`` or ``4194304`` in bytes; None when the JVM would refuse it.

    >>> jvm_size("8g"), jvm_size("8192M"), jvm_size("1024"), jvm_size("8gb"), jvm_size("")
    (8589934592, 8589934592, 1024, None, None)
    """
    match = re.fullmatch(r"(\d{1,15})([kKmMgGtT]?)", text, re.ASCII)
    if not match:
        return None
    return int(match.group(1)) * _JVM_UNITS[match.group(2).lower()]


def jvm_size_option(java_opts: str | None, flag: str = "-Xmx") -> int | None:
    """Bytes of ``flag`` (``-Xmx`` by default, or ``-Xms``) in JVM options: the last one given wins.

    >>> jvm_size_option("-Xms1024m -Xmx8192m"), jvm_size_option("-Xmx2g -Xmx8g"), jvm_size_option("")
    (8589934592, 8589934592, None)
    >>> jvm_size_option("-Xms1g -Xmx4g", "-Xms")
    1073741824
    """
    text = jvm_option_text(java_opts, flag)
    return None if text is None else jvm_size(text)
