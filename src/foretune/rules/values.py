"""Reading configured values the way the services do (integer settings, open-file limits); sizes are in foretune.units."""

from __future__ import annotations

from typing import Any


def pg_int(value: Any) -> int | None:
    """An integer PostgreSQL setting ('1000', 1000, "'1000'").

    >>> pg_int("'1000'"), pg_int(200), pg_int("x")
    (1000, 200, None)
    """
    try:
        return int(str(value).strip().strip("'\""))
    except (TypeError, ValueError):
        return None


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


def installer_command(product: str | None, role: str | None = "server") -> str:
    """The installer an admin runs for ``product``."""
    if product == "satellite":
        return "satellite-installer" + (" --scenario capsule" if role == "capsule" else "")
    return "foreman-installer"
