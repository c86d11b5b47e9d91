"""bench db and db-size against a real throwaway PostgreSQL cluster."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import jsonschema
import pytest

from foretune.bench import pgbench, pgclient, results
from foretune.errors import UsageError
from tests.conftest import run_cli
from tests.support import pgcluster

pytestmark = pytest.mark.needs_postgres


def _sql(cluster: pgcluster.Cluster, db: str, sql: str) -> list[str]:
    done = subprocess.run(["psql", "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", f"{cluster.conninfo} dbname={db}", "-c", sql],
                          capture_output=True, text=True, check=True)
    return done.stdout.split()


def _bench_dbs(cluster: pgcluster.Cluster) -> list[str]:
    return [n for n in _sql(cluster, "postgres", "SELECT datname FROM pg_database") if n.startswith("foretune_bench_")]


@pytest.fixture(scope="module")
def fake_foreman(pg_cluster: pgcluster.Cluster) -> pgcluster.Cluster:
    for db in ("foreman", "candlepin"):
        _sql(pg_cluster, "postgres", f"DROP DATABASE IF EXISTS {db}")
        _sql(pg_cluster, "postgres", f"CREATE DATABASE {db}")
    _sql(pg_cluster, "foreman",
         "CREATE TABLE fact_values (id bigserial PRIMARY KEY, host_id int, value text);"
         "CREATE INDEX ON fact_values (host_id);"
         "INSERT INTO fact_values (host_id, value) SELECT g % 500, md5(g::text) FROM generate_series(1, 40000) g;"
         "CREATE TABLE reports (id serial PRIMARY KEY, body text);"
         "ALTER TABLE reports ALTER COLUMN body SET STORAGE EXTERNAL;"
         "INSERT INTO reports (body) SELECT string_agg(md5(g::text || r::text), '') FROM generate_series(1, 200) g,"
         " generate_series(1, 50) r GROUP BY r;"
         "CREATE TABLE settings (name text);")
    _sql(pg_cluster, "candlepin", "CREATE TABLE cp_pool (id int); INSERT INTO cp_pool SELECT generate_series(1, 1000);")
    return pg_cluster


def test_db_bench_reports_tps_and_latency_and_drops_its_database(pg_cluster: pgcluster.Cluster, tmp_path: Path) -> None:
    out = tmp_path / "db.json"
    result = run_cli("bench", "db", "--dsn", pg_cluster.conninfo, "--scale", "1", "--clients", "1,2", "--time", "1",
                     "--output", str(out))
    assert result.status == 0, result.stderr
    doc = results.load(out)
    jsonschema.validate(doc, results.schema())
    assert doc["kind"] == "db" and doc["tool_version"].startswith("pgbench")
    assert [(r["test"], r["clients"]) for r in doc["results"]] == [
        ("read-write", 1), ("read-write", 2), ("read-only", 1), ("read-only", 2)]
    for item in doc["results"]:
        assert item["tps"] > 0 and item["lat_avg_ms"] > 0
        assert item["lat_p95_ms"] >= 0 and item["lat_p95_ms"] < 10_000
    assert "read-only" in result.stdout and "TPS" in result.stdout
    assert _bench_dbs(pg_cluster) == []


def test_db_bench_drops_its_database_when_pgbench_fails(pg_cluster: pgcluster.Cluster, tmp_path: Path) -> None:
    real = pgclient.program("pgbench", pgclient.resolve(pg_cluster.conninfo, {}), "")
    seen = tmp_path / "seen"
    fake = tmp_path / "bin" / "pgbench"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        f'for a in "$@"; do case "$a" in -i|--version) exec {real} "$@";; esac; done\n'
        f'for a in "$@"; do last="$a"; done; echo "$last" > {seen}\n'
        'echo "pgbench: error: connection to server lost (simulated)" >&2\nexit 1\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    result = run_cli("bench", "db", "--dsn", pg_cluster.conninfo, "--scale", "1", "--clients", "1", "--time", "1",
                     environ={"PATH": f"{fake.parent}:/usr/bin:/bin"})
    assert result.status == 2
    assert "pgbench read-write with 1 clients failed: pgbench: error: connection to server lost (simulated)" in result.stderr
    assert "Traceback" not in result.stderr
    assert "dbname=foretune_bench_" in seen.read_text()  # pgbench ran against the temporary database
    assert _bench_dbs(pg_cluster) == []


def test_only_random_foretune_names_are_accepted() -> None:
    assert pgbench.check_name("foretune_bench_0123abcd") == "foretune_bench_0123abcd"
    for name in ("foreman", "candlepin", "pulpcore", "FOREMAN", "postgres", "foretune_bench_", "foretune_bench_x; drop"):
        with pytest.raises(UsageError, match="refusing to benchmark"):
            pgbench.check_name(name)
    assert pgbench.temp_name() != pgbench.temp_name()


def test_dsn_dbname_never_becomes_the_benchmark_database(pg_cluster: pgcluster.Cluster, fake_foreman: pgcluster.Cluster) -> None:
    before = _sql(pg_cluster, "foreman", "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'")
    result = run_cli("bench", "db", "--dsn", f"{pg_cluster.conninfo} dbname=foreman", "--scale", "1", "--clients", "1",
                     "--time", "1", "--json")
    assert result.status == 0, result.stderr
    assert _sql(pg_cluster, "foreman", "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'") == before == ["0"]
    assert _bench_dbs(pg_cluster) == []


def test_long_db_run_without_terminal_needs_yes(pg_cluster: pgcluster.Cluster) -> None:
    result = run_cli("bench", "db", "--dsn", pg_cluster.conninfo, "--clients", "1,2,4", "--time", "100")
    assert result.status == 2 and "rerun with --yes" in result.stderr
    assert _bench_dbs(pg_cluster) == []


def test_missing_pgbench_names_the_packages(tmp_path: Path) -> None:
    from foretune.errors import InputError

    # PATH and the versioned bin directories are searched; a name found in neither gives the hint
    target = pgclient.resolve("host=/nonexistent", {"PATH": str(tmp_path)})
    with pytest.raises(InputError) as info:
        pgclient.program("pgbench-missing", target, pgbench.INSTALL_HINT)
    assert str(info.value) == ("pgbench-missing not found: install it (RHEL: dnf install postgresql-contrib; "
                               "Debian/Ubuntu: apt-get install postgresql-contrib)")


def test_db_size_lists_the_largest_tables(fake_foreman: pgcluster.Cluster) -> None:
    result = run_cli("db-size", "--dsn", fake_foreman.conninfo, "--json")
    assert result.status == 0, result.stderr
    doc = json.loads(result.stdout)
    names = [db["name"] for db in doc["databases"]]
    assert names == ["foreman", "candlepin"] and doc["missing"] == ["pulpcore"]
    foreman = doc["databases"][0]
    tables = [t["table"] for t in foreman["tables"]]
    assert tables[:2] == ["public.fact_values", "public.reports"] or tables[:2] == ["public.reports", "public.fact_values"]
    by_name = {t["table"]: t for t in foreman["tables"]}
    facts, reports = by_name["public.fact_values"], by_name["public.reports"]
    assert facts["index_bytes"] > 0 and facts["table_bytes"] > 0
    assert reports["toast_bytes"] > 0  # 50 rows of 6400-character uncompressed values live in TOAST
    for t in foreman["tables"]:
        assert t["total_bytes"] == t["index_bytes"] + t["toast_bytes"] + t["table_bytes"]
    sizes = [t["total_bytes"] for t in foreman["tables"]]
    assert sizes == sorted(sizes, reverse=True)
    data = doc["data_directory"]
    assert data["path"] == str(fake_foreman.datadir)
    assert data["size_bytes"] > foreman["size_bytes"]
    assert {"base", "global"} <= {e["name"] for e in data["entries"]}


def test_db_size_text_and_limit(fake_foreman: pgcluster.Cluster) -> None:
    result = run_cli("db-size", "--dsn", fake_foreman.conninfo, "--limit", "1", "-d", "foreman")
    assert result.status == 0, result.stderr
    assert "foreman:" in result.stdout and "candlepin" not in result.stdout
    table_lines = [ln for ln in result.stdout.splitlines() if ln.startswith("  public.")]
    assert len(table_lines) == 1
    assert f"data directory {fake_foreman.datadir}" in result.stdout


def test_db_size_is_read_only(fake_foreman: pgcluster.Cluster) -> None:
    target = pgclient.resolve(fake_foreman.conninfo, {})
    from foretune.errors import InputError

    with pytest.raises(InputError, match="read-only transaction"):
        pgclient.psql(target, "foreman", "CREATE TABLE should_not_exist (x int)")


def test_db_size_without_any_foreman_database(pg_cluster: pgcluster.Cluster) -> None:
    result = run_cli("db-size", "--dsn", pg_cluster.conninfo, "-d", "nope")
    assert result.status == 2
    assert result.stderr.startswith("foretune: error: none of nope exists on ")


def test_unreachable_server_is_one_line(tmp_path: Path) -> None:
    result = run_cli("db-size", "--dsn", f"host={tmp_path} port=1")
    assert result.status == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("foretune: error: PostgreSQL")


def test_other_secrets_of_the_dsn_stay_out_of_messages(pg_cluster: pgcluster.Cluster, tmp_path: Path) -> None:
    # sslpassword (the client key's passphrase) is a libpq parameter like password
    unreachable = run_cli("db-size", "--dsn", f"host={tmp_path} port=1 sslpassword=k3y-s3cret")
    assert unreachable.status == 2 and "k3y-s3cret" not in unreachable.stderr
    assert unreachable.stderr.startswith(f"foretune: error: PostgreSQL (host={tmp_path} port=1 sslpassword=[redacted]): ")
    missing = run_cli("db-size", "--dsn", f"{pg_cluster.conninfo} sslpassword=k3y-s3cret", "-d", "nope")
    assert missing.status == 2
    assert missing.stderr == f"foretune: error: none of nope exists on {pg_cluster.conninfo} sslpassword=[redacted]\n"


def test_uri_dsn_password_stays_out_of_argv_and_output() -> None:
    conninfo, password, dbname = pgclient.split_dsn("postgresql://u:p%40ss@h:5432/foreman")
    assert (conninfo, password, dbname) == ("host=h port=5432 user=u", "p@ss", "foreman")
    target = pgclient.resolve("postgresql://u:p%40ss@h:5432/foreman", {})
    assert "p@ss" not in " ".join(target.argv("psql", "-d", target.dsn("x")))
    assert target.child_env()["PGPASSWORD"] == "p@ss"
    assert "p@ss" not in target.describe()


def test_default_target_is_the_local_socket_as_postgres() -> None:
    import pwd

    target = pgclient.resolve(None, {})
    try:
        pwd.getpwnam("postgres")
        has_postgres = True
    except KeyError:
        has_postgres = False
    if os.geteuid() == 0 and has_postgres:
        assert (target.run_as, target.conninfo) == ("postgres", "")
        argv = target.argv("psql", "-c", "x")
        assert argv[0].endswith("/runuser") and argv[1:4] == ["-u", "postgres", "--"]
    else:
        assert (target.run_as, target.conninfo) == (None, "user=postgres")
    from_env = pgclient.resolve(None, {"PGHOST": "/run/postgresql", "PGDATABASE": "maint"})
    assert (from_env.run_as, from_env.conninfo, from_env.default_db) == (None, "", "maint")


def test_run_as_postgres_reaches_the_server(pg_cluster: pgcluster.Cluster, fake_foreman: pgcluster.Cluster) -> None:
    from foretune.bench import dbsize

    user = pg_cluster.run_as or pwd_name()
    target = pgclient.Target(f"host={pg_cluster.sockdir} port={pg_cluster.port}", None, user, "postgres", {})
    doc = dbsize.report(target, ["foreman"], 3)
    assert [db["name"] for db in doc["databases"]] == ["foreman"]
    assert len(doc["databases"][0]["tables"]) == 3
    # pgbench as that user too: its per-transaction log directory must be writable for it
    runs = pgbench.benchmark(target, scale=1, clients=[1], seconds=1)
    assert [r.test for r in runs] == ["read-write", "read-only"]
    assert all(r.tps and r.lat_p95_ms is not None for r in runs)
    assert _bench_dbs(pg_cluster) == []


def pwd_name() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


def test_ctrl_c_during_pgbench_drops_the_database(pg_cluster: pgcluster.Cluster) -> None:
    import signal
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "foretune", "bench", "db", "--dsn", pg_cluster.conninfo, "--scale", "1", "--clients", "1",
         "--time", "30", "--yes"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 30
    running = False
    while time.monotonic() < deadline and not running:
        names = _bench_dbs(pg_cluster)
        if names:
            active = _sql(pg_cluster, "postgres",
                          f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{names[0]}' AND application_name = 'pgbench'"
                          " AND query NOT LIKE 'copy%' AND query NOT LIKE 'vacuum%'")
            running = active != ["0"] and bool(_sql(pg_cluster, names[0], "SELECT count(*) FROM pgbench_history"))
        time.sleep(0.2)
    assert running, "pgbench never started"
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert _bench_dbs(pg_cluster) == []


def test_ctrl_c_during_create_database_drops_it(pg_cluster: pgcluster.Cluster) -> None:
    import signal
    import sys
    import time

    def creating() -> bool:
        return _sql(pg_cluster, "postgres", "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'CREATE DATABASE%'") != ["0"]

    # a session on template1 makes CREATE DATABASE wait (up to 5 s) for it to leave
    holder = subprocess.Popen(["psql", "-X", "-q", "-d", f"{pg_cluster.conninfo} dbname=template1", "-c", "SELECT pg_sleep(3)"],
                              stdout=subprocess.DEVNULL)
    proc = subprocess.Popen(
        [sys.executable, "-m", "foretune", "bench", "db", "--dsn", pg_cluster.conninfo, "--scale", "1", "--clients", "1",
         "--time", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not creating():
        time.sleep(0.05)
    assert creating(), "CREATE DATABASE never started"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    holder.wait(timeout=30)
    while creating():  # the server finishes CREATE DATABASE after the session on template1 leaves
        time.sleep(0.1)
    assert proc.returncode == 130, err
    assert err == "foretune: interrupted\n"
    assert _bench_dbs(pg_cluster) == []


def test_db_bench_draws_its_progress_with_the_shared_bar_on_a_terminal(pg_cluster: pgcluster.Cluster) -> None:
    import io

    from foretune.cli import main
    from foretune.env import Environment

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = io.StringIO(), Terminal()
    status = main(["bench", "db", "--dsn", pg_cluster.conninfo, "--scale", "1", "--clients", "1", "--time", "1"],
                  Environment(stdout=out, stderr=err, environ={"NO_COLOR": "1"}))
    assert status == 0, err.getvalue()
    drawn = err.getvalue()
    # 1 initialisation + 2 tests x 1 client count = 3 steps; the bench storage bar's counter and ETA columns
    assert "1/3" in drawn and "initialising scale 1" in drawn and "3/3" in drawn and "read-only, 1 clients" in drawn
    assert "ETA" in drawn


@pytest.mark.parametrize("argv", [["bench", "db", "--clients", "99999999999999"], ["bench", "db", "--time", "99999999999999"],
                                  ["bench", "db", "--scale", "99999999999999"], ["db-size", "--limit", "99999999999999"]])
def test_implausible_counts_are_refused_in_one_line(argv: list[str]) -> None:
    result = run_cli(*argv)
    assert result.status == 2 and result.stderr.count("\n") == 1
    assert "99999999999999 is not plausible: at most 10000000" in result.stderr
