"""Talk to PostgreSQL through ``psql``, as foreman-maintain does: no driver to install.

Queries are read-only unless a caller (bench db) says otherwise. Connection strings are
libpq conninfo (``host=/run/postgresql dbname=foreman``) or URIs; passwords are passed
through ``PGPASSWORD`` in the child's environment, never on the command line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from foretune.errors import InputError

_SEP = "\x1f"
# unaligned, tuples only, fields separated by _SEP, stop at the first error (the collector uses the same)
PSQL_OPTIONS = ("-X", "-q", "-A", "-t", "-F", _SEP, "-v", "ON_ERROR_STOP=1")


@dataclass(frozen=True)
class Connection:
    """Where and as whom to connect; ``conninfo`` never contains the password."""

    conninfo: str
    password: str | None = None

    def with_db(self, dbname: str) -> Connection:
        return Connection(f"{self.conninfo} dbname={dbname}", self.password)


def psql_error(stderr: str) -> str:
    """The line of psql's stderr that says what failed (its hints follow on tab-indented lines).

    >>> psql_error('psql: error: connection to server failed: Connection refused\\n\\tIs the server running?\\n')
    'psql: error: connection to server failed: Connection refused'
    """
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    main = [ln for ln in lines if re.search(r"\b(error|fatal)\b", ln, re.IGNORECASE)]
    return (main or lines or ["psql failed"])[0]


def psql_path() -> str:
    path = shutil.which("psql")
    if not path:
        raise InputError(
            "psql not found: install it (RHEL: dnf install postgresql; Debian/Ubuntu: apt-get install postgresql-client)"
        )
    return path


def run_psql(conninfo: str, sql: str, *, environ: Mapping[str, str], launcher: Sequence[str] = (), timeout: float = 60.0,
             server: str = "PostgreSQL", cwd: str | None = None) -> list[list[str]]:
    """The one psql runner: one statement, its rows as lists of strings (NULL becomes ``""``).

    ``environ`` is the child's whole environment (PGPASSWORD travels there, never on the command
    line); ``launcher`` goes before psql (``runuser -u postgres --``); ``server`` names the server
    in the one-line error.
    """
    env = dict(environ)
    env.setdefault("PGCONNECT_TIMEOUT", "10")
    argv = [*launcher, psql_path(), *PSQL_OPTIONS, "-d", conninfo, "-c", sql]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, check=False, cwd=cwd)
    except subprocess.TimeoutExpired as exc:
        raise InputError(f"PostgreSQL query timed out after {timeout:.0f}s") from exc
    if done.returncode != 0:
        raise InputError(f"{server}: {psql_error(done.stderr)}")
    return [line.split(_SEP) for line in done.stdout.splitlines() if line]


def query(conn: Connection, sql: str, *, timeout: float = 60.0, environ: Mapping[str, str] | None = None) -> list[list[str]]:
    """Run one statement on ``conn`` (see :func:`run_psql`)."""
    env = dict(os.environ if environ is None else environ)
    if conn.password:
        env["PGPASSWORD"] = conn.password
    return run_psql(conn.conninfo, sql, environ=env, timeout=timeout)
