"""Which place wins when two set one tunable: PostgreSQL's files, systemd's unit and drop-ins, the installer's
layers (``knowledge/data/precedence.yaml``, each order with its citation).

The one place this knowledge lives: a fix that lands below a higher place that sets the same key cannot take
effect, so the audit checks every fix here (``foretune.audit.effect``). The apply/verify change model is to
replace this module with its per-release tables.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from foretune.knowledge import load_data


class Shadow(NamedTuple):
    """A place of higher precedence that sets the key a fix changes, and what removes it."""

    location: str  # the file, as the source names it
    line: str  # its line that sets the key, verbatim
    reset: str  # what takes it away, in short ("ALTER SYSTEM RESET max_connections;", "remove <file>")
    undo: str  # the command that does it
    citations: tuple[str, ...]  # where the order (and the reset) is stated


def table(mechanism: str) -> dict[str, Any]:
    """The precedence entry of ``mechanism`` (postgresql, systemd, installer)."""
    return dict(load_data("precedence.yaml")[mechanism])


def _sets(line: str, key: str) -> bool:
    return re.match(rf"\s*{re.escape(key)}\s*(=|\s)", line, re.IGNORECASE) is not None


def postgresql_shadow(setting: str, files: Iterable[tuple[str, str]]) -> Shadow | None:
    """The postgresql.auto.conf line that sets ``setting``, when ``files`` (location, text: what was read, in the
    order PostgreSQL reads it) has one: ALTER SYSTEM's value wins over every postgresql.conf the installer writes.

    >>> postgresql_shadow("max_connections", [("var/lib/pgsql/data/postgresql.conf", "max_connections = 500"),
    ...     ("var/lib/pgsql/data/postgresql.auto.conf", "# Do not edit\\nmax_connections = '200'")]).line
    "max_connections = '200'"
    >>> postgresql_shadow("work_mem", [("var/lib/pgsql/data/postgresql.auto.conf", "max_connections = '200'")]) is None
    True
    """
    entry = table("postgresql")
    found: Shadow | None = None
    for location, text in files:
        if posixpath.basename(location) != entry["highest_file"]:
            continue
        for line in text.replace(" | ", "\n").splitlines():
            if _sets(line, setting):
                reset = str(entry["reset"]).format(setting=setting)
                found = Shadow(location, line.strip(), reset, str(entry["undo"]).format(reset=reset),
                               (str(entry["citation"]), str(entry["undo_citation"])))
    return found


def systemd_shadow(unit: str, key: str, dropins: Iterable[tuple[str, str]], owned: str) -> Shadow | None:
    """The drop-in of ``unit`` that sets ``key`` after ``owned`` (the drop-in a fix writes), when one does:
    drop-ins are read in lexical order of their names and the last one to set a key wins.

    >>> systemd_shadow("foreman.service", "Environment", [
    ...     ("etc/systemd/system/foreman.service.d/installer.conf", "Environment=FOREMAN_PUMA_THREADS_MAX=5"),
    ...     ("etc/systemd/system/foreman.service.d/override.conf", "Environment=FOREMAN_PUMA_THREADS_MAX=16")],
    ...     owned="installer.conf").location
    'etc/systemd/system/foreman.service.d/override.conf'
    """
    entry = table("systemd")
    later = sorted(((posixpath.basename(loc), loc, text) for loc, text in dropins
                    if posixpath.basename(posixpath.dirname(loc)) == f"{unit}.d" and posixpath.basename(loc) > owned),
                   key=lambda t: t[0].encode())
    for _, location, text in reversed(later):
        lines = [line.strip() for line in text.splitlines() if line.strip().startswith(f"{key}=")]
        if lines:
            path = "/" + location.lstrip("/")
            return Shadow(location, " | ".join(lines), f"remove {path}", f"rm {path} && systemctl daemon-reload",
                          (str(entry["citation"]),))
    return None


def installer_order() -> list[str]:
    """The installer's layers from the lowest precedence to the highest.

    >>> installer_order()
    ['profile', 'answers', 'custom-hiera']
    """
    return [str(layer) for layer in table("installer")["order"]]
