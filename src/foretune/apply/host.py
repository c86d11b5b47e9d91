"""The host `apply` and `verify` work on: this host (``/``) or a tree given with ``--root`` (a mounted image or a copy).

Paths are the host's absolute paths (``/etc/foreman-installer/custom-hiera.yaml``); each is resolved under the
root one component at a time, refusing symbolic links on the way, so nothing written for a tree lands outside it.
PostgreSQL is reached through psql: ``--dsn`` when given, on this host as the ``postgres`` account (as
foreman-maintain does), and not at all on a tree without ``--dsn`` (its ``postgresql.auto.conf`` is edited the way
``ALTER SYSTEM`` writes it).
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Mapping
from pathlib import Path

from foretune.errors import InputError
from foretune.safeio import kind, read_bytes

# where PostgreSQL keeps its data on the releases foretune knows: RHEL 7's SCL PostgreSQL 12 first (Satellite 6.8-6.10;
# the upgrade to it leaves PostgreSQL 9.2's /var/lib/pgsql/data behind), then the RHEL 8/9 packages'
PG_DATA_DIRS = ("/var/opt/rh/rh-postgresql12/lib/pgsql/data", "/var/lib/pgsql/data", "/var/lib/postgresql/data")
RUNS_DIR = "/var/lib/foretune/runs"


class Host:
    """This host or a tree, and how to reach its PostgreSQL."""

    def __init__(self, root: str | None = None, dsn: str | None = None, environ: Mapping[str, str] | None = None) -> None:
        self.live = root is None
        self.root = Path(root or "/")
        self.dsn = dsn
        self.environ = dict(os.environ if environ is None else environ)
        if not self.live:
            try:
                st = os.stat(self.root)
            except OSError as exc:
                raise InputError(f"--root {root}: {exc.strerror}") from None
            if not stat.S_ISDIR(st.st_mode):
                raise InputError(f"--root {root}: is {kind(st.st_mode)}, not a directory")
            if not os.access(self.root, os.R_OK | os.X_OK):
                raise InputError(f"--root {root}: not readable")

    @property
    def label(self) -> str:
        return "this host" if self.live else str(self.root)

    def path(self, host_path: str) -> Path:
        """``host_path`` under the root; InputError when a component on the way is a symbolic link."""
        if not host_path.startswith("/") or "\x00" in host_path or ".." in Path(host_path).parts:
            raise InputError(f"{host_path}: not an absolute path on the host")
        here = self.root
        parts = Path(host_path).parts[1:]
        for n, part in enumerate(parts):
            here = here / part
            try:
                st = os.lstat(here)
            except FileNotFoundError:
                break
            except OSError as exc:
                raise InputError(f"{here}: {exc.strerror}") from None
            if stat.S_ISLNK(st.st_mode) and not (self.live and n < len(parts) - 1):
                # on this host a linked directory (/var -> /srv/var) is the host's own layout; the file itself never
                raise InputError(f"{here}: is a symbolic link (to {os.readlink(here)}): refusing to follow it")
        return self.root.joinpath(*parts)

    def resolve(self, host_path: str) -> Path:
        """``host_path`` under the root with its symbolic links followed as the host would (an absolute link from
        the root), for reading only: systemd reads a linked foreman.service.d. InputError when a link leads out of
        the root or loops."""
        if not host_path.startswith("/") or "\x00" in host_path:
            raise InputError(f"{host_path}: not an absolute path on the host")
        parts = list(Path(posixpath.normpath(host_path)).parts[1:])
        done: list[str] = []
        links = 0
        while parts:
            part = parts.pop(0)
            here = self.root.joinpath(*done, part)
            if not here.is_symlink():
                done = [*done[:-1]] if part == ".." else [*done, part]
                continue
            links += 1
            target = os.readlink(here)
            if links > 40:
                raise InputError(f"{here}: too many levels of symbolic links")
            joined = target if target.startswith("/") else posixpath.join("/", *done, target)
            normal = posixpath.normpath(joined)
            parts = [*Path(normal).parts[1:], *parts]
            done = []
        return self.root.joinpath(*done)

    def read(self, host_path: str) -> bytes | None:
        """The file's bytes, None when it does not exist; InputError when it cannot be read."""
        path = self.path(host_path)
        try:
            return read_bytes(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None

    def pg_data_dir(self) -> str | None:
        """The host path of PostgreSQL's data directory (the first of PG_DATA_DIRS holding PG_VERSION)."""
        for directory in PG_DATA_DIRS:
            path = self.path(directory + "/PG_VERSION")
            if path.is_file() and not path.is_symlink():
                return directory
        return None

    @property
    def has_psql(self) -> bool:
        """PostgreSQL is reached through psql (``--dsn``, or this host), not by editing the tree."""
        return self.dsn is not None or self.live

    @property
    def postgresql(self) -> str:
        """Where psql statements go, as a journal records it: the --dsn without its password, this host's PostgreSQL,
        or "" (a tree without --dsn: its files are edited instead)."""
        if self.dsn is not None:
            return split_password(self.dsn)[0]
        return "this host's PostgreSQL (as postgres)" if self.live else ""

    def psql(self, sql: str) -> list[list[str]]:
        """Run one statement; InputError with psql's one line when it fails."""
        from foretune.pg import run_psql  # start-up: psql only when PostgreSQL is asked

        if self.dsn is not None:
            conninfo, password = split_password(self.dsn)  # never on psql's command line (ps shows it to every user)
            return run_psql(conninfo, sql, environ={**self.environ, **({"PGPASSWORD": password} if password else {})})
        # this host: as the postgres account over the local socket, as foreman-maintain runs its queries
        launcher = ("runuser", "-u", "postgres", "--") if os.geteuid() == 0 else ()
        return run_psql("dbname=postgres", sql, environ=self.environ, launcher=launcher, cwd="/")


def split_password(conninfo: str) -> tuple[str, str | None]:
    """``conninfo`` without its password (key=value ``password=...`` or a URI's ``user:password@``), and the password.

    >>> split_password("host=/tmp port=5432 password='a b' user=postgres")
    ('host=/tmp port=5432 user=postgres', 'a b')
    >>> split_password("postgresql://postgres:s3cret@db/postgres")
    ('postgresql://postgres@db/postgres', 's3cret')
    >>> split_password("host=/tmp")
    ('host=/tmp', None)
    """
    import re  # start-up: only when a --dsn is used

    uri = re.match(r"(postgres(?:ql)?://[^:/@]*):([^@]*)@(.*)", conninfo)
    if uri:
        return f"{uri.group(1)}@{uri.group(3)}", uri.group(2)
    found = re.search(r"(?:^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S+)", conninfo)
    if not found:
        return conninfo, None
    value = found.group(1)
    if value.startswith("'"):
        value = re.sub(r"\\(.)", r"\1", value[1:-1])
    return " ".join((conninfo[:found.start()] + " " + conninfo[found.end():]).split()), value
