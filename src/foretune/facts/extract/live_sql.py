"""Live-only facts read with SQL through psql: PostgreSQL settings, connections, hosts, tasks, facts per host.

The connection comes from ``FORETUNE_PG_CONNINFO`` (libpq conninfo, for tests and remote
databases) or from /etc/foreman/database.yml (password passed via the environment only).
"""

from __future__ import annotations

from foretune.errors import InputError
from foretune.facts.extract.core import Extractor
from foretune.facts.parsers.yamlfile import parse_yaml
from foretune.facts.sources.live import LiveHost
from foretune.pg import Connection, query

ENV_CONNINFO = "FORETUNE_PG_CONNINFO"


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
        parts.insert(0, "host=/var/run/postgresql")
    password = production.get("password")
    return Connection(" ".join(parts), str(password) if password else None), "/etc/foreman/database.yml"


def _rows(x: Extractor, conn: Connection, sql: str, label: str, fact: str) -> list[list[str]] | None:
    try:
        return query(conn, sql, timeout=30)
    except InputError as exc:
        x.unknown(fact, f"{label}: {exc}")
        return None


def live_sql(x: Extractor, src: LiveHost) -> None:
    conn, where = connection(x, src)
    facts = ("postgresql_connections", "managed_hosts", "tasks", "max_facts_per_host")
    if conn is None:
        for name in facts:
            x.unknown(name, f"no database connection ({where}; set {ENV_CONNINFO} to point at one)")
        return
    location = f"psql ({where})"
    rows = _rows(x, conn, "SHOW ALL", location, "postgresql")
    if rows:
        settings = {r[0]: r[1] for r in rows if len(r) >= 2}
        x.known("postgresql", settings, x.note(f"{location}: SHOW ALL",
                                               " ".join(f"{k}={settings.get(k)}" for k in ("max_connections", "shared_buffers", "work_mem"))))
    rows = _rows(x, conn, "SELECT count(*) FROM pg_stat_activity", location, "postgresql_connections")
    if rows:
        x.known("postgresql_connections", int(rows[0][0]), x.note(f"{location}: SELECT count(*) FROM pg_stat_activity", rows[0][0]))
    foreman = conn if "dbname=" in conn.conninfo and src.environ.get(ENV_CONNINFO) else conn.with_db("foreman")
    rows = _rows(x, foreman, "SELECT count(*) FROM hosts WHERE type = 'Host::Managed'", location, "managed_hosts")
    if rows:
        x.known("managed_hosts", int(rows[0][0]), x.note(f"{location}: SELECT count(*) FROM hosts", rows[0][0]))
    sql = ("SELECT count(*) FILTER (WHERE state = 'paused'), "
           "count(*) FILTER (WHERE state = 'paused' AND started_at < now() - interval '30 days'), "
           "count(*) FILTER (WHERE state = 'running') FROM foreman_tasks_tasks")
    rows = _rows(x, foreman, sql, location, "tasks")
    if rows:
        paused, old, running = (int(v) for v in rows[0][:3])
        x.known("tasks", {"paused": paused, "old_paused": old, "running": running},
                x.note(f"{location}: foreman_tasks_tasks", f"paused={paused} old_paused={old} running={running}"))
    rows = _rows(x, foreman, "SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM fact_values GROUP BY host_id) s",
                 location, "max_facts_per_host")
    if rows:
        x.known("max_facts_per_host", int(rows[0][0]), x.note(f"{location}: fact_values per host", rows[0][0]))
