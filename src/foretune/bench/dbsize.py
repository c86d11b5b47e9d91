"""Read-only size report: the largest tables of the foreman, candlepin and pulpcore databases and
the size of the PostgreSQL data directory (satellite-support's postgres-size-report, as data)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from foretune.bench.pgclient import Target, psql
from foretune.units import format_bytes

DATABASES = ("foreman", "candlepin", "pulpcore")

# table = total - index - toast, as postgres-size-report computes it
TABLES_SQL = """
SELECT n.nspname || '.' || c.relname,
       pg_total_relation_size(c.oid),
       pg_indexes_size(c.oid),
       COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema')
ORDER BY 2 DESC, 1
LIMIT {limit}
"""


def existing_databases(target: Target, wanted: Sequence[str]) -> list[str]:
    rows = psql(target, target.default_db, "SELECT datname FROM pg_database WHERE NOT datistemplate")
    present = {row[0] for row in rows}
    return [name for name in wanted if name in present]


def table_sizes(target: Target, dbname: str, limit: int) -> dict[str, Any]:
    """The database's size and its ``limit`` largest ordinary tables."""
    rows = psql(target, dbname, TABLES_SQL.format(limit=int(limit)))
    tables = []
    for name, total, index, toast in rows:
        total_b, index_b, toast_b = int(total), int(index), int(toast)
        tables.append({"table": name, "total_bytes": total_b, "index_bytes": index_b, "toast_bytes": toast_b,
                       "table_bytes": max(0, total_b - index_b - toast_b)})
    size = int(psql(target, dbname, "SELECT pg_database_size(current_database())")[0][0])
    return {"name": dbname, "size_bytes": size, "tables": tables}


def disk_usage(path: str) -> int:
    """Bytes allocated under ``path`` (like ``du -s``), not following symlinks."""
    total = 0
    for base, dirs, files in os.walk(path, onerror=None):
        for name in files + dirs:
            try:
                total += os.lstat(os.path.join(base, name)).st_blocks * 512
            except OSError:
                continue
    return total


def data_directory(target: Target) -> dict[str, Any]:
    """The server's data directory with the size of each top-level entry, when readable here."""
    try:
        path = psql(target, target.default_db, "SHOW data_directory")[0][0]
    except Exception as exc:  # needs superuser or pg_read_all_settings
        return {"path": None, "size_bytes": None, "entries": [], "note": str(exc)}
    if not os.path.isdir(path) or not os.access(path, os.R_OK | os.X_OK):
        return {"path": path, "size_bytes": None, "entries": [],
                "note": "not readable from here (another host, or run as root/postgres)"}
    entries: list[dict[str, Any]] = []
    for name in sorted(os.listdir(path)):
        full = os.path.join(path, name)
        try:
            size = os.lstat(full).st_blocks * 512
        except OSError:
            continue
        if os.path.isdir(full) and not os.path.islink(full):
            size += disk_usage(full)
        entries.append({"name": name, "size_bytes": size})
    entries.sort(key=lambda e: (-e["size_bytes"], e["name"]))
    return {"path": path, "size_bytes": sum(e["size_bytes"] for e in entries), "entries": entries, "note": None}


def report(target: Target, databases: Sequence[str], limit: int) -> dict[str, Any]:
    """The whole report as a JSON-ready dict (schema foretune-dbsize/1)."""
    import datetime  # start-up: datetime loads only when a report is dated
    import socket  # start-up: only when report runs

    present = existing_databases(target, databases)
    return {
        "schema": "foretune-dbsize/1",
        "host": socket.gethostname(),
        "created": datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat(),
        "databases": [table_sizes(target, name, limit) for name in present],
        "missing": [name for name in databases if name not in present],
        "data_directory": data_directory(target),
    }


def human(size: int | None) -> str:
    """A size in binary units (the one byte formatter).

    >>> human(0), human(8192), human(3 * 1024**3 // 2), human(None)
    ('0 B', '8 KiB', '1.5 GiB', '-')
    """
    return "-" if size is None else format_bytes(size)


def summary(doc: dict[str, Any], limit: int) -> str:
    lines: list[str] = []
    for db in doc["databases"]:
        lines.append(f"{db['name']}: {human(db['size_bytes'])} - {min(limit, len(db['tables']))} largest tables")
        lines.append(f"  {'table':<48}{'total':>10}{'index':>10}{'toast':>10}{'table':>10}")
        for t in db["tables"]:
            lines.append(f"  {t['table']:<48}{human(t['total_bytes']):>10}{human(t['index_bytes']):>10}"
                         f"{human(t['toast_bytes']):>10}{human(t['table_bytes']):>10}")
        lines.append("")
    if doc["missing"]:
        lines += [f"not on this server: {', '.join(doc['missing'])}", ""]
    data = doc["data_directory"]
    if data["size_bytes"] is None:
        lines.append(f"data directory {data['path'] or '?'}: size unknown ({data['note']})")
    else:
        lines.append(f"data directory {data['path']}: {human(data['size_bytes'])}")
        for entry in data["entries"][:10]:
            lines.append(f"  {entry['name']:<24}{human(entry['size_bytes']):>10}")
    return "\n".join(lines) + "\n"
