"""The one-file collector (Python 2.7/3.6, stdlib only) reads and redacts exactly as ``collect`` does.

Checked without old interpreters: vermin proves it needs nothing newer than 2.7 and 3.6, and running
it under this Python against fake roots (the fixture sosreport trees, with fake commands printing their
sos_commands outputs) gives the same snapshot as ``foretune collect --root`` on the same root. Where
the machine has Python 2.7 or 3.6 (pyenv), the same comparison runs on them too.
"""

from __future__ import annotations

import ast
import gzip
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foretune.facts import read_source
from foretune.facts.collector import spec_table
from foretune.facts.serialize import facts_to_dict
from foretune.host.redact import redact_text
from foretune.host.sources.sosreport import SosreportDirectory
from foretune.host.specs import SPECS
from foretune.logs.ship import since_epoch
from tests.conftest import run_cli
from tests.facts.archive import FIXTURES
from tests.support import oldpython
from tests.support.pgcluster import Cluster

TREES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Collect and compare in UTC, the collector processes too (fake_commands): wall-clock windows never cross a
    daylight-saving change."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("collector") / "foretune-collect.py"
    result = run_cli("collector")
    assert result.status == 0 and result.stderr == ""
    path.write_text(result.stdout, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def module(script: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("foretune_collect", script)
    assert spec and spec.loader
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def test_collector_needs_nothing_newer_than_python_2_7_and_3_6(script: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())", "-t=2.7-", "-t=3.6-",
                           "--violations", "--no-tips", str(script)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    ast.parse(script.read_text(encoding="utf-8"), feature_version=(3, 6))
    imports = {node.names[0].name.split(".")[0] for node in ast.walk(ast.parse(script.read_text(encoding="utf-8")))
               if isinstance(node, ast.Import)}
    assert imports <= set(sys.stdlib_module_names), imports - set(sys.stdlib_module_names)
    assert not [n for n in ast.walk(ast.parse(script.read_text(encoding="utf-8"))) if isinstance(n, ast.ImportFrom)]


def test_collector_reads_collects_specs_and_redacts_with_foretunes_code(module: ModuleType, script: Path) -> None:
    from foretune.facts.extract import live_sql
    from foretune.facts.extract.platform import UNIT_PREFIXES
    from foretune.facts.portable import portable
    from foretune.host import redact

    assert spec_table() == module.SPECS
    assert [s["name"] for s in module.SPECS] == [s.name for s in SPECS if s.collect]
    assert "process_limits" not in [s["name"] for s in module.SPECS]  # read per service by MainPID instead
    assert module.UNIT_PREFIXES == UNIT_PREFIXES
    assert list(live_sql.QUERIES.items()) == module.QUERIES
    # the redaction is foretune.host.redact itself, rewritten for Python 2.7/3.6, not a copy kept by hand
    embedded = portable(Path(redact.__file__).read_text(encoding="utf-8"))
    assert embedded in script.read_text(encoding="utf-8")
    assert module.REDACTED == redact.REDACTED
    assert "redact_text" in embedded and "def _head(" in embedded


def _corpus() -> list[str]:
    texts = [p.read_text(encoding="utf-8", errors="replace") for tree in TREES
             for p in sorted((FIXTURES / tree).rglob("*")) if p.is_file() and p.stat().st_size < 200_000]
    return [*texts, 'password: "hunter2"\nSECRET_KEY = "abc"\npool: 5\n  "PASSWORD": "pw",', 'keystorePass="s" port="1"',
            "jpa.config.hibernate.connection.password=Rm4k", "url=x?token=abc&b=1", "foreman::db_password: x\n",
            "token: |\n  abc\n  def\nnext: 1", "url: postgres://foreman:s3cr3t@db.example.com/foreman",
            "key: ''\n" + "x" * 70000 + " password=1\n", "Environment=FOO=1 \"DB_PASSWORD=x y\"\n"]


def test_collector_redacts_every_fixture_file_like_foretune(module: ModuleType) -> None:
    corpus = _corpus()
    assert len(corpus) > 100
    changed = 0
    for text in corpus:
        assert module.redact_text(text) == redact_text(text)
        changed += redact_text(text) != text
    assert changed >= 10  # the corpus does contain secrets


NAMES = st.sampled_from(["password", "db_password", "foreman::oauth_consumer_secret", "api_key", "key", "monkey",
                         "pool", "keystorePass", "token", "passphrase", "bypass", "SECRET", "user"])


@settings(max_examples=300, deadline=None)
@given(name=NAMES, sep=st.sampled_from([": ", "=", " = ", ":"]), value=st.text(min_size=0, max_size=12),
       prefix=st.sampled_from(["", "  ", "export ", '"', "- "]), attr=st.booleans())
def test_collector_redaction_equals_foretunes_on_generated_lines(module: ModuleType, name: str, sep: str, value: str,
                                                                 prefix: str, attr: bool) -> None:
    line = f'<x {name}="{value}" a="1"/>' if attr else f"{prefix}{name}{sep}{value}"
    assert module.redact_text(line) == redact_text(line)


@pytest.mark.parametrize("tree", [t for t in TREES if (FIXTURES / t / "etc/foreman/database.yml").exists()])
def test_collector_reads_database_yml_as_foretune_does(module: ModuleType, tree: str) -> None:
    from foretune.facts.parsers.yamlfile import parse_yaml

    text = (FIXTURES / tree / "etc/foreman/database.yml").read_text(encoding="utf-8")
    parsed = parse_yaml(text)
    assert parsed is not None
    assert module.production_settings(text) == {k: str(v) for k, v in parsed["production"].items()}
    assert module.production_settings("development:\n  host: x\n") == {}


def fake_commands(tree: Path, folder: Path) -> dict[str, str]:
    """Scripts for every spec command that print what the sosreport recorded for it; PATH holds only them."""
    folder.mkdir()
    sos = SosreportDirectory(tree)
    outputs: dict[str, dict[str, str]] = {}
    for spec in SPECS:
        if spec.commands and spec.collect and not spec.glob:
            raw = sos.read(spec)
            if raw is not None:
                argv = spec.commands[0]
                outputs.setdefault(argv[0], {})[json.dumps(list(argv[1:]))] = raw.text
    psql = shutil.which("psql")
    assert psql, "psql is required (apt-get install postgresql-client)"
    (folder / "psql").symlink_to(psql)  # the real one: both sides read the same database
    for name, table in outputs.items():
        script = folder / name
        script.write_text(f"#!{sys.executable}\nimport json, sys\ntable = {table!r}\n"
                          "key = json.dumps(sys.argv[1:])\n"
                          "if key not in table:\n    sys.stderr.write('no such recording\\n'); sys.exit(1)\n"
                          "sys.stdout.write(table[key])\n", encoding="utf-8")
        script.chmod(0o755)
    return {"PATH": str(folder), "LANG": "C.UTF-8", "TZ": "UTC"}


def _load(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    return json.loads(gzip.decompress(data) if path.name.endswith(".gz") else data)


MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
SECRET = "Zq7Rw3Lx9Pk2"


def with_logs(tree: str, tmp_path: Path) -> Path:
    """A copy of a fixture tree with the last hours' logs (a 503 burst, OOM kills, PostgreSQL out of slots, one gzipped),
    a secret in a syslog line, and a rotated access log last written ten days ago (older than the week read)."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / tree, root, symlinks=True)
    # the fixture's own logs were last written when its sosreport was taken, as they would be on that host
    taken = time.mktime(time.strptime(" ".join((root / "date").read_text().split()[1:4] + (root / "date").read_text().split()[5:6]),
                                      "%b %d %H:%M:%S %Y"))
    for old_log in (root / "var" / "log").rglob("*") if (root / "var" / "log").is_dir() else ():
        if old_log.is_file():
            os.utime(old_log, (taken, taken))
    when = time.localtime(time.time() - 3600)
    month, clock = MONTHS[when.tm_mon - 1], time.strftime("%H:%M:%S", when)
    apache = time.strftime("%d/", when) + month + time.strftime("/%Y:%H:%M:%S %z", when)
    old = time.localtime(time.time() - 10 * 86400)
    old_apache = time.strftime("%d/", old) + MONTHS[old.tm_mon - 1] + time.strftime("/%Y:%H:%M:%S %z", old)
    logs = {
        "var/log/httpd/foreman-ssl_access_ssl.log": "".join(
            f'10.0.0.{i} - - [{apache}] "GET /api/v2/hosts HTTP/1.1" 503 299 "-" "curl/7.61.1"\n' for i in range(12)),
        "var/log/httpd/foreman-ssl_access_ssl.log-20200101": "".join(
            f'10.0.1.{i} - - [{old_apache}] "GET /api/v2/hosts HTTP/1.1" 503 299 "-" "curl/7.61.1"\n' for i in range(30)),
        "var/log/messages": f"{month} {when.tm_mday:>2} {clock} sat kernel: Out of memory: Killed process 4242 (java) "
                            f"total-vm:8000000kB\n{month} {when.tm_mday:>2} {clock} sat app: retry password={SECRET}\n",
        "var/lib/pgsql/data/log/postgresql-Mon.log":
            time.strftime("%Y-%m-%d %H:%M:%S", when) + " UTC FATAL:  sorry, too many clients already\n",
    }
    for rel, text in logs.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    earlier = time.localtime(time.time() - 7200)  # yesterday's rotation, compressed
    (root / "var/log/messages-20261122.gz").write_bytes(gzip.compress(
        f"{MONTHS[earlier.tm_mon - 1]} {earlier.tm_mday:>2} {time.strftime('%H:%M:%S', earlier)} sat kernel: Out of memory: "
        "Killed process 977 (ruby) total-vm:4000000kB\n".encode()))
    stale = time.time() - 10 * 86400
    os.utime(root / "var/log/httpd/foreman-ssl_access_ssl.log-20200101", (stale, stale))
    return root


@pytest.mark.parametrize("tree", TREES)
def test_collector_writes_the_snapshot_collect_writes(tree: str, script: Path, tmp_path: Path) -> None:
    root = with_logs(tree, tmp_path)
    environ = fake_commands(root, tmp_path / "bin")
    ours = tmp_path / "collect.json"
    result = run_cli("collect", "--root", str(root), "--output", str(ours), environ=environ)
    assert result.status == 0, result.stderr
    theirs = tmp_path / "collector.json.gz"
    done = subprocess.run([sys.executable, "-I", str(script), "--root", str(root), "--output", str(theirs)],
                          env=environ, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"foretune-collect: snapshot written to {theirs}" in done.stderr and done.stdout == ""
    a, b = _load(ours), _load(theirs)
    assert "facts" in a and "facts" not in b
    assert b["raw"] == a["raw"]  # the same files and command outputs, redacted the same way
    assert len(a["raw"]) >= 15
    assert any(" " in location for location in a["raw"])  # command outputs are in it too
    assert b["unread"] == a["unread"]
    assert a["unread"]["sos_date"] == "not available on a live host"
    assert set(b["problems"]) <= set(a["problems"])
    assert b["format"] == a["format"] and b["format_version"] == a["format_version"]
    assert {k: v for k, v in b["metadata"].items() if k not in ("time", "collected_by")} == \
        {k: v for k, v in a["metadata"].items() if k != "time"}
    # where /etc/hosts gives this machine's name on the 127.0.0.1 line after "localhost", the name is not "localhost"
    assert not a["metadata"]["host"].startswith("localhost") or socket.gethostname().startswith("localhost")
    # read back: the same facts, values and provenance, whichever wrote the snapshot
    fa, fb = facts_to_dict(read_source(str(ours))), facts_to_dict(read_source(str(theirs)))
    # (collected_at is each snapshot's own time, seconds apart: compared to the minute)
    known_a = {n: e for n, e in fa["facts"].items() if not e.get("unknown") and n != "collected_at"}
    known_b = {n: e for n, e in fb["facts"].items() if not e.get("unknown") and n != "collected_at"}
    assert known_b == known_a
    assert fa["facts"]["collected_at"]["provenance"][0]["location"] == fb["facts"]["collected_at"]["provenance"][0]["location"] == "metadata.time"
    assert len(known_a) >= 15
    assert set(fb["facts"]) == set(fa["facts"])
    # the last week's logs: the same files and texts, the rotated one from ten days ago left out
    assert {k: v for k, v in b["logs"].items() if k != "since"} == {k: v for k, v in a["logs"].items() if k != "since"}
    # both windows start a week before their collection, seconds apart
    assert b["logs"]["days"] == 7 and abs(since_epoch(b["logs"]["since"]) - since_epoch(a["logs"]["since"])) < 120
    assert abs(since_epoch(b["logs"]["since"]) - (time.time() - 7 * 86400)) < 300  # in UTC (the utc fixture)
    assert sorted(f for f in b["logs"]["files"] if f.startswith("/var/")) == [
        "/var/lib/pgsql/data/log/postgresql-Mon.log", "/var/log/httpd/foreman-ssl_access_ssl.log", "/var/log/messages",
        "/var/log/messages-20261122.gz"]
    assert SECRET not in json.dumps(a) and SECRET not in json.dumps(b)
    assert "retry password=" in b["logs"]["files"]["/var/log/messages"]
    incidents = known_b["log_incidents"]["value"]
    assert incidents == known_a["log_incidents"]["value"]
    # a tree that carries the kernel's ring buffer (capsule-6.15-measured-failure: a pulpcore-worker OOM kill) adds it
    dmesg = [("oom_kill", "pulpcore", "sos_commands/kernel/dmesg", 1)] if (root / "sos_commands/kernel/dmesg").exists() else []
    assert [(i["kind"], i["service"], i["path"], i["count"]) for i in incidents] == [
        ("http_503_burst", "httpd", "var/log/httpd/foreman-ssl_access_ssl.log", 12),
        ("oom_kill", "java", "var/log/messages", 1), *dmesg, ("oom_kill", "ruby", "var/log/messages-20261122.gz", 1),
        ("pg_connection_exhaustion", "postgresql", "var/lib/pgsql/data/log/postgresql-Mon.log", 1)]


@pytest.mark.parametrize("version", ["2.7", "3.6"])
def test_collector_runs_on_the_old_pythons_themselves(version: str, script: Path, tmp_path: Path) -> None:
    """Where this machine has Python 2.7 or 3.6 (e.g. through pyenv), the collector runs on it and writes what collect writes."""
    python = oldpython.find(version)
    if python is None:
        pytest.skip(f"no python{version} on this machine; vermin's check above still holds")
    for tree in TREES:
        root = with_logs(tree, tmp_path / tree)
        environ = fake_commands(root, tmp_path / f"bin-{tree}")
        ours, theirs = tmp_path / f"{tree}-collect.json", tmp_path / f"{tree}-collector.json.gz"
        assert run_cli("collect", "--root", str(root), "--output", str(ours), environ=environ).status == 0
        done = subprocess.run([python, str(script), "--root", str(root), "--output", str(theirs)], env=environ,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        a, b = _load(ours), _load(theirs)
        assert b["raw"] == a["raw"], tree
        assert b["unread"] == a["unread"], tree
        assert b["metadata"]["collected_by"] == f"foretune-collect.py (Python {version})"
        assert b["metadata"]["host"] == a["metadata"]["host"], tree
        assert {k: v for k, v in b["logs"].items() if k != "since"} == {k: v for k, v in a["logs"].items() if k != "since"}
        assert "/var/log/messages-20261122.gz" in b["logs"]["files"], tree
        # (collected_at: each snapshot's own time, seconds apart)
        known = {n: e for n, e in facts_to_dict(read_source(str(theirs)))["facts"].items() if not e.get("unknown") and n != "collected_at"}
        assert known == {n: e for n, e in facts_to_dict(read_source(str(ours)))["facts"].items()
                         if not e.get("unknown") and n != "collected_at"}


def test_collector_snapshot_feeds_facts_plan_audit_and_logs(script: Path, tmp_path: Path) -> None:
    root = with_logs("satellite-6.15", tmp_path)
    environ = fake_commands(root, tmp_path / "bin")
    snapshot = tmp_path / "sat.json"
    subprocess.run([sys.executable, "-I", str(script), "--root", str(root), "-o", str(snapshot)], env=environ,
                   capture_output=True, text=True, check=True)
    facts = run_cli("facts", str(snapshot), "--format", "json")
    assert facts.status == 0, facts.stderr
    data = json.loads(facts.stdout)
    assert data["source"]["kind"] == "snapshot"
    assert data["facts"]["product"]["value"] == "satellite" and data["facts"]["product_version"]["value"] == "6.15.3"
    plan = run_cli("plan", "--from", str(snapshot), "--hosts", "8000", "--format", "json")
    assert plan.status == 0, plan.stderr
    assert json.loads(plan.stdout)["input"]["version"] == "6.15.3"
    audit = run_cli("audit", str(snapshot), "--hosts", "8000", "--format", "json")
    assert audit.status == 1, audit.stderr  # the 503 burst in the access log (below) is a high finding
    findings = {f["rule"]: f for f in json.loads(audit.stdout)["findings"]}
    burst = findings["http-503-burst"]  # from the logs the snapshot carries
    assert burst["status"] == "fail" and burst["evidence"][0]["location"] == "var/log/httpd/foreman-ssl_access_ssl.log"
    assert "12 times," in burst["message"]  # the count and span in the message, the excerpt the line as logged
    assert burst["evidence"][0]["excerpt"].startswith("10.0.0.") and '" 503 299 ' in burst["evidence"][0]["excerpt"]
    logs = run_cli("logs", str(snapshot), "--format", "json")
    assert logs.status == 0, logs.stderr
    report = json.loads(logs.stdout)
    assert [f for f in report["files"] if f.startswith("var/")] == [
        "var/lib/pgsql/data/log/postgresql-Mon.log", "var/log/httpd/foreman-ssl_access_ssl.log", "var/log/messages",
        "var/log/messages-20261122.gz"]
    assert report["apache_access"][0]["status"]["503"] == 12
    # the threads in force: the running server's 24 workers x 5 threads (pumactl stats; systemctl show says 5 too), not
    # the 16 of override.conf, which systemd has not loaded
    assert (report["capacity"]["puma"], report["capacity"]["from"]) == (24 * 5, "pumactl stats (workers x max_threads)")
    for secret in (SECRET, "Vq8mXr2LpT6sKn4z", "Kt2Wm9cQ4xYp7LnR3sV8bJ6dF1gH5zNa"):
        assert secret not in snapshot.read_text(encoding="utf-8")


def test_collector_bad_output_name_is_one_line(script: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-I", str(script), "--output", str(tmp_path / "x.txt")], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "must end in .json" in done.stderr
    written = tmp_path / "c.py"
    assert run_cli("collector", "--output", str(written)).status == 0
    assert written.read_text(encoding="utf-8") == script.read_text(encoding="utf-8")



def test_collector_snapshot_holds_postgresql_conf_d(script: Path, tmp_path: Path) -> None:
    # PostgreSQL manual: include_dir 'conf.d' is read where it stands, relative to postgresql.conf's directory
    root = tmp_path / "root"
    (root / "var/lib/pgsql/data/conf.d").mkdir(parents=True)
    (root / "var/lib/pgsql/data/postgresql.conf").write_text("shared_buffers = 128MB\ninclude_dir 'conf.d'\n")
    (root / "var/lib/pgsql/data/conf.d/tuning.conf").write_text("shared_buffers = 4GB\n")
    snapshot = tmp_path / "collector.json"
    done = subprocess.run([sys.executable, "-I", str(script), "--root", str(root), "--output", str(snapshot)],
                          env={"PATH": str(tmp_path / "no-commands"), "LANG": "C.UTF-8"}, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "/var/lib/pgsql/data/conf.d/tuning.conf" in _load(snapshot)["raw"]
    assert read_source(str(snapshot)).value("postgresql") == {"shared_buffers": "4GB"}


FOREMAN_SQL = (
    "CREATE TABLE hosts (id serial PRIMARY KEY, type text);"
    "INSERT INTO hosts (type) SELECT CASE WHEN g % 10 = 0 THEN 'Host::Discovered' ELSE 'Host::Managed' END"
    " FROM generate_series(1, 250) g;"
    "CREATE TABLE foreman_tasks_tasks (id serial PRIMARY KEY, state text, started_at timestamp);"
    "INSERT INTO foreman_tasks_tasks (state, started_at) VALUES ('paused', now() - interval '40 days'),"
    " ('paused', now()), ('running', now()), ('stopped', now());"
    "CREATE TABLE fact_values (id serial PRIMARY KEY, host_id int);"
    "INSERT INTO fact_values (host_id) SELECT g % 7 FROM generate_series(1, 700) g;"
)


@pytest.mark.needs_postgres
def test_collector_reads_the_database_as_collect_does(pg_cluster: Cluster, script: Path, tmp_path: Path) -> None:
    from foretune.pg import Connection, query

    admin = Connection(pg_cluster.conninfo + " dbname=postgres")
    query(admin, "DROP DATABASE IF EXISTS foreman")
    query(admin, "CREATE DATABASE foreman")
    try:
        query(Connection(pg_cluster.conninfo + " dbname=foreman"), FOREMAN_SQL)
        _compare_database_reads(pg_cluster, script, tmp_path)
    finally:
        query(admin, "DROP DATABASE IF EXISTS foreman")  # other tests expect the cluster without it


def _compare_database_reads(pg_cluster: Cluster, script: Path, tmp_path: Path) -> None:
    _database_yml_reads(pg_cluster, script, tmp_path)
    root = FIXTURES / "satellite-6.15"
    environ = {**fake_commands(root, tmp_path / "bin"), "FORETUNE_PG_CONNINFO": pg_cluster.conninfo}
    ours, theirs = tmp_path / "collect.json", tmp_path / "collector.json"
    assert run_cli("collect", "--root", str(root), "-o", str(ours), environ=environ).status == 0
    subprocess.run([sys.executable, "-I", str(script), "--root", str(root), "-o", str(theirs)], env=environ,
                   capture_output=True, text=True, check=True)
    a, b = _load(ours), _load(theirs)
    queries = sorted(k for k in a["raw"] if k.startswith("psql (FORETUNE_PG_CONNINFO): "))
    assert len(queries) == 5
    assert {k: b["raw"][k] for k in queries if k in b["raw"]} == {k: a["raw"][k] for k in queries}
    # hand-counted from FOREMAN_SQL: 225 of 250 hosts are managed, 2 paused (1 older than 30 days), 1 running,
    # 100 facts for each of the 7 hosts
    where = "psql (FORETUNE_PG_CONNINFO): "
    assert b["raw"][where + "SELECT count(*) FROM hosts WHERE type = 'Host::Managed'"] == "225\n"
    facts = read_source(str(theirs))
    assert facts.value("tasks") == {"paused": 2, "old_paused": 1, "running": 1}
    assert facts.value("max_facts_per_host") == 100
    assert facts.value("postgresql")["fsync"] == "off"  # the test cluster runs with -c fsync=off
    assert facts["max_facts_per_host"].provenance[0].location == where + "fact_values per host"
    shown, live = facts_to_dict(facts)["facts"], facts_to_dict(read_source(str(ours)))["facts"]  # as output shows them
    for name in ("managed_hosts", "tasks", "max_facts_per_host", "postgresql", "postgresql_connections"):
        assert shown[name] == live[name], name


def _database_yml_reads(pg_cluster: Cluster, script: Path, tmp_path: Path) -> None:
    """Without FORETUNE_PG_CONNINFO both connect as /etc/foreman/database.yml says (quoted password and all)."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURES / "satellite-6.15", root, symlinks=True)
    (root / "etc/foreman/database.yml").write_text(
        f'production:\n  adapter: postgresql\n  host: "{pg_cluster.sockdir}"\n  port: {pg_cluster.port}\n'
        '  username: postgres\n  password: "Vq8mXr2LpT6sKn4z"\n  database: foreman\n', encoding="utf-8")
    environ = fake_commands(root, tmp_path / "yml-bin")
    ours, theirs = tmp_path / "yml-collect.json", tmp_path / "yml-collector.json"
    assert run_cli("collect", "--root", str(root), "-o", str(ours), environ=environ).status == 0
    subprocess.run([sys.executable, "-I", str(script), "--root", str(root), "-o", str(theirs)], env=environ,
                   capture_output=True, text=True, check=True)
    a, b = _load(ours), _load(theirs)
    where = "psql (/etc/foreman/database.yml): "
    queries = sorted(k for k in a["raw"] if k.startswith(where))
    assert len(queries) == 5
    assert {k: b["raw"].get(k) for k in queries} == {k: a["raw"][k] for k in queries}
    assert b["raw"][where + "SELECT count(*) FROM hosts WHERE type = 'Host::Managed'"] == "225\n"
    assert "Vq8mXr2LpT6sKn4z" not in json.dumps(b)


def test_collector_and_collect_cap_the_logs_alike(module: ModuleType, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Newest files first up to the byte cap; an older file that would pass it is left out with a problem line."""
    from foretune.logs import ship

    root = tmp_path / "root"
    (root / "var/log/foreman").mkdir(parents=True)
    now = time.time()
    for name, age, size in (("production.log", 60, 600), ("production.log-20261101", 3600, 600),
                            ("production.log-20261102", 7200, 300)):
        (root / "var/log/foreman" / name).write_text("x" * (size - 1) + "\n", encoding="utf-8")
        os.utime(root / "var/log/foreman" / name, (now - age, now - age))
    import foretune.knowledge  # ship() reads the cap through it at call time

    original = foretune.knowledge.threshold
    monkeypatch.setattr(foretune.knowledge, "threshold",
                        lambda key: 1000 if key == "logs_snapshot_max_bytes" else original(key))
    logs, problems = ship.ship(str(root), now=now)
    assert sorted(logs["files"]) == ["/var/log/foreman/production.log", "/var/log/foreman/production.log-20261102"]
    assert problems == ["/var/log/foreman/production.log-20261101: skipped: the snapshot carries at most 0 MiB of logs, "
                        "newest first"]
    monkeypatch.setattr(module, "LOG_MAX_BYTES", 1000)
    host = module.Host(str(root))
    theirs = module.collect_logs(host, now)
    assert theirs == logs and host.problems == problems
