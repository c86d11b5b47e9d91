"""Reading configured values the way the services do (PostgreSQL units, Java heap flags)."""

from __future__ import annotations

import re
from typing import Any

_PG_UNITS = {"b": 1, "kb": 1024, "mb": 1024**2, "gb": 1024**3, "tb": 1024**4}


def pg_bytes(value: Any, *, unit_bytes: int = 8192) -> int | None:
    """A PostgreSQL memory setting in bytes; unitless numbers count ``unit_bytes`` (8 kB pages).

    >>> pg_bytes("4GB"), pg_bytes("512MB"), pg_bytes("16384"), pg_bytes("4MB"), pg_bytes(None)
    (4294967296, 536870912, 134217728, 4194304, None)
    >>> pg_bytes("4096", unit_bytes=1024)  # work_mem counts kB
    4194304
    >>> pg_bytes("lots") is None
    True
    """
    if value is None:
        return None
    match = re.fullmatch(r"\s*'?(\d+(?:\.\d+)?)\s*([kKmMgGtT]?[bB])?'?\s*", str(value))
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2)
    return int(number * (_PG_UNITS[unit.lower()] if unit else unit_bytes))


def pg_int(value: Any) -> int | None:
    """An integer PostgreSQL setting ('1000', 1000, "'1000'").

    >>> pg_int("'1000'"), pg_int(200), pg_int("x")
    (1000, 200, None)
    """
    try:
        return int(str(value).strip().strip("'\""))
    except (TypeError, ValueError):
        return None


def java_heap_max(java_opts: str | None) -> int | None:
    """-Xmx from JVM options in bytes.

    >>> java_heap_max("-Xms1024m -Xmx8192m"), java_heap_max("-Xmx4g"), java_heap_max("")
    (8589934592, 4294967296, None)
    """
    match = re.search(r"-Xmx(\d+)([kKmMgG]?)", java_opts or "")
    if not match:
        return None
    factor = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[match.group(2).lower()]
    return int(match.group(1)) * factor


def service_nofile(limits: dict[str, Any] | None, unit: str) -> int | None:
    """The open-files limit in force for ``unit`` (``httpd`` or ``httpd.service``): the soft one.

    Order: the running process's soft limit (/proc/PID/limits), systemd's ``LimitNOFILESoft``, then
    ``LimitNOFILE`` (systemd sets soft = hard when a unit gives one value).
    """
    soft, _ = service_nofile_pair(limits, unit)
    return soft


def service_nofile_pair(limits: dict[str, Any] | None, unit: str) -> tuple[int | None, int | None]:
    """(soft limit in force, hard limit) of ``unit``; None where unknown or unlimited."""
    if not limits:
        return None, None
    entry = limits.get(unit if unit.endswith(".service") else f"{unit}.service")
    if not isinstance(entry, dict):
        return None, None

    def num(key: str) -> int | None:
        value = entry.get(key)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    hard = num("process_nofile_hard") or num("LimitNOFILE")
    for key in ("process_nofile", "soft_nofile", "LimitNOFILE"):
        if num(key) is not None:
            return num(key), hard
    return None, hard


def nofile_text(limits: dict[str, Any] | None, unit: str) -> str:
    """``soft 1024 (hard 524288)`` for messages: both limits, the soft one first (it is the one in force)."""
    soft, hard = service_nofile_pair(limits, unit)
    return f"soft {soft}" + (f" (hard {hard})" if hard is not None and hard != soft else "")


def gib(num_bytes: float) -> str:
    return f"{num_bytes / 1024**3:.1f} GiB"


def installer_command(product: str | None, role: str | None = "server") -> str:
    """The installer an admin runs for ``product``."""
    if product == "satellite":
        return "satellite-installer" + (" --scenario capsule" if role == "capsule" else "")
    return "foreman-installer"
