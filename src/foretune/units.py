"""Parse and format sizes: as administrators write them, and as each service reads its own settings.

As administrators write them (:func:`parse_size`), all multiples are binary: ``G``, ``GB`` and ``GiB``
all mean 1024**3 bytes, as in ``free -g`` and the installer's own RAM check. Each service's own rule is a
set of parameters of the one parser, :func:`scaled_size`: :func:`pg_size` (PostgreSQL's memory units),
:func:`pg_size_pretty_bytes` (what ``pg_size_pretty()`` prints), :func:`jvm_size_option` (the JVM's
``-Xmx``/``-Xms``, the last one given wins) and :func:`redis_size` (redis.conf, where ``1g`` is 10**9).
:func:`format_bytes` is the one byte formatter; :func:`format_gib`, :func:`format_gib_range` and
:func:`format_size` name its styles.

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
from typing import TYPE_CHECKING

from foretune.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping

GIB = 1024**3
MIB = 1024**2


def scaled_size(text: str, units: Mapping[str, int], *, bare: int | None = 1, fraction: bool = False,
                space: bool = False, fold_case: bool = False) -> int | None:
    """The one size parser: a number and one of ``units`` (name -> bytes), in bytes; None when it does not match.

    Each program's rule is its parameters: ``bare`` is the multiplier of a number without a unit (None: a unit
    is required), ``fraction`` allows ``1.5``, ``space`` allows blanks between number and unit, ``fold_case``
    makes unit names case-insensitive (``units`` then holds them in lower case).

    >>> scaled_size("2 kB", {"kB": 1024}, space=True), scaled_size("2KB", {"kB": 1024}), scaled_size("2", {}, bare=None)
    (2048, None, None)
    """
    names = "|".join(re.escape(name) for name in sorted(units, key=len, reverse=True) if name)
    number = r"(\d{1,18})" if not fraction else r"(\d{1,15}(?:\.\d{1,9})?)"
    pattern = number + (r"[ \t]*" if space else "") + (f"({names})" if names else "()") + ("?" if bare is not None else "")
    match = re.fullmatch(pattern, text, (re.IGNORECASE if fold_case else 0) | re.ASCII)
    if not match:
        return None
    unit = match.group(2)
    if not unit:
        return None if bare is None else int(float(match.group(1)) * bare)
    factor = units[unit.lower() if fold_case else unit]
    return int(match.group(1)) * factor if not fraction else int(float(match.group(1)) * factor)


# As administrators write sizes: every multiple binary, with or without "B"/"iB", any case.
_ADMIN_UNITS = {"b": 1, **{letter + suffix: 1024**power for power, letter in enumerate("kmgtp", 1) for suffix in ("", "b", "ib")}}


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
    value = scaled_size(text.strip(), _ADMIN_UNITS, bare=_ADMIN_UNITS.get(default_unit.lower(), 1), fraction=True, space=True,
                        fold_case=True)
    if value is None:
        raise UsageError(f"not a size: {text[:40]!r} (use e.g. 64G, 64GiB or 65536M)")
    if value <= 0:
        raise UsageError(f"size must be positive: {text!r}")
    return value


# --- formatting: one implementation, three styles -------------------------------------------------------

_BINARY = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
# PostgreSQL's memory units, case-sensitive, multiplier 1024 ("Valid memory units are B (bytes), kB
# (kilobytes), MB (megabytes), GB (gigabytes), and TB (terabytes). The multiplier for memory units is
# 1024, not 1000." - PostgreSQL documentation, 20.1.1 Parameter Names and Values)
PG_MEMORY_UNITS = {"B": 1, "kB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}
# fio's size suffixes as foreman-maintain writes them (``--size=1g``): fio reads k, m, g as powers of 1024 by
# default (kb_base=1024); a bare number is bytes
FIO_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}
# styles that write a size in the largest unit that divides it exactly, as a program reads it back
_EXACT = {"postgresql": PG_MEMORY_UNITS, "fio": FIO_UNITS}


def format_bytes(size: float, unit: str = "auto", *, places: int | None = 1, trim: bool = True, show_unit: bool = True) -> str:
    """The one byte formatter.

    ``unit`` picks the style: ``"auto"`` the largest binary unit (B .. PiB) that keeps the rounded figure
    below 1024; ``"KiB"`` .. ``"PiB"`` (or ``"B"``) that unit always; ``"postgresql"`` a PostgreSQL setting
    value (the largest of TB, GB, MB, kB that divides exactly, no blank: ``1536MB``); ``"fio"`` fio's size
    argument the same way (``1g``, ``64m``, ``12k``, bytes without a letter). ``places`` is the
    number of decimals (None: as many as needed, up to six significant digits); ``trim`` drops a ``.0``;
    ``show_unit`` False leaves the unit name off (for the low end of a range).

    >>> format_bytes(1536), format_bytes(5), format_bytes(1024**3 - 1), format_bytes(3 * 1024**5)
    ('1.5 KiB', '5 B', '1 GiB', '3 PiB')
    >>> format_bytes(GIB, "GiB", trim=False), format_bytes(1.25 * GIB, "GiB", places=None), format_bytes(1536 * MIB, "postgresql")
    ('1.0 GiB', '1.25 GiB', '1536MB')
    >>> format_bytes(3 * GIB, "fio"), format_bytes(64 * MIB, "fio"), format_bytes(12 * 1024, "fio"), format_bytes(1000, "fio")
    ('3g', '64m', '12k', '1000')
    """
    if unit in _EXACT:
        units = _EXACT[unit]
        for name, factor in sorted(units.items(), key=lambda item: -item[1]):
            if factor > 1 and size >= factor and size % factor == 0:
                return f"{int(size // factor)}{name}"
        return f"{int(size)}{next(name for name, factor in units.items() if factor == 1)}"
    if unit == "auto":
        value, unit = float(size), "B"
        for name in _BINARY[1:]:
            # "B" is never shown with decimals; a larger unit once the rounded figure would reach 1024
            limit = 1024 if unit == "B" else 1024 - 0.5 * 10 ** -(places or 0)
            if abs(value) < limit:
                break
            value, unit = value / 1024, name
        places = 0 if unit == "B" else places
    else:
        value = size / 1024 ** _BINARY.index(unit)
    text = f"{value:g}" if places is None else f"{value:.{places}f}"
    if trim and places and text.endswith("." + "0" * places):
        text = text[:-(places + 1)]
    return f"{text} {unit}" if show_unit else text


def format_gib(size: float) -> str:
    """Fixed GiB with one decimal, as plans and findings show sizes: ``'31.3 GiB'``.

    >>> format_gib(parse_size("31.3G"))
    '31.3 GiB'
    """
    return format_bytes(size, "GiB", trim=False)


def format_gib_range(low: float, high: float) -> str:
    """A range in fixed GiB with one decimal: ``'1.0-2.5 GiB'``."""
    return f"{format_bytes(low, 'GiB', trim=False, show_unit=False)}-{format_gib(high)}"


def format_size(size: int) -> str:
    """A PostgreSQL setting value: the largest unit that divides exactly (``8GB``, ``1536MB``, ``1000B``)."""
    return format_bytes(size, "postgresql")


def format_setting(value: object, unit: str, *, missing: str = "-") -> str:
    """A tunable's value as people write it: GiB for byte counts, on/off for booleans."""
    if value is None:
        return missing
    if unit == "bytes" and isinstance(value, int):
        return format_gib(value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


# pg_size_pretty(): "Converts a size in bytes into a more easily human-readable format with size units (bytes,
# kB, MB, GB, TB, or PB as appropriate). Note that the units are powers of 2 rather than powers of 10" (PostgreSQL
# documentation, 9.27.7 Database Object Management Functions; PB since PostgreSQL 15). It always writes a unit.
PG_PRETTY_UNITS = {"bytes": 1, "kB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4, "PB": 1024**5}


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
    text = str(value).strip()
    if len(text) >= 2 and text[0] == text[-1] == "'":
        text = text[1:-1].strip()
    return scaled_size(text, PG_MEMORY_UNITS, bare=unit_bytes, fraction=True, space=True)


def pg_size_pretty_bytes(text: str) -> int | None:
    """Bytes of a ``pg_size_pretty()`` figure (``8192 bytes``, ``16 kB``, ``1234 MB``); None for anything else.

    >>> pg_size_pretty_bytes("16 kB"), pg_size_pretty_bytes("8192 bytes"), pg_size_pretty_bytes("2 PB") == 2 * 1024**5
    (16384, 8192, True)
    >>> pg_size_pretty_bytes("16 kb"), pg_size_pretty_bytes("16")
    (None, None)
    """
    return scaled_size(text.strip(), PG_PRETTY_UNITS, bare=None, fraction=True, space=True)


# The JVM's -Xmx/-Xms: "-Xmx<size>[k|K|m|M|g|G|t|T]", bytes without a letter; when an option is
# given more than once the JVM takes the last one.
_JVM_UNITS = {"k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


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
    return scaled_size(text, _JVM_UNITS, fold_case=True)


def jvm_size_option(java_opts: str | None, flag: str = "-Xmx") -> int | None:
    """Bytes of ``flag`` (``-Xmx`` by default, or ``-Xms``) in JVM options: the last one given wins.

    >>> jvm_size_option("-Xms1024m -Xmx8192m"), jvm_size_option("-Xmx2g -Xmx8g"), jvm_size_option("")
    (8589934592, 8589934592, None)
    >>> jvm_size_option("-Xms1g -Xmx4g", "-Xms")
    1073741824
    """
    text = jvm_option_text(java_opts, flag)
    return None if text is None else jvm_size(text)


# redis.conf: "1k => 1000 bytes, 1kb => 1024 bytes, 1m => 1000000 bytes, 1mb => 1024*1024 bytes,
# 1g => 1000000000 bytes, 1gb => 1024*1024*1024 bytes. units are case insensitive so 1GB 1Gb 1gB are all the
# same." (the "Note on units" at the top of redis.conf); a bare number, or "b", is bytes.
REDIS_UNITS = {"b": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2, "g": 1000**3, "gb": 1024**3}


def redis_size(text: str) -> int | None:
    """A redis.conf memory size in bytes, by redis.conf's own rule; None when it is not one.

    >>> redis_size("2gb"), redis_size("100mb"), redis_size("1024"), redis_size("1g"), redis_size("1GB") == redis_size("1gB")
    (2147483648, 104857600, 1024, 1000000000, True)
    """
    return scaled_size(text.strip(), REDIS_UNITS, fold_case=True)
