"""Live reads on this machine (not a Foreman server), a real PostgreSQL and a real Redis."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foretune.facts import read_source
from tests.support.pgcluster import Cluster

pytestmark = pytest.mark.live


def _meminfo_total() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal")


def test_live_read_of_this_machine() -> None:
    facts = read_source(None, environ={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert facts.source_kind == "live"
    assert facts.value("ram_bytes") == _meminfo_total()
    assert facts.value("cpu_logical") == len(os.sched_getaffinity(0)) or facts.value("cpu_logical") == os.cpu_count()
    assert facts["ram_bytes"].provenance[0].location == "/proc/meminfo"
    # not a Foreman server: product facts are unknown, each with a reason
    for name in ("product", "installer_scenario", "puma", "foreman_db_pool", "managed_hosts"):
        assert not facts[name].known, name
        assert facts[name].unknown_reason, name
    assert "FORETUNE_PG_CONNINFO" in (facts["managed_hosts"].unknown_reason or "")
    mounts = facts.value("mounts")
    assert mounts is None or all("fstype" in m for m in mounts)


@pytest.mark.needs_postgres
def test_live_postgresql_settings_and_connections(pg_cluster: Cluster) -> None:
    environ = {"PATH": os.environ.get("PATH", ""), "FORETUNE_PG_CONNINFO": pg_cluster.conninfo}
    facts = read_source(None, environ=environ)
    settings = facts.value("postgresql")
    assert settings is not None, facts["postgresql"].unknown_reason
    from foretune.pg import Connection, query

    expected = query(Connection(pg_cluster.conninfo), "SHOW max_connections")[0][0]
    assert settings["max_connections"] == expected
    assert settings["fsync"] == "off"  # the test cluster runs with -c fsync=off
    assert facts.value("postgresql_connections") >= 1
    assert facts["postgresql"].provenance[0].location.startswith("psql (FORETUNE_PG_CONNINFO)")
    running = query(Connection(pg_cluster.conninfo), "SHOW server_version")[0][0]  # e.g. "15.10 (Debian 15.10-0+deb12u1)"
    assert facts.value("postgresql_version") == running.split()[0]  # the running server's, not a package's
    assert facts["postgresql_version"].provenance[0].excerpt == f"server_version = {running}"
    # the throwaway cluster has no foreman database: clear reason, no crash
    assert "foreman" in (facts["managed_hosts"].unknown_reason or "")


@pytest.fixture
def redis_socket(tmp_path: Path) -> Iterator[Path]:
    server = shutil.which("redis-server")
    assert server, "redis-server is required (apt-get install redis-server)"
    sock = tmp_path / "redis.sock"
    proc = subprocess.Popen([server, "--port", "0", "--unixsocket", str(sock), "--save", "", "--appendonly", "no",
                             "--maxmemory", "64mb", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if sock.exists():
                break
            time.sleep(0.05)
        assert sock.exists(), "redis-server did not start"
        yield sock
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_live_redis_info(redis_socket: Path) -> None:
    environ = {"PATH": os.environ.get("PATH", ""), "FORETUNE_REDIS_URL": f"unix://{redis_socket}"}
    facts = read_source(None, environ=environ)
    redis = facts.value("redis")
    assert redis is not None, facts["redis"].unknown_reason
    assert redis["maxmemory"] == 64 * 1024**2
    assert redis["used_memory"] > 0
    assert redis["version"] and redis["version"][0].isdigit()
    assert any(p.location.startswith("redis-cli -s") for p in facts["redis"].provenance)


NON_ROOT_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from foretune.facts.extract import extract
from foretune.host.sources.live import LiveHost
facts = extract(LiveHost(root=sys.argv[2]))
print(json.dumps({"pool": facts["foreman_db_pool"].unknown_reason, "problems": facts.problems,
                  "ram": facts.value("ram_bytes")}))
"""


def test_files_that_need_root_are_skipped_with_a_note() -> None:
    import json
    import tempfile

    from tests.conftest import REPO

    base = Path(tempfile.mkdtemp(prefix="foretune-nonroot-"))
    try:
        os.chmod(base, 0o755)
        (base / "etc/foreman").mkdir(parents=True)
        (base / "proc").mkdir()
        (base / "proc/meminfo").write_text("MemTotal: 2048 kB\n")
        secret = base / "etc/foreman/database.yml"
        secret.write_text("production:\n  pool: 9\n  password: s3cret\n")
        secret.chmod(0o600)
        for folder in (base / "etc", base / "etc/foreman", base / "proc"):
            folder.chmod(0o755)
        python = sys.executable
        if os.geteuid() == 0:  # drop to nobody; the system interpreter is readable by every user
            python = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else python
        argv = [python, "-c", NON_ROOT_SCRIPT, str(REPO / "src"), str(base)]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", "nobody", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd="/")
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["ram"] == 2048 * 1024
        assert result["pool"] == "/etc/foreman/database.yml: needs root"
        assert "/etc/foreman/database.yml: needs root, skipped" in result["problems"]
    finally:
        shutil.rmtree(base, ignore_errors=True)
