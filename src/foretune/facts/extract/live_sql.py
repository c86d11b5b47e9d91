"""Live-only facts read with SQL through psql: PostgreSQL settings, connections, hosts, tasks, facts per host.

The connection comes from ``FORETUNE_PG_CONNINFO`` (libpq conninfo, for tests and remote
databases) or from /etc/foreman/database.yml (password passed via the environment only).
Each query's output is kept with the other raw texts (location ``psql (WHERE): STATEMENT``), so a
snapshot holds it and the facts are extracted from it again when the snapshot has no facts
(the collector's snapshots).
"""

from __future__ import annotations

from collections.abc import Callable

from foretune.errors import InputError
from foretune.facts.extract.core import Extractor
from foretune.facts.parsers.yamlfile import parse_yaml
from foretune.host.sources.base import Raw, Source
from foretune.host.sources.live import LiveHost
from foretune.pg import _SEP as SEP
from foretune.pg import Connection, query

ENV_CONNINFO = "FORETUNE_PG_CONNINFO"
DEFAULT_HOST = "/var/run/postgresql"
DATABASE_YML = "/etc/foreman/database.yml"
SQL_TIMEOUT = 30.0
# fact -> statement, in the order they run; `collect` and the collector run exactly these
QUERIES: dict[str, str] = {
    "postgresql": "SHOW ALL",
    "postgresql_connections": "SELECT count(*) FROM pg_stat_activity",
    "managed_hosts": "SELECT count(*) FROM hosts WHERE type = 'Host::Managed'",
    "tasks": ("SELECT count(*) FILTER (WHERE state = 'paused'), "
              "count(*) FILTER (WHERE state = 'paused' AND started_at < now() - interval '30 days'), "
              "count(*) FILTER (WHERE state = 'running') FROM foreman_tasks_tasks"),
    "max_facts_per_host": "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM fact_values GROUP BY host_id) s",
}
FOREMAN_DB = ("managed_hosts", "tasks", "max_facts_per_host")  # these run in the foreman database
LIVE_FACTS = ("postgresql_connections", "managed_hosts", "tasks", "max_facts_per_host")

Fetch = Callable[[str], "list[list[str]] | None"]


def connection(x: Extractor, src: LiveHost) -> tuple[Connection | None, str]:
    conninfo = src.environ.get(ENV_CONNINFO)
    if conninfo:
        return Connection(conninfo, src.environ.get("PGPASSWORD")), f"{ENV_CONNINFO}"
    raw = x.raw("database_yml")
    data = x.parse(raw, parse_yaml) if raw is not None else None
    production = (data or {}).get("production")
    if not isinstance(production, dict):
        return None, x.why("database_yml") if raw is None else f"{raw.location} has no production section"
    parts = [f"{k}={production[v]}" for k, v in (("host", "host"), ("port", "port"), ("user", "username")) if production.get(v)]
    if not production.get("host"):
        parts.insert(0, f"host={DEFAULT_HOST}")
    password = production.get("password")
    return Connection(" ".join(parts), str(password) if password else None), DATABASE_YML


def live_sql(x: Extractor, src: LiveHost) -> None:
    """Run the queries on the live database; their outputs join the source's raw texts."""
    conn, where = connection(x, src)
    if conn is None:
        for name in LIVE_FACTS:
            x.unknown(name, f"no database connection ({where}; set {ENV_CONNINFO} to point at one)")
        return
    location = f"psql ({where})"
    foreman = conn if "dbname=" in conn.conninfo and src.environ.get(ENV_CONNINFO) else conn.with_db("foreman")

    def fetch(fact: str) -> list[list[str]] | None:
        try:
            rows = query(foreman if fact in FOREMAN_DB else conn, QUERIES[fact], timeout=SQL_TIMEOUT)
        except InputError as exc:
            x.unknown(fact, f"{location}: {exc}")
            return None
        src._remember(Raw("".join(SEP.join(row) + "\n" for row in rows), f"{location}: {QUERIES[fact]}"), None)
        return rows

    _facts(x, location, fetch)


def recorded_sql(x: Extractor, src: Source, raw: dict[str, str]) -> None:
    """The same facts from query outputs recorded in a snapshot (``raw``: location -> text)."""
    found = sorted(k.split("): ", 1)[0] + ")" for k in raw if k.startswith("psql (") and "): " in k)
    if not found:
        for name in LIVE_FACTS:
            x.unknown(name, "the database was not read when the snapshot was taken (no connection, or not root)")
        return
    location = found[0]

    def fetch(fact: str) -> list[list[str]] | None:
        text = src.read_path(f"{location}: {QUERIES[fact]}")
        if text is None:
            x.unknown(fact, f"{location}: the query failed when the snapshot was taken")
            return None
        return [line.split(SEP) for line in text.text.splitlines() if line]

    _facts(x, location, fetch)


def _facts(x: Extractor, location: str, fetch: Fetch) -> None:
    rows = fetch("postgresql")
    if rows:
        settings = {r[0]: r[1] for r in rows if len(r) >= 2}
        x.known("postgresql", settings, x.note(f"{location}: SHOW ALL",
                                               " ".join(f"{k}={settings.get(k)}" for k in ("max_connections", "shared_buffers", "work_mem"))))
    rows = fetch("postgresql_connections")
    if rows:
        x.known("postgresql_connections", int(rows[0][0]), x.note(f"{location}: SELECT count(*) FROM pg_stat_activity", rows[0][0]))
    rows = fetch("managed_hosts")
    if rows:
        x.known("managed_hosts", int(rows[0][0]), x.note(f"{location}: SELECT count(*) FROM hosts", rows[0][0]))
    rows = fetch("tasks")
    if rows:
        paused, old, running = (int(v) for v in rows[0][:3])
        x.known("tasks", {"paused": paused, "old_paused": old, "running": running},
                x.note(f"{location}: foreman_tasks_tasks", f"paused={paused} old_paused={old} running={running}"))
    rows = fetch("max_facts_per_host")
    if rows:
        x.known("max_facts_per_host", int(rows[0][0]), x.note(f"{location}: fact_values per host", rows[0][0]))
