"""A throwaway PostgreSQL cluster on a temporary Unix socket, for tests that need a real server.

initdb refuses to run as root, so as root the cluster belongs to the ``postgres`` (or
``nobody``) account and is started with ``runuser``.
"""

from __future__ import annotations

import atexit
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def find_pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) + sorted(glob.glob(f"/usr/pgsql-*/bin/{name}"))
    return candidates[-1] if candidates else None


@dataclass
class Cluster:
    datadir: Path
    sockdir: Path
    port: int
    run_as: str | None

    @property
    def conninfo(self) -> str:
        return f"host={self.sockdir} port={self.port} user=postgres"


def _as_user(argv: list[str], user: str | None) -> list[str]:
    return ["runuser", "-u", user, "--", *argv] if user else argv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_TEMPLATES: dict[str | None, Path] = {}  # run_as -> an initdb'd data directory, made once per process


def _template(initdb: str, run_as: str | None) -> Path:
    """A fresh cluster's data directory, made by initdb once per process: clusters start from a copy (initdb takes seconds)."""
    if run_as not in _TEMPLATES:
        base = Path(tempfile.mkdtemp(prefix="foretune-pg-template-"))
        os.chmod(base, 0o755)
        if run_as:
            os.chown(base, pwd.getpwnam(run_as).pw_uid, -1)
        subprocess.run(_as_user([initdb, "-D", str(base / "data"), "-U", "postgres", "-A", "trust", "--no-sync"], run_as),
                       check=True, capture_output=True, cwd="/")
        atexit.register(shutil.rmtree, base, True)
        _TEMPLATES[run_as] = base / "data"
    return _TEMPLATES[run_as]


def start(settings: dict[str, str] | None = None) -> Cluster:
    """Start a cluster; ``settings`` are extra server settings (``{"max_connections": "20"}``)."""
    initdb, pg_ctl = find_pg_bin("initdb"), find_pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise RuntimeError("PostgreSQL server binaries (initdb, pg_ctl) not found; run `python3 dev.py test`")
    run_as = None
    if os.geteuid() == 0:
        for candidate in ("postgres", "nobody"):
            try:
                pwd.getpwnam(candidate)
                run_as = candidate
                break
            except KeyError:
                continue
    base = Path(tempfile.mkdtemp(prefix="foretune-pg-"))
    os.chmod(base, 0o755)
    datadir, sockdir = base / "data", base / "sock"
    datadir.mkdir()
    sockdir.mkdir()
    if run_as:
        uid = pwd.getpwnam(run_as).pw_uid
        for path in (base, datadir, sockdir):
            os.chown(path, uid, -1)
    port = _free_port()
    subprocess.run(_as_user(["cp", "-a", f"{_template(initdb, run_as)}/.", str(datadir)], run_as),
                   check=True, capture_output=True, cwd="/")
    opts = f"-c listen_addresses='' -k {sockdir} -p {port} -c fsync=off"
    opts += "".join(f" -c {key}={value}" for key, value in (settings or {}).items())
    subprocess.run(
        _as_user([pg_ctl, "-D", str(datadir), "-o", opts, "-l", str(base / "log"), "-w", "start"], run_as),
        check=True, capture_output=True, cwd="/",
    )
    return Cluster(datadir, sockdir, port, run_as)


def restart(cluster: Cluster) -> None:
    """Restart the server with the options it was started with (pg_ctl keeps them in postmaster.opts)."""
    pg_ctl = find_pg_bin("pg_ctl")
    assert pg_ctl
    subprocess.run(_as_user([pg_ctl, "-D", str(cluster.datadir), "-l", str(cluster.datadir.parent / "log"), "-m", "fast", "-w",
                             "restart"], cluster.run_as),
                   check=True, capture_output=True, cwd="/")


def stop(cluster: Cluster) -> None:
    pg_ctl = find_pg_bin("pg_ctl")
    if pg_ctl:
        subprocess.run(
            _as_user([pg_ctl, "-D", str(cluster.datadir), "-m", "immediate", "stop"], cluster.run_as),
            capture_output=True, check=False, cwd="/",
        )
    shutil.rmtree(cluster.datadir.parent, ignore_errors=True)
