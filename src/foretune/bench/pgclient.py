"""Which PostgreSQL server the bench and db-size commands talk to, and how (psql/pgbench subprocesses).

Order: ``--dsn`` (conninfo or URI), then libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE,
PGPASSWORD), then the server's local socket as the ``postgres`` user - through ``runuser -u
postgres`` when foretune runs as root, as the guides' ``su - postgres -c psql`` does.
Passwords travel in PGPASSWORD of the child only; they never appear on a command line or in output.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlsplit

from foretune.errors import InputError, UsageError
from foretune.pg import run_psql

_LIBPQ_ENV = ("PGHOST", "PGPORT", "PGUSER", "PGDATABASE", "PGSERVICE")


def _quote(value: str) -> str:
    if value and re.fullmatch(r"[^\s'\\]+", value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class Target:
    """A server: conninfo without dbname or password, the password, and an OS user to run clients as."""

    conninfo: str
    password: str | None
    run_as: str | None
    default_db: str
    environ: Mapping[str, str]

    def dsn(self, dbname: str) -> str:
        return f"{self.conninfo} dbname={_quote(dbname)}".strip()

    def describe(self) -> str:
        """The server for messages, secrets such as ``sslpassword=`` masked."""
        from foretune.host.redact import redact_text  # start-up: its patterns compile only for a message

        who = f" as OS user {self.run_as}" if self.run_as else ""
        return f"{redact_text(self.conninfo) or 'local socket'}{who}"

    def child_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = dict(self.environ)
        env.setdefault("PGCONNECT_TIMEOUT", "10")
        if self.password:
            env["PGPASSWORD"] = self.password
        env.update(extra or {})
        return env

    def launcher(self) -> list[str]:
        """What goes before a client program: ``runuser -u postgres --`` when clients run as another user."""
        return [_runuser(self.environ), "-u", self.run_as, "--"] if self.run_as else []

    def argv(self, program: str, *args: str) -> list[str]:
        return [*self.launcher(), program, *args]


def _runuser(environ: Mapping[str, str]) -> str:
    search = f"{environ.get('PATH', os.defpath)}:/usr/sbin:/sbin:/usr/bin:/bin"
    found = shutil.which("runuser", path=search)
    if not found:
        raise InputError("runuser not found (util-linux); connect with --dsn or PGHOST/PGUSER instead")
    return found


def split_dsn(dsn: str) -> tuple[str, str | None, str | None]:
    """(conninfo without dbname/password, password, dbname) from a conninfo string or URI.

    >>> split_dsn("postgresql://bench:s3cret@db.example.com:5433/foreman?sslmode=require")
    ('host=db.example.com port=5433 user=bench sslmode=require', 's3cret', 'foreman')
    >>> split_dsn("host=/run/postgresql user=postgres password='a b' dbname=postgres")
    ('host=/run/postgresql user=postgres', 'a b', 'postgres')
    """
    if dsn.startswith(("postgresql://", "postgres://")):
        url = urlsplit(dsn)
        parts: list[tuple[str, str]] = []
        try:
            port = url.port
        except ValueError as exc:
            raise UsageError(f"--dsn: bad port in {url.netloc.rpartition('@')[2]!r}") from exc
        if url.hostname:
            parts.append(("host", unquote(url.hostname)))
        if port:
            parts.append(("port", str(port)))
        if url.username:
            parts.append(("user", unquote(url.username)))
        params = dict(parse_qsl(url.query))
        password: str | None = unquote(url.password) if url.password else params.pop("password", None)
        dbname: str | None = unquote(url.path.lstrip("/")) or params.pop("dbname", None)
        parts += sorted(params.items())
        return " ".join(f"{k}={_quote(v)}" for k, v in parts), password, dbname
    pairs = re.findall(r"(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", dsn)
    if not pairs and dsn.strip():
        raise UsageError("--dsn: expected key=value pairs (host=... user=...) or a postgresql:// URI")
    kept: list[str] = []
    password = dbname = None
    for key, raw in pairs:
        value = re.sub(r"\\(.)", r"\1", raw[1:-1]) if raw.startswith("'") else raw
        if key == "password":
            password = value
        elif key == "dbname":
            dbname = value
        else:
            kept.append(f"{key}={_quote(value)}")
    return " ".join(kept), password, dbname


def resolve(dsn: str | None, environ: Mapping[str, str]) -> Target:
    """The server to use for ``--dsn``/libpq environment/local default (see module docstring)."""
    env = dict(environ)
    if dsn:
        conninfo, password, dbname = split_dsn(dsn)
        return Target(conninfo, password, None, dbname or "postgres", env)
    if any(env.get(name) for name in _LIBPQ_ENV):
        return Target("", None, None, env.get("PGDATABASE") or "postgres", env)
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
            return Target("", None, "postgres", "postgres", env)
        except KeyError:
            pass
    return Target("user=postgres", None, None, "postgres", env)


def program(name: str, target: Target, hint: str) -> str:
    """Path of a PostgreSQL client program (PATH, then the versioned bin directories)."""
    import glob  # start-up: only when program runs

    found = shutil.which(name, path=target.environ.get("PATH", os.defpath))
    if not found:
        candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) + sorted(glob.glob(f"/usr/pgsql-*/bin/{name}"))
        found = candidates[-1] if candidates else None
    if not found:
        raise InputError(f"{name} not found: {hint}")
    return found


def psql(target: Target, dbname: str, sql: str, *, read_only: bool = True, timeout: float = 120.0) -> list[list[str]]:
    """Run one statement in ``dbname``; rows as lists of strings. Read-only sessions unless told otherwise."""
    extra = {"PGOPTIONS": "-c default_transaction_read_only=on"} if read_only else {"PGOPTIONS": ""}
    return run_psql(target.dsn(dbname), sql, environ=target.child_env(extra), launcher=target.launcher(), timeout=timeout,
                    server=f"PostgreSQL ({target.describe()})", cwd="/")
