"""`foretune apply` and `verify` on copied fixture trees, and ALTER SYSTEM / SHOW on a real PostgreSQL.

Change sets are written here by hand (the records of foretune.changes.model); every expected file content,
state and exit status below is written by hand from the fixture's files, never computed by the code under test.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO, include_conf_d, run_cli
from tests.support import pgcluster

FIXTURE = REPO / "tests/fixtures/sosreports/satellite-6.15"
HIERA = "etc/foreman-installer/custom-hiera.yaml"
OVERRIDE = "etc/systemd/system/foreman.service.d/override.conf"
AUTO = "var/lib/pgsql/data/postgresql.auto.conf"
RUNS = "var/lib/foretune/runs"

CHANGES = {
    "release": "Satellite 6.15",
    "changes": [
        {"tunable": "unshadow:foreman.service:override.conf", "channel": "dropin", "target": "foreman.service:override.conf",
         "op": "remove", "effect": "daemon-reload", "units": ["foreman.service"],
         "file": "/etc/systemd/system/foreman.service.d/override.conf"},
        {"tunable": "unshadow:max_connections", "channel": "alter-system", "target": "max_connections", "op": "reset",
         "effect": "restart", "units": ["postgresql.service"]},
        {"tunable": "puma.workers", "channel": "custom-hiera", "target": "foreman::foreman_service_puma_workers", "value": 18,
         "reason": "guide range for large"},
        {"tunable": "postgresql.max_connections", "channel": "custom-hiera",
         "target": "postgresql::server::config_entries/max_connections", "value": 1000},
        {"tunable": "httpd.limit_nofile", "channel": "dropin", "target": "httpd.service:LimitNOFILE", "value": 640000,
         "effect": "daemon-reload", "units": ["httpd.service"], "file": "/etc/systemd/system/httpd.service.d/limits.conf"},
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576,
         "effect": "sysctl-reload", "file": "/etc/sysctl.d/90-foretune.conf"},
        {"tunable": "tuned.profile", "channel": "tuned", "target": "profile", "value": "throughput-performance",
         "effect": "tuned-adm"},
    ],
}


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "host"
    shutil.copytree(FIXTURE, root, symlinks=True)
    return root


def _changes(tmp_path: Path, data: dict | None = None) -> str:  # type: ignore[type-arg]
    path = tmp_path / "changes.json"
    path.write_text(json.dumps(data or CHANGES), encoding="utf-8")
    return str(path)


def _files(root: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(root)): (p.read_bytes(), stat.S_IMODE(p.lstat().st_mode)) for p in sorted(root.rglob("*"))
            if p.is_file() and not str(p.relative_to(root)).startswith("var/lib/foretune")}


def _runs(root: Path) -> list[str]:
    return sorted(os.listdir(root / RUNS)) if (root / RUNS).exists() else []


def _states(stdout: str) -> dict[str, str]:
    return {m.group(2): m.group(1) for m in re.finditer(r"^  (in force|pending|drift|not verified) +(\S+)", stdout, re.MULTILINE)}


def test_dry_run_shows_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    before = _files(root)
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path))
    assert result.status == 0, result.stderr
    assert f"remove {root}/{OVERRIDE}" in result.stdout
    assert "+foreman::foreman_service_puma_workers: 18\n" in result.stdout
    assert "+LimitNOFILE=640000\n" in result.stdout
    assert "-max_connections = '200'\n" in result.stdout  # the tree's postgresql.auto.conf, as ALTER SYSTEM RESET leaves it
    assert "installer command: satellite-installer\n" in result.stdout
    assert "dry run: nothing written" in result.stderr
    assert _files(root) == before and _runs(root) == []


def test_write_then_verify_on_a_copied_tree(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path), "--write")
    assert result.status == 0, result.stderr
    assert not (root / OVERRIDE).exists()
    assert (root / HIERA).read_text(encoding="utf-8") == (
        "---\n# This file is for custom hiera overrides, see\n# https://docs.theforeman.org/ for details.\n"
        "apache::mod::event::maxrequestsperchild: 0\npostgresql::server::config_entries:\n  random_page_cost: 1.1\n"
        "  max_connections: 1000\n\n# foretune: guide range for large\nforeman::foreman_service_puma_workers: 18\n")
    assert (root / "etc/systemd/system/httpd.service.d/limits.conf").read_text(encoding="utf-8") == "[Service]\nLimitNOFILE=640000\n"
    assert (root / "etc/sysctl.d/90-foretune.conf").read_text(encoding="utf-8") == "fs.aio-max-nr = 1048576\n"
    assert (root / "etc/tuned/active_profile").read_text(encoding="utf-8") == "throughput-performance\n"
    assert (root / AUTO).read_text(encoding="utf-8") == ("# Do not edit this file manually!\n"
                                                       "# It will be overwritten by the ALTER SYSTEM command.\nrandom_page_cost = '1.1'\n")
    [run] = _runs(root)
    run_dir = root / RUNS / run
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((run_dir / "journal.json").stat().st_mode) == 0o600
    journal = json.loads((run_dir / "journal.json").read_text(encoding="utf-8"))
    backups = {f["path"]: f["backup"] for f in journal["files"]}
    assert backups["/etc/systemd/system/foreman.service.d/override.conf"] == "backup/etc/systemd/system/foreman.service.d/override.conf"
    assert backups["/etc/sysctl.d/90-foretune.conf"] is None  # a new file: nothing to back up, rollback removes it
    assert (run_dir / backups["/etc/foreman-installer/custom-hiera.yaml"]).read_bytes() == (FIXTURE / HIERA).read_bytes()

    result = run_cli("verify", "--root", str(root))
    assert result.status == 1, result.stderr  # written, waiting for the installer, restarts and reloads
    assert _states(result.stdout) == {
        "unshadow:foreman.service:override.conf": "pending",
        # auto.conf no longer sets it, but PostgreSQL reads max_connections only when it starts (pg-conf-restart), and
        # the tree has no postmaster.pid started after the run: the files cannot show the running value
        "unshadow:max_connections": "pending",
        "puma.workers": "pending",  # foreman.service.d/installer.conf still renders 24 workers
        # postgresql.conf already says 1000 (the profile's); auto.conf's 200, which shadowed it, is gone: same restart
        "postgresql.max_connections": "pending",
        "httpd.limit_nofile": "pending",  # the running httpd's soft limit is still 1024
        "kernel.aio_max_nr": "pending",  # sysctl -a still says 65536
        "tuned.profile": "pending",  # tuned-adm active still says virtual-guest
    }
    assert "/proc/<MainPID of httpd.service>/limits (soft) still gives 1024" in result.stdout
    assert ("needs a PostgreSQL restart: PostgreSQL reads max_connections only when it starts, and the files under "
            f"{root} cannot show the running value (no /var/lib/pgsql/data/postmaster.pid tells when it started): "
            "`systemctl restart postgresql`, or verify with --dsn to SHOW it") in result.stdout

    # the installer ran, the services restarted, sysctl --system and tuned-adm ran: the tree now reads as such a host
    _edit(root, "etc/systemd/system/foreman.service.d/installer.conf", "FOREMAN_PUMA_WORKERS=24", "FOREMAN_PUMA_WORKERS=18")
    result = run_cli("verify", "--root", str(root))  # rendered, but the running Puma (pumactl stats) still has 24 workers
    # installer.conf renders 18 already: what the running Puma's 24 waits for is its restart, not an installer run
    assert ("pumactl stats (the running Puma) still gives 24: the running Puma (pumactl stats: 24 workers) started "
            "before the configuration the installer rendered (18 workers): systemctl daemon-reload && systemctl restart "
            "foreman") in result.stdout
    _edit(root, "sos_commands/foreman/pumactl_stats", '"workers": 24, "phase": 0, "booted_workers": 24',
          '"workers": 18, "phase": 0, "booted_workers": 18')
    _edit(root, "proc/2201/limits", "Max open files            1024                 524288",
          "Max open files            640000               640000")
    _edit(root, "sos_commands/kernel/sysctl_-a", "fs.aio-max-nr = 65536", "fs.aio-max-nr = 1048576")
    _edit(root, "sos_commands/tuned/tuned-adm_active", "virtual-guest", "throughput-performance")
    _postmaster_pid(root, journal["epoch"] + 60)  # PostgreSQL restarted a minute after the run
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {
        "unshadow:foreman.service:override.conf": "pending", "unshadow:max_connections": "in force",
        "puma.workers": "in force", "postgresql.max_connections": "in force", "httpd.limit_nofile": "in force",
        "kernel.aio_max_nr": "in force", "tuned.profile": "in force"}, result.stdout
    assert result.status == 1  # the removal's daemon-reload is never read back: it stays pending with its reason
    assert "removed; in force after systemctl daemon-reload and a restart of foreman.service" in result.stdout

    # a colleague lowers the workers in custom-hiera and the installer renders it: drift, with where it was changed
    _edit(root, HIERA, "foreman::foreman_service_puma_workers: 18", "foreman::foreman_service_puma_workers: 12")
    os.utime(root / HIERA, (journal["epoch"] + 100, journal["epoch"] + 100))
    result = run_cli("verify", "--root", str(root), "--format", "json")
    assert result.status == 1
    data = json.loads(result.stdout)
    _valid(data)
    workers = next(c for c in data["changes"] if c["change"]["tunable"] == "puma.workers")
    assert workers["state"] == "drift"
    assert workers["found"] == "12"
    assert "/etc/foreman-installer/custom-hiera.yaml now has '12' (applied: '18')" in workers["why"]
    assert "after run " + journal["run"] in workers["why"]

    assert data["counts"] == {"in force": 5, "pending": 1, "drift": 1, "not verified": 0}, data["counts"]


def _postmaster_pid(root: Path, started: float) -> None:
    """PostgreSQL's postmaster.pid as a running server writes it: the third line is its start time (epoch seconds)."""
    (root / "var/lib/pgsql/data/postmaster.pid").write_text(
        f"2301\n/var/lib/pgsql/data\n{int(started)}\n5432\n/var/run/postgresql\nlocalhost\n  5432001    131072\nready   \n",
        encoding="utf-8")


def _valid(data: object) -> None:
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("foretune.apply").joinpath("schema/verify-v1.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema)
    assert data["schema"] == "foretune-verify/1"  # type: ignore[index]


def _edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_verify_exits_0_when_every_change_is_in_force(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    sysctl = {"release": "Satellite 6.15", "changes": [
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576, "effect": "sysctl-reload"}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write").status == 0
    _edit(root, "sos_commands/kernel/sysctl_-a", "fs.aio-max-nr = 65536", "fs.aio-max-nr = 1048576")
    prom = tmp_path / "foretune.prom"
    result = run_cli("verify", "--root", str(root), "--prometheus", str(prom))
    assert result.status == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == "1 in force, 0 pending, 0 drift, 0 not verified"
    text = prom.read_text(encoding="utf-8")
    assert ('foretune_change_state{tunable="kernel.aio_max_nr",channel="sysctl",target="fs.aio-max-nr",state="in_force"} 1'
            in text.splitlines())
    assert 'foretune_change_state{tunable="kernel.aio_max_nr",channel="sysctl",target="fs.aio-max-nr",state="pending"} 0' in text
    assert "foretune_verify_exit_status 0" in text.splitlines()
    _check_exposition(text)
    assert sorted(os.listdir(tmp_path)) == ["changes.json", "foretune.prom", "host"]  # no temporary file left behind


def _check_exposition(text: str) -> None:
    """Every line is a HELP, a TYPE or a sample of the text exposition format; each metric has HELP and TYPE first."""
    sample = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*\})? -?[0-9.e+]+')
    typed = set()
    assert text.endswith("\n")
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            name, kind = line.split()[2:4]
            assert kind in ("gauge", "counter")
            typed.add(name)
            continue
        match = sample.fullmatch(line)
        assert match, line
        assert match.group(1) in typed, line


def test_rollback_restores_byte_identical_files(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    os.chmod(root / OVERRIDE, 0o640)
    before = _files(root)
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path), "--write").status == 0
    assert _files(root) != before
    [run] = _runs(root)
    result = run_cli("apply", "--root", str(root), "--rollback", run)
    assert result.status == 0, result.stderr
    assert result.stdout == f"rolled back run {run} on {root}: 6 files restored\n"
    assert _files(root) == before  # content and mode of each file; the files apply created are gone
    assert not (root / "etc/systemd/system/httpd.service.d").exists()  # and the directories made for them
    assert not (root / "etc/tuned").exists()
    assert not (root / "etc/sysctl.d/90-foretune.conf").exists()
    again = run_cli("apply", "--root", str(root), "--rollback", run)
    assert again.status == 2 and again.stderr.count("\n") == 1 and "already rolled back" in again.stderr
    missing = run_cli("verify", "--root", str(root))
    assert missing.status == 2 and "every run" in missing.stderr and missing.stderr.count("\n") == 1


@pytest.mark.parametrize("damage", [
    {"run": "x"},  # not the run of its directory
    {"files": "custom-hiera.yaml"},  # no list of files
    {"changes": [{"tunable": 5}]},  # a change that is not one
])
def test_a_damaged_journal_is_refused_and_nothing_is_restored(tmp_path: Path, damage: dict[str, object]) -> None:
    root = _tree(tmp_path)
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path), "--write").status == 0
    after = _files(root)
    [run] = _runs(root)
    journal = root / RUNS / run / "journal.json"
    journal.write_text(json.dumps({**json.loads(journal.read_text()), **damage}))
    result = run_cli("apply", "--root", str(root), "--rollback", run)
    assert result.status == 2 and result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert f"{run}/journal.json: " in result.stderr
    assert _files(root) == after  # nothing restored from it


def test_a_repeated_apply_is_a_no_op(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    changes = _changes(tmp_path)
    assert run_cli("apply", "--root", str(root), "--changes", changes, "--write").status == 0
    after = _files(root)
    mtimes = {p: p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}
    result = run_cli("apply", "--root", str(root), "--changes", changes, "--write")
    assert result.status == 0, result.stderr
    # the set has custom-hiera values: its files are in place, the installer run is what puts them in force
    assert (f"nothing to change on {root}: the files are in place; the installer command below puts the set's "
            "installer values in force\n") in result.stdout
    assert "---" not in result.stdout
    assert len(_runs(root)) == 1  # no second run, no second backup
    assert _files(root) == after
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()} == mtimes


def test_a_site_value_is_kept_unless_asked(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / HIERA).write_text("foreman::foreman_service_puma_workers: 30  # sized for our burst\n", encoding="utf-8")
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][2]]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0
    assert "not applied: puma.workers: the site sets 30" in result.stderr
    assert (root / HIERA).read_text(encoding="utf-8") == "foreman::foreman_service_puma_workers: 30  # sized for our burst\n"
    assert _runs(root) == []
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write", "--prefer", "foretune")
    assert result.status == 0
    assert "foreman::foreman_service_puma_workers: 18" in (root / HIERA).read_text(encoding="utf-8")


def test_writes_never_go_through_a_symbolic_link(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(root / "etc/systemd/system/foreman.service.d")
    (root / "etc/systemd/system/httpd.service.d").symlink_to(outside)
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][4]]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 2
    assert "is a symbolic link" in result.stderr and result.stderr.count("\n") == 1
    assert os.listdir(outside) == []


@pytest.mark.parametrize(("argv", "message"), [
    (("verify", "--root", "{root}"), "no applied change set on {root}"),
    (("verify", "--root", "{root}", "--run", "20990101T000000Z"), "20990101T000000Z: no such run"),
    (("verify", "--root", "{root}", "--run", "../../etc"), "not a run name"),
    (("apply", "--root", "{root}", "--rollback", "20990101T000000Z"), "20990101T000000Z: no such run"),
    (("verify", "--root", "{missing}"), "No such file or directory"),
    (("verify", "--root", "{file}"), "is a regular file, not a directory"),
    (("apply", "--root", "{root}", "--changes", "{missing}"), "No such file or directory"),
    (("apply", "--root", "{root}", "--changes", "{file}"), "not JSON"),
    (("apply", "--root", "{root}", "--changes", "{badchannel}"), "unknown channel 'carrier-pigeon'"),
    (("apply", "--root", "{root}", "--changes", "{twice}"), "two changes for puma.workers"),
    (("apply", "--root", "{root}", "--write", "--run-installer", "--changes", "{twice}"), "not with --root"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, argv: tuple[str, ...], message: str) -> None:
    root = tmp_path / "host"
    root.mkdir()
    (tmp_path / "file").write_text("not json\n", encoding="utf-8")
    bad = {"release": "x", "changes": [{"tunable": "t", "channel": "carrier-pigeon", "target": "x"}]}
    (tmp_path / "bad.json").write_text(json.dumps(bad), encoding="utf-8")
    twice = {"release": "x", "changes": [CHANGES["changes"][2], CHANGES["changes"][2]]}
    (tmp_path / "twice.json").write_text(json.dumps(twice), encoding="utf-8")
    names = {"root": str(root), "missing": str(tmp_path / "nope"), "file": str(tmp_path / "file"),
             "badchannel": str(tmp_path / "bad.json"), "twice": str(tmp_path / "twice.json")}
    result = run_cli(*(a.format(**names) for a in argv))
    assert result.status == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert message.format(**names) in result.stderr


def test_an_error_is_written_to_the_prometheus_file_too(tmp_path: Path) -> None:
    prom = tmp_path / "foretune.prom"
    (tmp_path / "host").mkdir()
    result = run_cli("verify", "--root", str(tmp_path / "host"), "--prometheus", str(prom))
    assert result.status == 2
    assert "foretune_verify_exit_status 2\n" in prom.read_text(encoding="utf-8")
    _check_exposition(prom.read_text(encoding="utf-8"))


# --- ALTER SYSTEM and SHOW on a real PostgreSQL -----------------------------------------------------------------

@pytest.fixture()
def pg() -> Iterator[pgcluster.Cluster]:
    """A cluster of its own (ALTER SYSTEM changes survive in its data directory), with work_mem on its command line."""
    cluster = pgcluster.start({"work_mem": "4MB"})
    try:
        yield cluster
    finally:
        pgcluster.stop(cluster)


def _show(cluster: pgcluster.Cluster, setting: str) -> str:
    from foretune.pg import run_psql

    return run_psql(cluster.conninfo + " dbname=postgres", f"SHOW {setting}", environ=dict(os.environ))[0][0]


def test_alter_system_then_show_on_a_real_postgresql(tmp_path: Path, pg: pgcluster.Cluster) -> None:
    from foretune.pg import run_psql

    root = tmp_path / "host"
    root.mkdir()
    dsn = pg.conninfo + " dbname=postgres"
    sets = {"release": "Satellite 6.15", "changes": [
        {"tunable": "postgresql.maintenance_work_mem", "channel": "alter-system", "target": "maintenance_work_mem",
         "value": "256MB", "effect": "immediate"},
        {"tunable": "postgresql.max_connections", "channel": "alter-system", "target": "max_connections", "value": 150,
         "effect": "restart", "units": ["postgresql.service"]},
        {"tunable": "postgresql.work_mem", "channel": "alter-system", "target": "work_mem", "value": "8MB", "effect": "immediate"},
    ]}
    original_max = _show(pg, "max_connections")
    assert original_max != "150" and _show(pg, "maintenance_work_mem") == "64MB"  # PostgreSQL's default
    result = run_cli("apply", "--root", str(root), "--dsn", dsn, "--changes", _changes(tmp_path, sets))
    assert result.stdout.splitlines() == ["ALTER SYSTEM SET maintenance_work_mem = '256MB';",
                                          "ALTER SYSTEM SET max_connections = '150';", "ALTER SYSTEM SET work_mem = '8MB';",
                                          "needs a restart: max_connections takes effect when postgresql.service restarts, "
                                          "which the installer does not do when it changes nothing there: "
                                          "`systemctl restart postgresql.service`"]
    assert _show(pg, "maintenance_work_mem") == "64MB"  # a dry run changes nothing
    result = run_cli("apply", "--root", str(root), "--dsn", dsn, "--changes", _changes(tmp_path, sets), "--write")
    assert result.status == 0, result.stderr
    assert _show(pg, "maintenance_work_mem") == "256MB"  # reloaded: in force at once
    assert _show(pg, "max_connections") == original_max  # needs a restart
    assert _show(pg, "work_mem") == "4MB"  # the server's command line wins over postgresql.auto.conf
    result = run_cli("verify", "--root", str(root), "--dsn", dsn)
    assert result.status == 1
    assert _states(result.stdout) == {"postgresql.maintenance_work_mem": "in force", "postgresql.max_connections": "pending",
                                      "postgresql.work_mem": "drift"}
    assert "PostgreSQL reports pending_restart: `systemctl restart postgresql`" in result.stdout
    assert "SHOW work_mem gives '4MB': PostgreSQL takes it from command line, which wins over postgresql.auto.conf" in result.stdout
    again = run_cli("apply", "--root", str(root), "--dsn", dsn, "--changes", _changes(tmp_path, sets), "--write")
    assert "nothing to change" in again.stdout and "ALTER SYSTEM" not in again.stdout
    [run] = _runs(root)
    # the journal names the server the statements ran on; a rollback that reaches none, or another one, is refused
    # before anything is touched, never "undone" somewhere else (acceptance D5)
    journal = json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))
    assert {s["target"] for s in journal["statements"]} == {" ".join(dsn.split())}
    refused = run_cli("apply", "--root", str(root), "--rollback", run)
    assert (refused.status, refused.stderr) == (2, f"foretune: error: run {run} ran ALTER SYSTEM statements on --dsn "
                                                   f"'{dsn}': give the same --dsn (with its password) to undo them there; "
                                                   "nothing restored\n")
    other = run_cli("apply", "--root", str(root), "--dsn", dsn + " application_name=other", "--rollback", run)
    assert other.status == 2 and f"ran its ALTER SYSTEM statements on --dsn '{dsn}', not on --dsn '{dsn} " \
        "application_name=other'" in other.stderr
    assert _show(pg, "maintenance_work_mem") == "256MB"  # nothing undone by the refused runs
    result = run_cli("apply", "--root", str(root), "--dsn", dsn, "--rollback", run)
    assert result.status == 0, result.stderr
    assert result.stdout == f"rolled back run {run} on {root}: 0 files restored, 3 ALTER SYSTEM statements undone\n"
    assert _show(pg, "maintenance_work_mem") == "64MB"
    rows = run_psql(dsn, "SELECT name FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'", environ=dict(os.environ))
    assert rows == []


RESET = {"release": "Satellite 6.15", "changes": [
    {"tunable": "unshadow:max_connections", "channel": "alter-system", "target": "max_connections", "op": "reset",
     "effect": "restart", "units": ["postgresql.service"]}]}


def test_an_alter_system_reset_under_root_is_pending_until_postgresql_has_started_since(tmp_path: Path) -> None:
    # satellite-6.15: postgresql.auto.conf max_connections = '200'. ALTER SYSTEM RESET removes the line
    # (pg-alter-system-reset), but PostgreSQL reads max_connections only when it starts (pg-conf-restart): the running
    # server keeps 200 until a restart, so the files alone never make it "in force". postmaster.pid's third line is the
    # running server's start time: started before the run, still pending; after it, in force.
    root = _tree(tmp_path)
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, RESET), "--write").status == 0
    assert "max_connections" not in (root / AUTO).read_text(encoding="utf-8")
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1
    assert _states(result.stdout) == {"unshadow:max_connections": "pending"}
    assert "(no /var/lib/pgsql/data/postmaster.pid tells when it started)" in result.stdout
    _postmaster_pid(root, journal["epoch"] - 3600)  # the server running since an hour before the run
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1 and _states(result.stdout) == {"unshadow:max_connections": "pending"}
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(journal["epoch"] - 3600)))
    assert f"/var/lib/pgsql/data/postmaster.pid says it started at {started}, before run {journal['run']}" in result.stdout
    _postmaster_pid(root, journal["epoch"] + 60)  # restarted after the run
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0, result.stdout
    assert _states(result.stdout) == {"unshadow:max_connections": "in force"}


def test_a_restart_setting_in_postgresql_conf_is_pending_until_a_restart_and_a_reload_setting_is_not(tmp_path: Path) -> None:
    # custom-hiera entries the installer renders into postgresql.conf: shared_buffers is read only at start
    # (pg-conf-restart), work_mem on a reload. With postgresql.conf rendered, work_mem is in force; shared_buffers waits
    # for a PostgreSQL restart, which postmaster.pid then shows.
    root = _tree(tmp_path)
    _edit(root, AUTO, "max_connections = '200'\n", "")
    entries = {"release": "Satellite 6.15", "changes": [
        {"tunable": "postgresql.shared_buffers", "channel": "custom-hiera",
         "target": "postgresql::server::config_entries/shared_buffers", "value": "8GB"},
        {"tunable": "postgresql.work_mem", "channel": "custom-hiera",
         "target": "postgresql::server::config_entries/work_mem", "value": "8MB"}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, entries), "--write").status == 0
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    assert _states(run_cli("verify", "--root", str(root)).stdout) == {  # the installer has not rendered them yet
        "postgresql.shared_buffers": "pending", "postgresql.work_mem": "pending"}
    _edit(root, "var/lib/pgsql/data/postgresql.conf", "shared_buffers = 4GB", "shared_buffers = 8GB")
    _edit(root, "var/lib/pgsql/data/postgresql.conf", "work_mem = 4MB", "work_mem = 8MB")
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"postgresql.shared_buffers": "pending", "postgresql.work_mem": "in force"}
    assert "needs a PostgreSQL restart: PostgreSQL reads shared_buffers only when it starts" in result.stdout
    _postmaster_pid(root, journal["epoch"] + 60)
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0, result.stdout
    assert _states(result.stdout) == {"postgresql.shared_buffers": "in force", "postgresql.work_mem": "in force"}


def test_the_restart_settings_are_those_postgresql_itself_reads_only_at_start(pg: pgcluster.Cluster) -> None:
    # the data's list, checked against the real server: pg_settings' context "postmaster" (set at server start only)
    from foretune.knowledge.precedence import table
    from foretune.pg import run_psql

    listed = table("postgresql", _show(pg, "server_version").split(".")[0])["restart_settings"]
    rows = run_psql(pg.conninfo + " dbname=postgres", "SELECT name, context FROM pg_settings WHERE name IN ("
                    + ", ".join(f"'{name}'" for name in listed) + ") ORDER BY name", environ=dict(os.environ))
    assert rows == [[name, "postmaster"] for name in sorted(listed)]


def test_an_alter_system_reset_is_pending_until_a_real_postgresql_restarts(tmp_path: Path, pg: pgcluster.Cluster) -> None:
    # ALTER SYSTEM SET max_connections = 150 and a restart: SHOW gives 150. apply resets it: SHOW still gives 150
    # (PostgreSQL reports pending_restart) until the server restarts. The same holds under --root from the files:
    # the tree's copy of the server's data files, with its real postmaster.pid, says pending until the restart.
    from foretune.pg import run_psql

    dsn = pg.conninfo + " dbname=postgres"
    run_psql(dsn, "ALTER SYSTEM SET max_connections = 150", environ=dict(os.environ))
    pgcluster.restart(pg)
    assert _show(pg, "max_connections") == "150"
    live, files = tmp_path / "live", tmp_path / "files"
    live.mkdir()
    files.mkdir()
    assert run_cli("apply", "--root", str(live), "--dsn", dsn, "--changes", _changes(tmp_path, RESET), "--write").status == 0
    assert _show(pg, "max_connections") == "150"
    result = run_cli("verify", "--root", str(live), "--dsn", dsn)
    assert result.status == 1 and _states(result.stdout) == {"unshadow:max_connections": "pending"}
    assert "PostgreSQL reports pending_restart: `systemctl restart postgresql`" in result.stdout

    def copy_data_files() -> None:  # what a copy of the host holds: the server's files as they are now
        data = files / "var/lib/pgsql/data"
        data.mkdir(parents=True, exist_ok=True)
        for name in ("PG_VERSION", "postgresql.conf", "postgresql.auto.conf", "postmaster.pid"):
            shutil.copyfile(pg.datadir / name, data / name)

    journal = next((live / RUNS).glob("*/journal.json"))
    (files / RUNS / journal.parent.name).mkdir(parents=True)
    shutil.copyfile(journal, files / RUNS / journal.parent.name / "journal.json")
    copy_data_files()
    result = run_cli("verify", "--root", str(files))
    assert result.status == 1 and _states(result.stdout) == {"unshadow:max_connections": "pending"}, result.stdout
    assert "/var/lib/pgsql/data/postmaster.pid says it started at " in result.stdout
    time.sleep(1.1)  # postmaster.pid keeps the start time in whole seconds
    pgcluster.restart(pg)
    assert _show(pg, "max_connections") == "100"  # PostgreSQL's built-in default (pg-conf-defaults)
    result = run_cli("verify", "--root", str(live), "--dsn", dsn)
    assert result.status == 0 and _states(result.stdout) == {"unshadow:max_connections": "in force"}, result.stdout
    copy_data_files()
    result = run_cli("verify", "--root", str(files))
    assert result.status == 0 and _states(result.stdout) == {"unshadow:max_connections": "in force"}, result.stdout


def test_a_reset_of_a_reload_setting_asks_for_a_reload_not_a_restart(tmp_path: Path) -> None:
    # satellite-6.15 with postgresql.auto.conf work_mem = '1MB' below the plan's 4MB: the reset is planned. work_mem is
    # not among the settings PostgreSQL reads only at start (pg-conf-restart): a reload puts it in force, so neither
    # apply nor APPLY.md asks for a restart of the database behind the Satellite for it; max_connections still needs one.
    root = _tree(tmp_path)
    with (root / AUTO).open("a", encoding="utf-8") as handle:
        handle.write("work_mem = '1MB'\n")
    result = run_cli("apply", "--root", str(root))
    assert result.status == 0, result.stderr
    assert "-work_mem = '1MB'\n" in result.stdout
    restarts = [line for line in result.stdout.splitlines() if line.startswith("needs a restart")]
    assert restarts == ["needs a restart: max_connections takes effect when postgresql restarts, which the installer "
                        "does not do when it changes nothing there: `systemctl restart postgresql`"]
    bundle = tmp_path / "fixes"
    assert run_cli("audit", str(root), "--output-dir", str(bundle)).status in (0, 1)
    steps = (bundle / "APPLY.md").read_text(encoding="utf-8")
    assert ("`sudo -u postgres psql -c 'ALTER SYSTEM RESET work_mem;' -c 'SELECT pg_reload_conf();'`: postgresql.auto.conf "
            "sets work_mem = '1MB' (ALTER SYSTEM), which wins over postgresql.conf. It takes effect on that reload (no "
            "restart)") in steps


def test_a_reset_still_read_from_postgresql_auto_conf_is_pending_a_reload(tmp_path: Path, pg: pgcluster.Cluster) -> None:
    # ALTER SYSTEM SET maintenance_work_mem = '128MB' and a reload: SHOW gives 128MB from postgresql.auto.conf (the
    # fixture's server has work_mem on its command line, which wins, hence this setting). apply resets it and reloads:
    # SHOW gives the default 64MB again, in force. A reset made without the reload leaves the running value taken
    # from postgresql.auto.conf (pg_settings.sourcefile): pending, with the reload to run.
    from foretune.pg import run_psql

    dsn = pg.conninfo + " dbname=postgres"
    env = dict(os.environ)

    def sql(statement: str) -> None:
        run_psql(dsn, statement, environ=env)

    root = tmp_path / "host"
    root.mkdir()
    reset = {"release": "Satellite 6.15", "changes": [
        {"tunable": "reset:postgresql:maintenance_work_mem", "channel": "alter-system", "target": "maintenance_work_mem", "op": "reset",
         "effect": "immediate"}]}
    sql("ALTER SYSTEM SET maintenance_work_mem = '128MB'")
    sql("SELECT pg_reload_conf()")
    time.sleep(0.5)  # the reload is a signal: the server takes it up in a moment
    assert run_cli("apply", "--root", str(root), "--dsn", dsn, "--changes", _changes(tmp_path, reset), "--write").status == 0
    time.sleep(0.5)
    assert _show(pg, "maintenance_work_mem") == "64MB"
    result = run_cli("verify", "--root", str(root), "--dsn", dsn)
    assert result.status == 0 and _states(result.stdout) == {"reset:postgresql:maintenance_work_mem": "in force"}, result.stdout
    sql("ALTER SYSTEM SET maintenance_work_mem = '128MB'")
    sql("SELECT pg_reload_conf()")
    time.sleep(0.5)
    sql("ALTER SYSTEM RESET maintenance_work_mem")  # reset again, this time without the reload
    result = run_cli("verify", "--root", str(root), "--dsn", dsn)
    assert result.status == 1 and _states(result.stdout) == {"reset:postgresql:maintenance_work_mem": "pending"}, result.stdout
    assert "PostgreSQL has not reloaded its configuration: SELECT pg_reload_conf()" in result.stdout


WORK_MEM_RESET = {"release": "Satellite 6.15", "changes": [
    {"tunable": "reset:postgresql:work_mem", "channel": "alter-system", "target": "work_mem", "op": "reset",
     "effect": "immediate"}]}


def test_a_reload_setting_written_under_root_is_not_verified_until_postgresql_has_started_since(tmp_path: Path) -> None:
    # apply --root edits the tree's postgresql.auto.conf and reloads nothing. PostgreSQL takes work_mem on a reload
    # (not in pg-conf-restart's list), and a reload leaves no trace in the files: from the files alone the reset is
    # neither "in force" (feedback C7) nor pending for ever (it would hold verify's exit status at 1 though the admin
    # reloaded): not verified, saying the reload it needs, exit 0. A start after the run (postmaster.pid) reads the file.
    root = _tree(tmp_path)
    _edit(root, AUTO, "max_connections = '200'\n", "work_mem = '1MB'\n")
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, WORK_MEM_RESET), "--write")
    assert result.status == 0, result.stderr
    assert ("then: `sudo -u postgres psql -c 'SELECT pg_reload_conf()'` on the host (PostgreSQL reads work_mem from its "
            "files again on a reload; apply edits the files and reloads nothing)\n") in result.stdout
    assert "needs a restart" not in result.stdout
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0, result.stdout
    assert _states(result.stdout) == {"reset:postgresql:work_mem": "not verified"}
    assert ("in force once PostgreSQL reloads its configuration (`sudo -u postgres psql -c 'SELECT pg_reload_conf()'`), "
            f"which the files under {root} cannot show (no /var/lib/pgsql/data/postmaster.pid tells when it started): "
            "verify with --dsn to SHOW it") in result.stdout
    _postmaster_pid(root, journal["epoch"] - 3600)  # running since before the run: it has the old line unless reloaded
    result = run_cli("verify", "--root", str(root), "--format", "json")
    assert result.status == 0
    [check] = json.loads(result.stdout)["changes"]
    assert check["state"] == "not verified"
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(int(journal["epoch"] - 3600)))
    assert f"/var/lib/pgsql/data/postmaster.pid says it started at {started}, before run {journal['run']}" in check["why"]
    _postmaster_pid(root, journal["epoch"] + 60)  # started after the run: it read postgresql.auto.conf without the line
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0 and _states(result.stdout) == {"reset:postgresql:work_mem": "in force"}, result.stdout


def test_an_alter_system_set_of_a_reload_setting_under_root_is_not_verified_from_the_files(tmp_path: Path) -> None:
    # the same for a value apply --root writes into the tree's postgresql.auto.conf (as ALTER SYSTEM would)
    root = _tree(tmp_path)
    sets = {"release": "Satellite 6.15", "changes": [
        {"tunable": "postgresql.work_mem", "channel": "alter-system", "target": "work_mem", "value": "8MB", "effect": "immediate"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sets), "--write")
    assert result.status == 0, result.stderr
    assert "work_mem = '8MB'\n" in (root / AUTO).read_text(encoding="utf-8")
    assert "PostgreSQL reads work_mem from its files again on a reload" in result.stdout
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0 and _states(result.stdout) == {"postgresql.work_mem": "not verified"}, result.stdout
    assert "in force once PostgreSQL reloads its configuration" in result.stdout


def test_a_reload_setting_reset_in_a_copied_tree_is_in_force_on_the_real_server_once_reloaded(
        tmp_path: Path, pg: pgcluster.Cluster) -> None:
    # a real server with ALTER SYSTEM SET maintenance_work_mem = '128MB' (reloaded: SHOW 128MB); a copy of its data
    # files is the tree. apply --root resets it in the copy: verify --root calls it not verified (the files cannot
    # show a reload), not in force. The copy's postgresql.auto.conf put back on the server and a reload: SHOW gives the
    # default 64MB (pg-conf-defaults), which verify --dsn calls in force, as the wording promised.
    from foretune.pg import run_psql

    dsn = pg.conninfo + " dbname=postgres"
    env = dict(os.environ)
    run_psql(dsn, "ALTER SYSTEM SET maintenance_work_mem = '128MB'", environ=env)
    run_psql(dsn, "SELECT pg_reload_conf()", environ=env)
    time.sleep(0.5)  # the reload is a signal: the server takes it up in a moment
    assert _show(pg, "maintenance_work_mem") == "128MB"
    root = tmp_path / "copy"
    data = root / "var/lib/pgsql/data"
    data.mkdir(parents=True)
    for name in ("PG_VERSION", "postgresql.conf", "postgresql.auto.conf", "postmaster.pid"):
        shutil.copyfile(pg.datadir / name, data / name)
    reset = {"release": "Satellite 6.15", "changes": [
        {"tunable": "reset:postgresql:maintenance_work_mem", "channel": "alter-system", "target": "maintenance_work_mem",
         "op": "reset", "effect": "immediate"}]}
    time.sleep(1.1)  # postmaster.pid keeps the start time in whole seconds: the run comes after it
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, reset), "--write").status == 0
    assert "maintenance_work_mem" not in (data / "postgresql.auto.conf").read_text(encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0 and _states(result.stdout) == {"reset:postgresql:maintenance_work_mem": "not verified"}, result.stdout
    assert "/var/lib/pgsql/data/postmaster.pid says it started at " in result.stdout
    assert _show(pg, "maintenance_work_mem") == "128MB"  # indeed: the running server still has the line's value
    shutil.copyfile(data / "postgresql.auto.conf", pg.datadir / "postgresql.auto.conf")
    run_psql(dsn, "SELECT pg_reload_conf()", environ=env)
    time.sleep(0.5)
    assert _show(pg, "maintenance_work_mem") == "64MB"
    result = run_cli("verify", "--root", str(root), "--dsn", dsn)
    assert result.status == 0 and _states(result.stdout) == {"reset:postgresql:maintenance_work_mem": "in force"}, result.stdout


def test_one_restart_line_per_service(tmp_path: Path) -> None:
    # three edits of files httpd reads: one line that names them, not one line each
    root = _tree(tmp_path)
    edits = {"release": "Satellite 6.15", "changes": [
        {"tunable": f"apache.{n}", "channel": "file", "target": path, "value": line, "effect": "restart", "units": ["httpd"]}
        for n, (path, line) in enumerate([("/etc/httpd/conf.d/passenger.conf", "PassengerMaxPoolSize 30"),
                                          ("/etc/httpd/conf.d/passenger.conf", "PassengerMinInstances 6"),
                                          ("/etc/httpd/conf.d/05-foreman-ssl.conf", "KeepAlive On")])]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, edits))
    assert result.status == 0, result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("needs a restart")] == [
        "needs a restart: /etc/httpd/conf.d/passenger.conf, /etc/httpd/conf.d/05-foreman-ssl.conf take effect when httpd "
        "restarts, which the installer does not do when it changes nothing there: `systemctl restart httpd`"]


def test_apply_from_another_hosts_source_without_root_is_refused(tmp_path: Path) -> None:
    # without --root apply writes to this host: a change set planned from another host's sosreport (its diff, its site
    # values) must not land here. One line, exit 2, nothing written; with --root the tree is the target, as asked.
    result = run_cli("apply", "--from", str(FIXTURE))  # a dry run: refused before any diff is shown
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"--from {FIXTURE} describes satellite.example.com, but without --root apply writes to this host" in result.stderr
    assert result.stdout == ""
    root = _tree(tmp_path)
    assert run_cli("apply", "--from", str(FIXTURE), "--root", str(root)).status == 0


def test_a_yaml_file_edit_goes_under_its_mapping_and_is_read_back(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    hammer = {"release": "Satellite 6.15", "changes": [
        {"tunable": "hammer.request_timeout", "channel": "file", "target": "/etc/hammer/cli.modules.d/foreman.yml",
         "value": ":request_timeout: -1", "effect": "immediate"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, hammer), "--write")
    assert result.status == 0, result.stderr
    assert (root / "etc/hammer/cli.modules.d/foreman.yml").read_text(encoding="utf-8") == (
        ":foreman:\n  # Enable/disable foreman commands\n  :enable_module: true\n  # Your foreman server address\n"
        "  :host: 'https://sat.example.com'\n"
        "  # Credentials. You'll be asked for the interactive input if they're missing.\n"
        "  #:username: 'admin'\n  #:password: 'example'\n  :request_timeout: -1\n  \n")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0, result.stdout
    assert _states(result.stdout) == {"hammer.request_timeout": "in force"}


def test_line_edits_keep_everything_else() -> None:
    from foretune.apply.edits import set_line, set_yaml_line

    shipped = ":foreman:\n  :enable_module: true\n  #:request_timeout: 120 #seconds\n"
    assert set_yaml_line(shipped, ":request_timeout: -1", "foreman.yml") == ":foreman:\n  :enable_module: true\n  :request_timeout: -1\n"
    assert set_line("# sizing\nPassengerMaxPoolSize 6\nPassengerMinInstances 1\n", "PassengerMaxPoolSize 30") == (
        "# sizing\nPassengerMaxPoolSize 30\nPassengerMinInstances 1\n")
    assert set_line("[Unit]\nAfter=x\n[Service]\nLimitNOFILE=1024\nUser=apache\n", "LimitNOFILE=640000", "[Service]") == (
        "[Unit]\nAfter=x\n[Service]\nLimitNOFILE=640000\nUser=apache\n")
    assert set_line("[Unit]\nAfter=x\n", "LimitNOFILE=640000", "[Service]") == "[Unit]\nAfter=x\n[Service]\nLimitNOFILE=640000\n"
    assert set_line("# comment\n\nfs.file-max = 10\n", "fs.aio-max-nr = 1048576") == (
        "# comment\n\nfs.file-max = 10\nfs.aio-max-nr = 1048576\n")


def test_a_failure_mid_apply_leaves_a_journal_that_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from foretune.apply import journal

    root = _tree(tmp_path)
    before = _files(root)
    real = journal._write
    calls: list[str] = []

    def failing(host: object, path: str, data: bytes | None) -> None:
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device", path)
        real(host, path, data)  # type: ignore[arg-type]

    monkeypatch.setattr(journal, "_write", failing)
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path), "--write")
    [run] = _runs(root)
    assert result.status == 2
    assert result.stderr == (f"foretune: error: {calls[2]}: No space left on device; run {run} is partly applied: "
                             f"`foretune apply --rollback {run} --root {root}` restores what it changed\n")  # as printed (D4)
    monkeypatch.setattr(journal, "_write", real)
    assert _files(root) != before
    result = run_cli("verify", "--root", str(root), "--format", "json")  # what was never written is not "drift" (D16)
    never = [c for c in json.loads(result.stdout)["changes"] if c["why"].startswith("never written")]
    assert calls[2] in [c["where"] for c in never] and calls[:2] == [c for c in calls[:2] if c not in [n["where"] for n in never]]
    assert {c["state"] for c in never} == {"pending"}, result.stdout
    failed = next(c for c in never if c["where"] == calls[2])
    assert failed["why"] == (f"never written: run {run} stopped before {calls[2]} (`foretune apply --rollback {run}` "
                             "undoes the rest, or apply again)")
    assert "drift" not in {c["state"] for c in json.loads(result.stdout)["changes"] if c["where"] == calls[2]}
    assert run_cli("apply", "--root", str(root), "--rollback", run).status == 0
    assert _files(root) == before


def test_verify_says_why_a_change_is_not_verified_on_a_plain_tree(tmp_path: Path) -> None:
    root = tmp_path / "image"  # a plain tree (a mounted image) without the kernel's values: read, but not there
    (root / "etc").mkdir(parents=True)
    sysctl = {"release": "Satellite 6.15", "changes": [
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576, "effect": "sysctl-reload"}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write").status == 0
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0
    assert _states(result.stdout) == {"kernel.aio_max_nr": "not verified"}
    assert f"sysctl unknown on {root}\n" in result.stdout, result.stdout


@pytest.mark.parametrize(("noop_status", "expected"), [(0, (0, 0)), (3, (3, None))])
def test_the_installer_runs_its_noop_mode_first_and_only_then_for_real(
        tmp_path: Path, noop_status: int, expected: tuple[int, int | None]) -> None:
    from foretune.apply.journal import run_installer

    # the real installer cannot run here: a stand-in of the same name records how it was called
    calls = tmp_path / "calls"
    stub = tmp_path / "bin/satellite-installer"
    stub.parent.mkdir()
    stub.write_text(f'#!/bin/sh\necho "$*" >> {calls}\ncase "$1" in --noop) exit {noop_status};; esac\nexit 0\n', encoding="utf-8")
    stub.chmod(0o755)
    environ = {"PATH": f"{stub.parent}:/usr/bin:/bin"}
    assert run_installer("satellite-installer --tuning large --foreman-foreman-service-puma-workers 18", environ) == expected
    runs = calls.read_text(encoding="utf-8").splitlines()
    assert runs[0] == "--noop --tuning large --foreman-foreman-service-puma-workers 18"
    assert runs[1:] == (["--tuning large --foreman-foreman-service-puma-workers 18"] if noop_status == 0 else [])


MISTUNED = ["satellite-6.15", "satellite-6.9", "satellite-6.2", "orcharhino-6.9", "capsule-6.15-pull-rex",
            "capsule-6.15-measured-failure", "satellite-6.15-logstash"]


@pytest.mark.parametrize("name", MISTUNED)
def test_apply_root_then_verify_root_on_every_mistuned_fixture(tmp_path: Path, name: str) -> None:
    """Planned from the tree itself: every change is in force, or pending / not verified with its reason; none drifts."""
    root = tmp_path / name
    shutil.copytree(REPO / "tests/fixtures/sosreports" / name, root, symlinks=True)
    result = run_cli("apply", "--root", str(root), "--hosts", "5000", "--write")
    assert result.status == 0, result.stderr
    assert len(_runs(root)) == 1
    result = run_cli("verify", "--root", str(root), "--format", "json")
    assert result.status in (0, 1), result.stderr
    data = json.loads(result.stdout)
    _valid(data)
    assert data["changes"]
    assert data["counts"]["drift"] == 0
    assert all(c["why"] for c in data["changes"] if c["state"] != "in force")
    assert result.status == (1 if data["counts"]["pending"] else 0)
    # a PostgreSQL setting neither file sets yet is the installer's to write: pending, never "not verified" with a
    # file name for its reason (orcharhino-6.9's postgresql.conf sets no autovacuum_vacuum_cost_limit)
    for c in data["changes"]:
        if c["state"] == "not verified":
            assert c["why"] != "postgresql.conf and postgresql.auto.conf", c
    again = run_cli("apply", "--root", str(root), "--hosts", "5000", "--write")
    assert again.status == 0 and "nothing to change" in again.stdout, again.stdout
    assert len(_runs(root)) == 1


def test_a_later_drop_in_that_shadows_the_change_is_drift(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][4]]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    (root / "etc/systemd/system/httpd.service.d/zz-local.conf").write_text("[Service]\nLimitNOFILE=4096\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1
    assert _states(result.stdout) == {"httpd.limit_nofile": "drift"}
    assert "/etc/systemd/system/httpd.service.d/zz-local.conf now has 'LimitNOFILE=4096' (applied: '640000')" in result.stdout
    (root / "etc/systemd/system/httpd.service.d/zz-local.conf").unlink()
    (root / "etc/systemd/system/httpd.service.d/00-early.conf").write_text("[Service]\nLimitNOFILE=4096\n", encoding="utf-8")
    assert _states(run_cli("verify", "--root", str(root)).stdout) == {"httpd.limit_nofile": "pending"}  # sorts before: ours wins


def test_verify_of_a_rolled_back_run_says_so(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][4]]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    assert run_cli("apply", "--root", str(root), "--rollback", "last").status == 0
    [run] = _runs(root)
    result = run_cli("verify", "--root", str(root), "--run", run)
    assert result.status == 2
    assert result.stderr.startswith(f"foretune: error: run {run} was rolled back at ")
    assert result.stderr.endswith(": nothing of it is applied\n") and result.stderr.count("\n") == 1


def test_a_higher_site_limit_is_kept_unless_asked(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    dropin = root / "etc/systemd/system/httpd.service.d/limits.conf"
    dropin.parent.mkdir()
    dropin.write_text("[Service]\nLimitNOFILE=1000000\n", encoding="utf-8")
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][4]]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0
    assert ("not applied: httpd.limit_nofile: /etc/systemd/system/httpd.service.d/limits.conf sets 1000000, more than "
            "foretune's 640000: kept (add --prefer foretune to lower it)") in result.stderr
    assert dropin.read_text(encoding="utf-8") == "[Service]\nLimitNOFILE=1000000\n"
    assert _runs(root) == []
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write", "--prefer", "foretune")
    assert result.status == 0
    assert dropin.read_text(encoding="utf-8") == "[Service]\nLimitNOFILE=640000\n"
    # lowered as asked, and said outside the diff
    assert ("lowers the site's 1000000 in /etc/systemd/system/httpd.service.d/limits.conf to LimitNOFILE=640000 (as asked: "
            "--prefer foretune): httpd.limit_nofile\n") in result.stdout


def test_a_mapping_value_is_merged_key_by_key_and_repeats_as_a_no_op(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    pg_hash = {"release": "Satellite 6.15", "changes": [
        {"tunable": "postgresql.entries", "channel": "custom-hiera", "target": "postgresql::server::config_entries",
         "value": {"work_mem": "8MB", "random_page_cost": 1.1}}]}
    changes = _changes(tmp_path, pg_hash)
    assert run_cli("apply", "--root", str(root), "--changes", changes, "--write").status == 0
    assert (root / HIERA).read_text(encoding="utf-8").endswith(
        "postgresql::server::config_entries:\n  random_page_cost: 1.1\n  work_mem: 8MB\n")
    again = run_cli("apply", "--root", str(root), "--changes", changes, "--write")
    assert "nothing to change" in again.stdout and len(_runs(root)) == 1
    result = run_cli("verify", "--root", str(root))  # postgresql.conf still says work_mem 4MB: the installer has not run
    assert _states(result.stdout) == {"postgresql.entries": "pending"} and result.status == 1
    _edit(root, "var/lib/pgsql/data/postgresql.conf", "work_mem = 4MB", "work_mem = 8MB")
    assert _states(run_cli("verify", "--root", str(root)).stdout) == {"postgresql.entries": "in force"}
    _edit(root, HIERA, "work_mem: 8MB", "work_mem: 2MB")
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"postgresql.entries": "drift"} and result.status == 1


def test_apply_root_resets_an_alter_system_max_connections_the_plan_does_not_change(tmp_path: Path) -> None:
    # satellite-6.15: postgresql.conf max_connections = 1000 (the medium profile's), postgresql.auto.conf
    # max_connections = '200' (ALTER SYSTEM wins over postgresql.conf, pg-auto-conf-wins). The plan keeps 1000, so it
    # has no max_connections change of its own; the 200 must still go, or the profile's 1000 never takes effect.
    # random_page_cost = '1.1' is a setting foretune does not plan: it stays.
    root = _tree(tmp_path)
    result = run_cli("apply", "--root", str(root), "--write")
    assert result.status == 0, result.stderr
    assert (root / AUTO).read_text(encoding="utf-8").splitlines()[-1] == "random_page_cost = '1.1'"
    assert "max_connections" not in (root / AUTO).read_text(encoding="utf-8")
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    assert [(c["channel"], c["op"], c["target"]) for c in journal["changes"] if c["channel"] == "alter-system"] == [
        ("alter-system", "reset", "max_connections")]


def test_a_colleagues_alter_system_after_the_run_is_drift_not_pending(tmp_path: Path) -> None:
    # applied: custom-hiera max_connections 1200 (postgresql.conf still says 1000 until the installer runs: pending).
    # Then someone runs ALTER SYSTEM SET max_connections = 300: postgresql.auto.conf wins over postgresql.conf
    # (pg-auto-conf-wins), so no installer run can bring 1200; that is drift, and verify says where it comes from.
    root = _tree(tmp_path)
    _edit(root, AUTO, "max_connections = '200'\n", "")
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "postgresql.max_connections", "channel": "custom-hiera",
         "target": "postgresql::server::config_entries/max_connections", "value": 1200}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    assert _states(run_cli("verify", "--root", str(root)).stdout) == {"postgresql.max_connections": "pending"}
    with (root / AUTO).open("a", encoding="utf-8") as handle:
        handle.write("max_connections = '300'\n")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1
    assert _states(result.stdout) == {"postgresql.max_connections": "drift"}
    assert "/var/lib/pgsql/data/postgresql.auto.conf sets max_connections = '300' (ALTER SYSTEM)" in result.stdout


def test_a_later_foreman_drop_in_over_an_installer_option_is_drift_not_pending(tmp_path: Path) -> None:
    # applied: --foreman-foreman-service-puma-workers 18 (the installer writes FOREMAN_PUMA_WORKERS into
    # foreman.service.d/installer.conf). A later zz-local.conf that sets FOREMAN_PUMA_WORKERS=4 is read after
    # installer.conf (systemd-dropin-order): the installer run cannot bring 18, so it is drift, not a pending run.
    root = _tree(tmp_path)
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "puma.workers", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18},
        CHANGES["changes"][5]]}  # a sysctl file too: a set of installer options alone writes no journal
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    assert _states(run_cli("verify", "--root", str(root)).stdout)["puma.workers"] == "pending"
    (root / "etc/systemd/system/foreman.service.d/zz-local.conf").write_text(
        "[Service]\nEnvironment=FOREMAN_PUMA_WORKERS=4\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1
    assert _states(result.stdout)["puma.workers"] == "drift"
    assert ("/etc/systemd/system/foreman.service.d/zz-local.conf sets FOREMAN_PUMA_WORKERS=4, read after installer.conf"
            in result.stdout)


@pytest.mark.parametrize("site,written", [
    ("120", "-1"),  # 120 s is a limit; -1 is none (g62-hammer): foretune's -1 is the larger and is written
    ("-1", "-1"),  # already none: nothing lower than it, nothing to do
])
def test_hammer_request_timeout_minus_one_means_no_timeout(tmp_path: Path, site: str, written: str) -> None:
    root = _tree(tmp_path)
    hammer = root / "etc/hammer/cli.modules.d/foreman.yml"
    hammer.write_text(f":foreman:\n  :host: 'https://sat.example.com'\n  :request_timeout: {site}\n", encoding="utf-8")
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "hammer.request_timeout", "channel": "file", "target": "/etc/hammer/cli.modules.d/foreman.yml",
         "value": ":request_timeout: -1", "effect": "immediate"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0, result.stderr
    assert "more than foretune's" not in result.stderr
    assert hammer.read_text(encoding="utf-8") == f":foreman:\n  :host: 'https://sat.example.com'\n  :request_timeout: {written}\n"


def test_a_site_hammer_timeout_of_none_is_kept_over_a_limit(tmp_path: Path) -> None:
    # the site's -1 (no timeout) is above any number of seconds: a change to 300 would lower it, so it is kept
    root = _tree(tmp_path)
    hammer = root / "etc/hammer/cli.modules.d/foreman.yml"
    hammer.write_text(":foreman:\n  :request_timeout: -1\n", encoding="utf-8")
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "hammer.request_timeout", "channel": "file", "target": "/etc/hammer/cli.modules.d/foreman.yml",
         "value": ":request_timeout: 300", "effect": "immediate"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0, result.stderr
    assert "sets -1, more than foretune's 300" in result.stderr
    assert hammer.read_text(encoding="utf-8") == ":foreman:\n  :request_timeout: -1\n"


def test_rollback_keeps_a_copy_of_an_edit_made_after_the_run(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    before = (root / HIERA).read_bytes()
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path), "--write").status == 0
    [run] = _runs(root)
    later = (root / HIERA).read_text(encoding="utf-8") + "foreman::logging_level: debug  # a colleague, after the run\n"
    (root / HIERA).write_text(later, encoding="utf-8")
    result = run_cli("apply", "--root", str(root), "--rollback", run)
    assert result.status == 0, result.stderr
    assert (root / HIERA).read_bytes() == before
    copy = root / RUNS / run / "later-etc_foreman-installer_custom-hiera.yaml"
    assert copy.read_text(encoding="utf-8") == later
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert f"/etc/foreman-installer/custom-hiera.yaml changed after run {run}: restored; its later content is kept in" in result.stderr + result.stdout


def test_a_drop_in_in_a_linked_foreman_service_d_is_read_as_systemd_reads_it(tmp_path: Path) -> None:
    # etc/systemd/system/foreman.service.d -> /etc/foreman-dropins (an absolute link, taken from the root): systemd
    # reads the drop-ins through it, so a zz-local.conf there that sets FOREMAN_PUMA_WORKERS=4 after installer.conf
    # is drift of the applied --foreman-foreman-service-puma-workers 18, as in a plain directory
    root = _tree(tmp_path)
    system = root / "etc/systemd/system"
    (system / "foreman.service.d").rename(root / "etc/foreman-dropins")
    (system / "foreman.service.d").symlink_to("/etc/foreman-dropins")
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "puma.workers", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18},
        CHANGES["changes"][5]]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    (root / "etc/foreman-dropins/zz-local.conf").write_text("[Service]\nEnvironment=FOREMAN_PUMA_WORKERS=4\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout)["puma.workers"] == "drift"
    assert "/etc/systemd/system/foreman.service.d/zz-local.conf sets FOREMAN_PUMA_WORKERS=4" in result.stdout


def test_not_verified_always_says_why(tmp_path: Path) -> None:
    # facts that tell nothing (an empty reason from the reader): the profile cannot be read back, and the check says so
    from foretune.apply.host import Host
    from foretune.apply.verify import UNVERIFIED, Verifier
    from foretune.changes.model import Change

    verifier = Verifier(Host(str(_tree(tmp_path))), {"run": "r", "epoch": 0}, set(), lambda: "")
    check = verifier.check(Change("profile", "profile", "--tuning", "large"))
    assert check.state == UNVERIFIED
    assert check.why == f"--tuning cannot be read back where it takes effect on {tmp_path / 'host'}"


@pytest.mark.parametrize("target, value", [("--x; rm -rf /", 1), ("--foreman-db-pool", "20; rm -rf /")])
def test_a_change_set_file_with_a_shell_word_for_an_installer_option_is_refused(tmp_path: Path, target: str, value: object) -> None:
    # an installer option and its value end up on the installer's command line (and in what apply prints): a change
    # set file may only name an option and a plain value there, never shell words
    root = _tree(tmp_path)
    data = {"release": "Satellite 6.15", "changes": [{"tunable": "foreman.db_pool", "channel": "installer", "target": target,
                                                      "value": value, "effect": "installer-run"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, data))
    assert result.status == 2, result.stderr
    assert "not an installer option and value" in result.stderr and "Traceback" not in result.stderr
    assert "rm -rf" not in result.stdout


@pytest.mark.parametrize("change, message", [
    ({"tunable": "tuned.profile", "channel": "tuned", "target": "profile", "value": "virtual-guest", "file": "/root/.bashrc"},
     "a tuned profile is a name written to /etc/tuned/active_profile"),
    ({"tunable": "tuned.profile", "channel": "tuned", "target": "profile", "value": "virtual-guest\nmalicious"},
     "tuned.profile: a value of more than one line"),
    ({"tunable": "httpd.limit_nofile", "channel": "dropin", "target": "httpd.service:LimitNOFILE",
      "value": "640000\nExecStartPre=/bin/touch /tmp/owned", "file": "/etc/systemd/system/httpd.service.d/limits.conf"},
     "httpd.limit_nofile: a value of more than one line"),
    ({"tunable": "httpd.limit_nofile", "channel": "dropin", "target": "httpd.service:LimitNOFILE", "value": 640000,
      "file": "/etc/systemd/system/sshd.service.d/limits.conf"},
     "a drop-in is a [Service] setting in /etc/systemd/system/UNIT.d/NAME.conf"),
    ({"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576, "file": "/etc/profile"},
     "a kernel setting goes to /etc/sysctl.d/NAME.conf"),
    ({"tunable": "puma.workers", "channel": "custom-hiera", "target": "foreman::foreman_service_puma_workers", "value": 18,
      "file": "/etc/cron.d/x"}, "custom-hiera values go to /etc/foreman-installer/custom-hiera.yaml"),
])
def test_a_change_set_file_writes_only_where_its_channel_writes_and_one_line_values(
        tmp_path: Path, change: dict, message: str) -> None:  # type: ignore[type-arg]
    # a change set file is reviewed, then applied as root: a typo or a tampered file must not write another file or
    # slip a second directive into a unit's drop-in. One line, exit 2, nothing shown or written.
    root = _tree(tmp_path)
    before = _files(root)
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, {"release": "Satellite 6.15", "changes": [change]}),
                     "--write")
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr and result.stdout == ""
    assert _files(root) == before and _runs(root) == []


def test_a_higher_kernel_limit_in_another_sysctl_file_or_in_force_is_kept_unless_asked(tmp_path: Path) -> None:
    # foretune's 90-foretune.conf is read after a site's 50-dba.conf: writing 1048576 there would cut the site's
    # 2097152 (and a kernel that already runs with more). Kept and listed, as a higher drop-in limit is; --prefer
    # foretune writes it.
    sysctl = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][5]]}
    root = _tree(tmp_path)
    (root / "etc/sysctl.d").mkdir(exist_ok=True)
    (root / "etc/sysctl.d/50-dba.conf").write_text("fs.aio-max-nr = 2097152\n", encoding="utf-8")
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write")
    assert result.status == 0, result.stderr
    assert ("not applied: kernel.aio_max_nr: /etc/sysctl.d/50-dba.conf gives fs.aio-max-nr = 2097152, more than "
            "foretune's 1048576: kept (add --prefer foretune to lower it)") in result.stderr
    assert not (root / "etc/sysctl.d/90-foretune.conf").exists() and _runs(root) == []
    (root / "etc/sysctl.d/50-dba.conf").unlink()
    _edit(root, "sos_commands/kernel/sysctl_-a", "fs.aio-max-nr = 65536", "fs.aio-max-nr = 4194304")
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write")
    assert ("not applied: kernel.aio_max_nr: the kernel in force (sos_commands/kernel/sysctl_-a) gives fs.aio-max-nr = "
            "4194304, more than foretune's 1048576: kept") in result.stderr
    assert not (root / "etc/sysctl.d/90-foretune.conf").exists()
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write", "--prefer", "foretune")
    assert result.status == 0, result.stderr
    assert (root / "etc/sysctl.d/90-foretune.conf").read_text(encoding="utf-8") == "fs.aio-max-nr = 1048576\n"


def test_a_shadowing_drop_in_loses_only_the_shadowing_line_and_the_dry_run_shows_what_goes(tmp_path: Path) -> None:
    # a site drop-in read after limits.conf (systemd-dropin-order) sets LimitNOFILE=4096 below foretune's 640000, next to
    # settings of its own: only the LimitNOFILE line goes, the rest stays. A drop-in holding nothing else (the
    # fixture's override.conf, Puma environment only) goes whole, and the dry run shows its content as a diff.
    root = _tree(tmp_path)
    local = root / "etc/systemd/system/httpd.service.d/zz-local.conf"
    local.parent.mkdir()
    local.write_text("# site: keep httpd from being killed during long syncs (RHBZ#1234)\n[Service]\nTimeoutStartSec=600\n"
                     "LimitNOFILE=4096\nRestart=on-failure\n", encoding="utf-8")
    result = run_cli("apply", "--root", str(root), "--write")
    assert result.status == 0, result.stderr
    assert "-LimitNOFILE=4096\n" in result.stdout
    assert local.read_text(encoding="utf-8") == ("# site: keep httpd from being killed during long syncs (RHBZ#1234)\n"
                                                 "[Service]\nTimeoutStartSec=600\nRestart=on-failure\n")
    assert not (root / OVERRIDE).exists()
    assert f"remove {root}/{OVERRIDE}\n" in result.stdout
    assert "-Environment=FOREMAN_PUMA_THREADS_MIN=16\n" in result.stdout  # what the removed file held
    states = _states(run_cli("verify", "--root", str(root)).stdout)
    assert not [t for t, state in states.items() if state == "drift"], states


def test_a_site_value_below_foretunes_that_apply_replaces_is_listed(tmp_path: Path) -> None:
    # custom-hiera.yaml pins 6 Puma workers and 5 threads: custom-hiera wins over the installer options
    # (fi-hiera-precedence), so the set removes the keys and passes the options. Never silently: each replaced site
    # value is listed with the value that takes its place: 12 workers, the top of the guide's medium range 8-12, and
    # 16 threads (gf-puma-recommendations).
    root = _tree(tmp_path)
    (root / HIERA).write_text("# puma: tested in CHG0040001, keep 6 workers\nforeman::foreman_service_puma_workers: 6\n"
                              "foreman::foreman_service_puma_threads_max: 5\n", encoding="utf-8")
    result = run_cli("apply", "--root", str(root))
    assert result.status == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "the site's" in line]
    assert len(lines) == 2, lines
    assert lines[0].startswith("replaces the site's 6: --foreman-foreman-service-puma-workers 12 (")
    assert lines[0].endswith("; foreman::foreman_service_puma_workers goes from custom-hiera.yaml")
    assert lines[1].startswith("replaces the site's 5: --foreman-foreman-service-puma-threads-max 16 (")
    assert lines[1].endswith("; foreman::foreman_service_puma_threads_max goes from custom-hiera.yaml")


def test_a_tuned_profile_on_a_box_where_tuned_is_not_running_says_how_to_start_it_and_stays_pending(tmp_path: Path) -> None:
    # the example's sosreport: tuned-adm active says it cannot talk to the TuneD daemon. Writing active_profile alone
    # changes nothing until tuned starts: apply says to start it and run tuned-adm; verify says pending, with that step.
    root = tmp_path / "box"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][6]]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0, result.stderr
    assert ("then: `systemctl enable --now tuned && tuned-adm profile throughput-performance` (tuned reads "
            "/etc/tuned/active_profile only when it starts; tuned-adm puts the profile in force now)") in result.stdout
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1 and _states(result.stdout) == {"tuned.profile": "pending"}
    assert ("tuned is not running: `systemctl enable --now tuned && tuned-adm profile throughput-performance` puts the "
            "profile in force") in result.stdout


def test_an_unreadable_answers_file_is_refused_in_one_line(tmp_path: Path) -> None:
    # the answers file holds site values apply must not lower silently, and the installer cannot run with it either
    root = tmp_path / "box"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    (root / "etc/foreman-installer/scenarios.d/satellite-answers.yaml").write_text("{{{ not yaml\n", encoding="utf-8")
    result = run_cli("apply", "--root", str(root))
    assert result.status == 2, result.stderr
    assert result.stderr.splitlines()[-1].startswith(
        "foretune: error: etc/foreman-installer/scenarios.d/satellite-answers.yaml: not valid YAML")
    assert result.stderr.endswith(": the installer cannot read it either; fix it before applying\n")
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_a_vhost_include_file_is_edited_only_where_httpd_reads_it(tmp_path: Path) -> None:
    # Satellite 6.2's KeepAlive edits go to 05-foreman-ssl.d/katello.conf, which httpd reads only through the vhost's
    # IncludeOptional of that directory, and where the vhost does not set the directive again after it (the last
    # one in the vhost wins). The satellite-6.2 fixture's vhost includes no 05-foreman-ssl.d/: listed, not written.
    root = tmp_path / "s62"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    vhost = root / "etc/httpd/conf.d/05-foreman-ssl.conf"
    katello = root / "etc/httpd/conf.d/05-foreman-ssl.d/katello.conf"
    keep = {"release": "Satellite 6.2", "changes": [
        {"tunable": "apache.keepalive", "channel": "file", "target": "/etc/httpd/conf.d/05-foreman-ssl.d/katello.conf",
         "value": "KeepAlive On", "effect": "restart", "units": ["httpd"]}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, keep), "--write")
    assert ("not applied: apache.keepalive: cannot take effect: /etc/httpd/conf.d/05-foreman-ssl.conf includes no "
            "/etc/httpd/conf.d/05-foreman-ssl.d/, so httpd never reads /etc/httpd/conf.d/05-foreman-ssl.d/katello.conf") in result.stderr
    assert not katello.exists()
    _edit(root, "etc/httpd/conf.d/05-foreman-ssl.conf", "</VirtualHost>",
          '  IncludeOptional "/etc/httpd/conf.d/05-foreman-ssl.d/*.conf"\n  KeepAlive Off\n</VirtualHost>')
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, keep), "--write")
    assert ("cannot take effect: /etc/httpd/conf.d/05-foreman-ssl.conf sets 'KeepAlive Off' after its include of "
            "/etc/httpd/conf.d/05-foreman-ssl.d/, which wins") in result.stderr
    assert not katello.exists()
    _edit(root, "etc/httpd/conf.d/05-foreman-ssl.conf", "  KeepAlive Off\n", "")
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, keep), "--write")
    assert result.status == 0, result.stderr
    assert katello.read_text(encoding="utf-8") == "KeepAlive On\n"
    assert "IncludeOptional" in vhost.read_text(encoding="utf-8")


def test_a_password_in_dsn_goes_to_psql_in_its_environment_not_on_its_command_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # psql's command line is readable by every local user (ps, /proc/PID/cmdline): the conninfo psql gets has no
    # password; PGPASSWORD carries it
    from foretune import pg
    from foretune.apply.host import Host

    calls: list[tuple[str, dict[str, str]]] = []
    monkeypatch.setattr(pg, "run_psql", lambda conninfo, sql, *, environ, **_: calls.append((conninfo, dict(environ))) or [])
    Host(str(tmp_path), "host=/tmp user=postgres password=Secr3tDsnPw dbname=postgres", {"PATH": "/usr/bin"}).psql("SELECT 1")
    [(conninfo, environ)] = calls
    assert conninfo == "host=/tmp user=postgres dbname=postgres"
    assert environ["PGPASSWORD"] == "Secr3tDsnPw"


def test_the_prometheus_file_is_readable_by_node_exporter_whatever_the_umask(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    sysctl = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][5]]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write").status == 0
    prom = tmp_path / "foretune.prom"
    old = os.umask(0o077)
    try:
        run_cli("verify", "--root", str(root), "--prometheus", str(prom))
    finally:
        os.umask(old)
    assert stat.S_IMODE(prom.stat().st_mode) & 0o444 == 0o444


def test_apply_says_to_reload_systemd_and_restart_for_the_drop_ins_it_writes(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][4]]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one))
    assert ("then: `systemctl daemon-reload && systemctl restart httpd.service` (systemd reads the drop-ins only after "
            "daemon-reload, the service on its restart)") in result.stdout.splitlines()


def test_values_puma_reads_at_start_are_pending_while_the_running_puma_predates_the_rendered_configuration(
        tmp_path: Path) -> None:
    # applied: 16 threads and a pool of 20. The installer rendered them (installer.conf, database.yml) with 18 workers,
    # but pumactl stats still shows the 24 workers of the Puma that ran before: it has not restarted, so its threads
    # and its pool (read when it starts) are the old ones. Pending until pumactl stats shows the rendered workers.
    root = _tree(tmp_path)
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "foreman.db_pool", "channel": "installer", "target": "--foreman-db-pool", "value": 20},
        CHANGES["changes"][5]]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    _edit(root, "etc/systemd/system/foreman.service.d/installer.conf", "FOREMAN_PUMA_WORKERS=24", "FOREMAN_PUMA_WORKERS=18")
    database = (root / "etc/foreman/database.yml").read_text(encoding="utf-8")
    (root / "etc/foreman/database.yml").write_text(re.sub(r"pool: *\d+", "pool: 20", database), encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout)["foreman.db_pool"] == "pending", result.stdout
    assert "started before the configuration the installer rendered (18 workers)" in result.stdout
    _edit(root, "sos_commands/foreman/pumactl_stats", '"workers": 24, "phase": 0, "booted_workers": 24',
          '"workers": 18, "phase": 0, "booted_workers": 18')
    assert _states(run_cli("verify", "--root", str(root)).stdout)["foreman.db_pool"] == "in force"


def test_a_custom_hiera_key_removed_for_an_installer_option_is_in_force_once_the_option_is(tmp_path: Path) -> None:
    # custom-hiera's foreman::db_pool 5 would win over --foreman-db-pool 20: the set removes it. Both wait for the
    # installer run; once database.yml renders pool 20 (the running Puma agrees with installer.conf), both are in force
    # and verify can exit 0 (a removal must not stay pending for ever)
    root = _tree(tmp_path)
    hiera = root / "etc/foreman-installer/custom-hiera.yaml"
    hiera.write_text(hiera.read_text(encoding="utf-8") + "foreman::db_pool: 5\n", encoding="utf-8")
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "unshadow:foreman::db_pool", "channel": "custom-hiera", "target": "foreman::db_pool", "op": "remove",
         "file": "/etc/foreman-installer/custom-hiera.yaml", "effect": "installer-run"},
        {"tunable": "foreman.db_pool", "channel": "installer", "target": "--foreman-db-pool", "value": 20}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    pending = run_cli("verify", "--root", str(root))
    assert pending.status == 1 and _states(pending.stdout) == {"unshadow:foreman::db_pool": "pending",
                                                                "foreman.db_pool": "pending"}, pending.stdout
    database = (root / "etc/foreman/database.yml").read_text(encoding="utf-8")
    (root / "etc/foreman/database.yml").write_text(re.sub(r"pool: *\d+", "pool: 20", database), encoding="utf-8")
    done = run_cli("verify", "--root", str(root))
    assert _states(done.stdout) == {"unshadow:foreman::db_pool": "in force", "foreman.db_pool": "in force"}, done.stdout
    assert done.status == 0


def test_the_undo_hint_is_a_command_a_shell_takes_as_it_stands(tmp_path: Path) -> None:
    root = tmp_path / "sp ace" / "host"
    shutil.copytree(FIXTURE, root, symlinks=True)
    one = {"release": "Satellite 6.15", "changes": [CHANGES["changes"][5]]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0, result.stderr
    [run] = _runs(root)
    assert f"(undo: foretune apply --rollback {run} --root '{root}')" in result.stderr


# --- stale PostgreSQL settings, stale custom-hiera keys (issue 22, stop 30's missing items) ----------------------

AUTO_HEAD = "# Do not edit this file manually!\n# It will be overwritten by the ALTER SYSTEM command.\n"
STALE_AUTO = "stale:/var/lib/pgsql/data/postgresql.auto.conf:checkpoint_segments"


def test_a_stale_checkpoint_segments_in_postgresql_auto_conf_is_taken_out_and_verified(tmp_path: Path) -> None:
    # satellite-6.15 runs PostgreSQL 12, which no longer knows checkpoint_segments (pg-release-95-wal-size) and refuses
    # to start with it. ALTER SYSTEM RESET refuses the unknown name as well (the real server below), so the line is
    # taken out of postgresql.auto.conf as a file edit; it is in force once PostgreSQL has started after the run.
    root = _tree(tmp_path)
    auto = root / AUTO
    auto.write_text(auto.read_text(encoding="utf-8") + "checkpoint_segments = '32'\n", encoding="utf-8")
    shown = run_cli("apply", "--root", str(root))
    assert shown.status == 0, shown.stderr
    assert "-checkpoint_segments = '32'\n" in shown.stdout
    assert "needs a restart: max_connections, checkpoint_segments take effect when postgresql restarts" in shown.stdout
    assert run_cli("apply", "--root", str(root), "--write").status == 0
    assert auto.read_text(encoding="utf-8") == AUTO_HEAD + "random_page_cost = '1.1'\n"
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    [stale] = [c for c in journal["changes"] if c["tunable"] == STALE_AUTO]
    assert (stale["channel"], stale["op"], stale["target"]) == ("file", "remove", "/var/lib/pgsql/data/postgresql.auto.conf")
    assert "ALTER SYSTEM RESET refuses a name PostgreSQL does not know" in stale["reason"]
    result = run_cli("verify", "--root", str(root), "--format", "json")
    states = {c["change"]["tunable"]: c["state"] for c in json.loads(result.stdout)["changes"]}
    assert states[STALE_AUTO] == "pending"
    _postmaster_pid(root, journal["epoch"] + 60)  # PostgreSQL started after the run: it started without the line
    result = run_cli("verify", "--root", str(root), "--format", "json")
    states = {c["change"]["tunable"]: c["state"] for c in json.loads(result.stdout)["changes"]}
    assert states[STALE_AUTO] == "in force"
    auto.write_text(auto.read_text(encoding="utf-8") + "checkpoint_segments = 32\n", encoding="utf-8")  # back again
    result = run_cli("verify", "--root", str(root), "--format", "json")
    [check] = [c for c in json.loads(result.stdout)["changes"] if c["change"]["tunable"] == STALE_AUTO]
    assert check["state"] == "drift" and check["why"].startswith("/var/lib/pgsql/data/postgresql.auto.conf has it again")


def test_a_real_postgresql_refuses_checkpoint_segments_and_starts_once_apply_has_taken_it_out(
        tmp_path: Path, pg: pgcluster.Cluster) -> None:
    import subprocess

    from foretune.errors import InputError
    from foretune.pg import run_psql

    dsn = pg.conninfo + " dbname=postgres"
    with pytest.raises(InputError, match='unrecognized configuration parameter "checkpoint_segments"'):
        run_psql(dsn, "ALTER SYSTEM RESET checkpoint_segments", environ=dict(os.environ))
    server_auto = pg.datadir / "postgresql.auto.conf"
    server_auto.write_text(server_auto.read_text(encoding="utf-8") + "checkpoint_segments = '32'\n", encoding="utf-8")
    with pytest.raises(subprocess.CalledProcessError):  # PostgreSQL 9.5+ does not start with it
        pgcluster.restart(pg)
    root = tmp_path / "host"
    (root / "var/lib/pgsql/data").mkdir(parents=True)
    for name in ("PG_VERSION", "postgresql.conf", "postgresql.auto.conf"):
        shutil.copyfile(pg.datadir / name, root / "var/lib/pgsql/data" / name)
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": STALE_AUTO, "channel": "file", "target": "/var/lib/pgsql/data/postgresql.auto.conf",
         "value": "checkpoint_segments = '32'", "op": "remove", "effect": "restart", "units": ["postgresql"]}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    shutil.copyfile(root / "var/lib/pgsql/data/postgresql.auto.conf", server_auto)
    pgcluster.restart(pg)  # starts again
    assert _show(pg, "max_wal_size") == "1GB"  # PostgreSQL's default (pg-conf-defaults)


def test_a_removed_stale_custom_hiera_key_is_in_force_once_gone_not_pending_for_ever(tmp_path: Path) -> None:
    # satellite-6.15's custom-hiera.yaml sets apache::mod::event::maxrequestsperchild, a key the release ignores
    # (stale-hiera.yaml, since 3.8): nothing reads it, so once it is gone from the file nothing waits for an installer run
    root = _tree(tmp_path)
    assert run_cli("apply", "--root", str(root), "--write").status == 0
    assert "maxrequestsperchild" not in (root / HIERA).read_text(encoding="utf-8")
    result = run_cli("verify", "--root", str(root), "--format", "json")
    states = {c["change"]["tunable"]: c["state"] for c in json.loads(result.stdout)["changes"]}
    assert states["stale:apache::mod::event::maxrequestsperchild"] == "in force"


def test_an_older_run_is_not_rolled_back_under_a_later_one_unless_forced(tmp_path: Path) -> None:
    # run 1 sets fs.aio-max-nr 1048576, run 2 raises it to 2097152 in the same file. Rolling back run 1 alone would put
    # the file before run 1 back and silently undo run 2: refused in one line, exit 2, nothing touched. Run 2 first,
    # then run 1, restores the file byte for byte; --force does it at once, over run 2.
    sysctl = "etc/sysctl.d/90-foretune.conf"

    def one(value: int) -> dict:  # type: ignore[type-arg]
        return {"release": "Satellite 6.15", "changes": [
            {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": value, "effect": "sysctl-reload"}]}

    for forced in (False, True):
        root = _tree(tmp_path / str(forced))
        before = _files(root)
        assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one(1048576)), "--write").status == 0
        assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one(2097152)), "--write").status == 0
        first, second = _runs(root)
        assert (root / sysctl).read_text(encoding="utf-8") == "fs.aio-max-nr = 2097152\n"
        if not forced:
            refused = run_cli("apply", "--root", str(root), "--rollback", first)
            assert refused.status == 2 and refused.stderr.count("\n") == 1, refused.stderr
            assert (f"run {second} was applied after run {first} and is not rolled back: roll back {second} first "
                    f"(`foretune apply --rollback {second} --root {root}`), or add --force to roll it back first, "
                    "newest first") in refused.stderr
            assert (root / sysctl).read_text(encoding="utf-8") == "fs.aio-max-nr = 2097152\n"
            assert run_cli("apply", "--root", str(root), "--rollback", second).status == 0
            assert (root / sysctl).read_text(encoding="utf-8") == "fs.aio-max-nr = 1048576\n"
        result = run_cli("apply", "--root", str(root), "--rollback", first, *(["--force"] if forced else []))
        assert result.status == 0, result.stderr
        assert _files(root) == before
    assert run_cli("apply", "--root", str(root), "--force").status == 2  # --force only goes with --rollback


def test_included_postgresql_files_and_drop_ins_of_run_and_usr_lib_are_in_the_shadow_check(tmp_path: Path) -> None:
    # satellite-6.15 plus three places that win over what the installer writes (each by hand, with its citation):
    # - postgresql.conf ends with include_dir 'conf.d', whose 90-site.conf sets work_mem = 2MB after postgresql.conf's
    #   own line (pg-config-includes: the last entry wins): its work_mem line goes, its other setting stays;
    # - /usr/lib/systemd/system/foreman.service.d/zz-vendor.conf sets FOREMAN_PUMA_WORKERS=4 and sorts after
    #   installer.conf (systemd-dropin-dirs: one lexical order whatever the directory): a drop-in of the same name in
    #   /etc hides it, keeping its Nice=5; the package's file is left as it is;
    # - /run/systemd/system/httpd.service.d/zz-run.conf sets LimitNOFILE=4096 after limits.conf: hidden the same way.
    # The /etc override.conf (Puma threads) still goes too: every drop-in after installer.conf, not only the last.
    root = _tree(tmp_path)
    site = include_conf_d(root, "90-site.conf", "log_min_messages = warning\nwork_mem = 2MB\n")
    vendor = root / "usr/lib/systemd/system/foreman.service.d/zz-vendor.conf"
    vendor.parent.mkdir(parents=True)
    vendor.write_text("[Service]\nNice=5\nEnvironment=FOREMAN_PUMA_WORKERS=4\n", encoding="utf-8")
    _edit(root, "sos_commands/systemd/systemctl_show_service_--all", "FOREMAN_PUMA_WORKERS=24", "FOREMAN_PUMA_WORKERS=4")  # loaded
    run = root / "run/systemd/system/httpd.service.d/zz-run.conf"
    run.parent.mkdir(parents=True)
    run.write_text("[Service]\nLimitNOFILE=4096\n", encoding="utf-8")
    httpd_override = root / "etc/systemd/system/httpd.service.d/override.conf"  # LimitNOFILE=2048, also after limits.conf
    httpd_override.parent.mkdir(parents=True)
    httpd_override.write_text("[Service]\nLimitNOFILE=2048\n", encoding="utf-8")
    assert run_cli("apply", "--root", str(root), "--write").status == 0
    assert not httpd_override.exists()  # every drop-in after limits.conf with a lower limit, not only the last
    assert site.read_text(encoding="utf-8") == "log_min_messages = warning\n"
    hides = (root / "etc/systemd/system/foreman.service.d/zz-vendor.conf").read_text(encoding="utf-8")
    assert hides.startswith("# foretune: hides /usr/lib/systemd/system/foreman.service.d/zz-vendor.conf (")
    assert hides.endswith("\n[Service]\nNice=5\n") and "FOREMAN_PUMA_WORKERS" not in hides.split("\n", 1)[1]
    assert vendor.read_text(encoding="utf-8") == "[Service]\nNice=5\nEnvironment=FOREMAN_PUMA_WORKERS=4\n"
    hides = (root / "etc/systemd/system/httpd.service.d/zz-run.conf").read_text(encoding="utf-8")
    assert hides.startswith("# foretune: hides /run/systemd/system/httpd.service.d/zz-run.conf (")
    assert hides.endswith("\n[Service]\n")
    assert not (root / OVERRIDE).exists()
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    tunables = {c["tunable"] for c in journal["changes"]}
    assert {"unshadow:/var/lib/pgsql/data/conf.d/90-site.conf:work_mem",
            "remove:dropin:/usr/lib/systemd/system/foreman.service.d/zz-vendor.conf",
            "remove:dropin:/run/systemd/system/httpd.service.d/zz-run.conf",
            "remove:dropin:/etc/systemd/system/foreman.service.d/override.conf"} <= tunables, tunables
    result = run_cli("verify", "--root", str(root), "--format", "json")
    checks = {c["change"]["tunable"]: c for c in json.loads(result.stdout)["changes"]}
    assert checks["remove:dropin:/usr/lib/systemd/system/foreman.service.d/zz-vendor.conf"]["state"] == "pending"
    assert "zz-vendor.conf" not in checks["puma.workers"]["why"]  # hidden now: not a drift
    (root / "etc/systemd/system/foreman.service.d/zz-vendor.conf").unlink()  # the hiding file gone: shadowed again
    result = run_cli("verify", "--root", str(root), "--format", "json")
    checks = {c["change"]["tunable"]: c for c in json.loads(result.stdout)["changes"]}
    assert checks["remove:dropin:/usr/lib/systemd/system/foreman.service.d/zz-vendor.conf"]["state"] == "drift"


def test_the_rhel7_scl_data_directory_is_the_one_read_and_written_even_beside_the_old_one(tmp_path: Path) -> None:
    # Satellite 6.9 on RHEL 7 runs the SCL's PostgreSQL 12 from /var/opt/rh/rh-postgresql12/lib/pgsql/data; the upgrade
    # to it (foreman-installer hooks/pre/30-el7_upgrade_postgresql.rb, postgresql-setup --upgrade) leaves PostgreSQL
    # 9.2's /var/lib/pgsql/data behind. ALTER SYSTEM's max_connections = '200' in the SCL's postgresql.auto.conf wins
    # over the 1000 of its postgresql.conf: apply resets it there, the old directory is left alone, and verify reads
    # the SCL's postmaster.pid.
    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.9", root, symlinks=True)
    scl = root / "var/opt/rh/rh-postgresql12/lib/pgsql/data"
    (scl / "postgresql.auto.conf").write_text(AUTO_HEAD + "max_connections = '200'\n", encoding="utf-8")
    old = root / "var/lib/pgsql/data"
    old.mkdir(parents=True)
    (old / "PG_VERSION").write_text("9.2\n", encoding="utf-8")
    (old / "postgresql.conf").write_text("max_connections = 500\nshared_buffers = 256MB\n", encoding="utf-8")
    old_files = _files(old)
    shown = run_cli("apply", "--root", str(root))
    assert shown.status == 0, shown.stderr
    assert f"--- {scl}/postgresql.auto.conf (current)\n" in shown.stdout and "-max_connections = '200'\n" in shown.stdout
    assert "var/lib/pgsql/data/postgresql" not in shown.stdout.replace("rh-postgresql12/lib/pgsql/data", "")
    assert run_cli("apply", "--root", str(root), "--write").status == 0
    assert (scl / "postgresql.auto.conf").read_text(encoding="utf-8") == AUTO_HEAD
    assert _files(old) == old_files
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    [reset] = [c for c in journal["changes"] if c["tunable"] == "reset:postgresql:max_connections"]
    assert reset["file"] == "/var/opt/rh/rh-postgresql12/lib/pgsql/data/postgresql.auto.conf"
    result = run_cli("verify", "--root", str(root), "--format", "json")
    [check] = [c for c in json.loads(result.stdout)["changes"] if c["change"]["tunable"] == "reset:postgresql:max_connections"]
    assert check["state"] == "pending"
    assert "no /var/opt/rh/rh-postgresql12/lib/pgsql/data/postmaster.pid tells when it started" in check["why"]
    (scl / "postmaster.pid").write_text(f"2301\n/var/opt/rh/rh-postgresql12/lib/pgsql/data\n{journal['epoch'] + 60}\n5432\n",
                                        encoding="utf-8")
    result = run_cli("verify", "--root", str(root), "--format", "json")
    [check] = [c for c in json.loads(result.stdout)["changes"] if c["change"]["tunable"] == "reset:postgresql:max_connections"]
    assert check["state"] == "in force", check


def test_the_rhel7_scl_postgresql_is_restarted_by_its_own_unit_name(tmp_path: Path) -> None:
    # Satellite 6.9 on RHEL 7: the source lists `rh-postgresql12-postgresql.service` (systemctl list-units) and no
    # postgresql.service, and PostgreSQL's data directory is /var/opt/rh/rh-postgresql12/lib/pgsql/data. ALTER SYSTEM's
    # max_connections = '200' goes, and max_connections is read only at start: every restart apply, APPLY.md and
    # verify name is `systemctl restart rh-postgresql12-postgresql`; `systemctl restart postgresql` would fail with
    # "Unit postgresql.service not found" (acceptance D7).
    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.9", root, symlinks=True)
    scl = root / "var/opt/rh/rh-postgresql12/lib/pgsql/data"
    (scl / "postgresql.auto.conf").write_text(AUTO_HEAD + "max_connections = '200'\n", encoding="utf-8")
    shown = run_cli("apply", "--root", str(root))
    assert shown.status == 0, shown.stderr
    assert "`systemctl restart rh-postgresql12-postgresql`" in shown.stdout
    assert "systemctl restart postgresql" not in shown.stdout
    out = tmp_path / "bundle"
    assert run_cli("plan", "--from", str(root), "--output-dir", str(out)).status == 0
    apply_md = (out / "APPLY.md").read_text(encoding="utf-8")
    assert "`systemctl restart rh-postgresql12-postgresql` (or `foreman-maintain service restart`)" in apply_md
    assert "systemctl restart postgresql" not in apply_md
    assert run_cli("apply", "--root", str(root), "--write").status == 0
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    [reset] = [c for c in journal["changes"] if c["tunable"] == "reset:postgresql:max_connections"]
    assert reset["units"] == ["rh-postgresql12-postgresql"]
    verified = run_cli("verify", "--root", str(root))
    assert "restart rh-postgresql12-postgresql" in verified.stdout, verified.stdout
    assert "restart postgresql" not in verified.stdout


def test_an_environment_file_that_sets_pumas_environment_is_detected_as_shadowing(tmp_path: Path) -> None:
    # satellite-6.15 plus foreman.service.d/10-env.conf `EnvironmentFile=-/etc/sysconfig/foreman-puma`, which sets
    # FOREMAN_PUMA_WORKERS=30. Though 10-env.conf sorts before installer.conf, variables read from an EnvironmentFile=
    # win over every Environment= line (systemd-environment-file): the installer's worker count never takes effect.
    # apply takes the Puma line out of that file (MALLOC_ARENA_MAX stays); verify calls it drift if it comes back.
    root = _tree(tmp_path)
    env = root / "etc/sysconfig/foreman-puma"
    env.parent.mkdir(parents=True, exist_ok=True)
    env.write_text("# site\nFOREMAN_PUMA_WORKERS=30\nMALLOC_ARENA_MAX=2\n", encoding="utf-8")
    (root / "etc/systemd/system/foreman.service.d/10-env.conf").write_text(
        "[Service]\nEnvironmentFile=-/etc/sysconfig/foreman-puma\n", encoding="utf-8")
    assert run_cli("facts", str(root), "--only", "puma", "--format", "json").stdout.count('"workers": 30') == 1
    shown = run_cli("apply", "--root", str(root))
    assert "-FOREMAN_PUMA_WORKERS=30\n" in shown.stdout, shown.stdout
    assert run_cli("apply", "--root", str(root), "--write").status == 0
    assert env.read_text(encoding="utf-8") == "# site\nMALLOC_ARENA_MAX=2\n"
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    [change] = [c for c in journal["changes"] if c["tunable"] == "unshadow:/etc/sysconfig/foreman-puma:FOREMAN_PUMA_WORKERS"]
    assert (change["channel"], change["op"], change["citations"]) == ("file", "remove", ["systemd-environment-file"])
    env.write_text("FOREMAN_PUMA_WORKERS=30\n", encoding="utf-8")  # a colleague puts it back
    result = run_cli("verify", "--root", str(root), "--format", "json")
    checks = {c["change"]["tunable"]: c for c in json.loads(result.stdout)["changes"]}
    assert checks["unshadow:/etc/sysconfig/foreman-puma:FOREMAN_PUMA_WORKERS"]["state"] == "drift"
    assert checks["puma.workers"]["state"] == "drift", checks["puma.workers"]
    assert ("/etc/sysconfig/foreman-puma sets FOREMAN_PUMA_WORKERS=30, read through EnvironmentFile= in "
            "/etc/systemd/system/foreman.service.d/10-env.conf") in checks["puma.workers"]["why"]


def test_a_thp_change_says_when_the_tuned_profile_turns_thp_back_on(tmp_path: Path) -> None:
    # tuned 2.1-2.4 (redhat-performance/tuned v2.3.0, profiles/throughput-performance/tuned.conf) set [vm]
    # transparent_hugepages=always in throughput-performance, which virtual-guest includes; tuned writes it back when
    # it applies the profile, and ignores it only once the kernel's boot line has transparent_hugepage= (plugin_vm.py).
    # The set for satellite-6.15 (a VM: virtual-guest, THP never) says so, with THP set after the tuned step.
    # From v2.5.0 on neither profile sets THP (x86): nothing to say.
    def tree(name: str, thp: str) -> Path:
        root = _tree(tmp_path / name)
        for profile, text in (("virtual-guest", "[main]\ninclude=throughput-performance\n\n[sysctl]\nvm.dirty_ratio = 30\n"),
                              ("throughput-performance", f"[main]\nsummary=Broadly applicable tuning\n\n[cpu]\ngovernor=performance\n{thp}")):
            (root / "usr/lib/tuned" / profile).mkdir(parents=True)
            (root / "usr/lib/tuned" / profile / "tuned.conf").write_text(text, encoding="utf-8")
        return root

    result = run_cli("apply", "--root", str(tree("old", "\n[vm]\ntransparent_hugepages=always\n")))
    assert result.status == 0, result.stderr
    lines = result.stdout.splitlines()
    said = [n for n, line in enumerate(lines) if line.startswith("keep in mind: transparent huge pages and tuned's virtual-guest: "
                                                                 "/usr/lib/tuned/throughput-performance/tuned.conf sets "
                                                                 "transparent_hugepages=always in [vm]")]
    assert len(said) == 1, result.stdout
    tuned = next(n for n, line in enumerate(lines) if "tuned-adm profile virtual-guest" in line)
    thp = lines.index("by hand: echo never > /sys/kernel/mm/transparent_hugepage/enabled")
    assert tuned < thp < said[0]
    result = run_cli("apply", "--root", str(tree("new", "")))
    assert "keep in mind: transparent huge pages" not in result.stdout
    assert "by hand: echo never > /sys/kernel/mm/transparent_hugepage/enabled" in result.stdout


def test_no_puma_worker_raise_on_a_box_that_swaps_now(tmp_path: Path) -> None:
    # satellite-6.15 running 4 Puma workers (installer.conf and pumactl stats), the plan's medium range giving 12, on a
    # box that swaps now: SwapTotal 8388604 kB, SwapFree 4000000 kB (4.2 GiB in use), MemAvailable 3000000 kB of
    # MemTotal 66924544 kB (2.9 of 63.8 GiB, under the 10 % the swap-in-use rule calls pressure). Each worker takes
    # about 1 GiB (gf-puma-autotuning): the raise is not applied and the installer command leaves the workers alone.
    # With MemAvailable at 22308181 kB (the fixture's, 33 %) the same swap is pages parked earlier: the raise goes on.
    def tree(name: str, available_kb: int) -> Path:
        root = _tree(tmp_path / name)
        _edit(root, "etc/systemd/system/foreman.service.d/installer.conf", "FOREMAN_PUMA_WORKERS=24", "FOREMAN_PUMA_WORKERS=4")
        _edit(root, "sos_commands/foreman/pumactl_stats", '"workers": 24', '"workers": 4')
        _edit(root, "proc/meminfo", "MemAvailable:   22308181 kB", f"MemAvailable:   {available_kb} kB")
        _edit(root, "proc/meminfo", "SwapFree:        8120316 kB", "SwapFree:        4000000 kB")
        return root

    result = run_cli("apply", "--root", str(tree("swapping", 3000000)))
    assert result.status == 0, result.stderr
    assert ("not applied: puma.workers: the box swaps now (4.2 GiB of 8.0 GiB swap in use, only 2.9 GiB of 63.8 GiB "
            "available): 4 -> 12 Puma workers needs about 8 GiB more (the guide: \"Each Puma worker consumes around 1 GiB "
            "of RAM.\"); free memory first, then raise the workers") in result.stderr
    assert "--foreman-foreman-service-puma-workers" not in result.stdout
    result = run_cli("apply", "--root", str(tree("parked", 22308181)))
    assert "--foreman-foreman-service-puma-workers 12" in result.stdout and "the box swaps now" not in result.stderr


def test_apply_audit_takes_waivers_as_audit_does(tmp_path: Path) -> None:
    # satellite-6.15's audit asks, among others, for httpd's LimitNOFILE 640000 (httpd-nofile-low) and work_mem 8MB
    # (pg-work-mem-low). Waived, neither is in the change set; an expired waiver is said and does not apply.
    root = _tree(tmp_path)
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- {rule: httpd-nofile-low, reason: the site raised it by other means}\n"
                       "- {rule: pg-work-mem-low, reason: reporting queries sized by hand, expires: 2099-01-01}\n"
                       "- {rule: puma-workers-outside-range, reason: old, expires: 2020-01-01}\n", encoding="utf-8")
    plain = run_cli("apply", "--root", str(root), "--audit")
    assert "+LimitNOFILE=640000\n" in plain.stdout and "+  work_mem: 8MB\n" in plain.stdout
    waived = run_cli("apply", "--root", str(root), "--audit", "--waivers", str(waivers))
    assert waived.status == 0, waived.stderr
    assert "LimitNOFILE" not in waived.stdout and "work_mem" not in waived.stdout
    assert "--foreman-foreman-service-puma-workers 12" in waived.stdout  # the expired waiver does not apply
    assert "waiver for puma-workers-outside-range expired on 2020-01-01" in waived.stderr
    refused = run_cli("apply", "--root", str(root), "--waivers", str(waivers))
    assert refused.status == 2 and "--waivers goes with --audit" in refused.stderr and refused.stderr.count("\n") == 1


def test_root_accepts_a_plain_tree_that_is_not_a_sosreport(tmp_path: Path) -> None:
    # a mounted image or a copy of /etc and /var: the satellite-6.15 fixture without sos_commands/, sos_reports/,
    # version.txt and installed-rpms. Without a package list the release is unknown: one line says what to give;
    # with --product/--version and the box's size the change set is planned from the tree's files and verified there.
    root = _tree(tmp_path)
    for name in ("sos_commands", "sos_reports"):
        shutil.rmtree(root / name)
    for name in ("version.txt", "installed-rpms"):
        (root / name).unlink()
    bare = run_cli("apply", "--root", str(root))
    assert bare.status == 2 and bare.stderr.count("\n") == 1, bare.stderr
    assert "lists no installed packages (a plain tree, not a sosreport): give --product and --version" in bare.stderr
    size = ("--product", "satellite", "--version", "6.15", "--cpus", "16", "--ram", "64G", "--hosts", "15000")
    result = run_cli("apply", "--root", str(root), *size, "--write")
    assert result.status == 0, result.stderr
    assert "foreman::foreman_service_puma_workers" not in (root / HIERA).read_text(encoding="utf-8")  # an installer option
    assert not (root / OVERRIDE).exists()  # the tree's hand-made drop-in, read from its files, goes
    verified = run_cli("verify", "--root", str(root))
    assert verified.status == 1 and "pending" in verified.stdout, verified.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = run_cli("apply", "--root", str(empty), *size)
    assert refused.status == 2 and "is not a host's tree: no etc/, var/ or sos_commands/ inside" in refused.stderr


def test_the_profile_is_in_force_only_when_the_rendered_values_are_the_profiles(tmp_path: Path) -> None:
    # satellite-6.15-profile-too-small: the set moves medium -> large. The scenario file saying `tuning: large` is not
    # enough: foreman-installer 3.9.0's sizes/large.yaml gives shared_buffers 8GB, and postgresql.conf still has the
    # medium 4GB, so the installer run has not rendered the profile: pending, saying so. Once postgresql.conf has
    # 8GB (and the rest of large.yaml: max_connections 1000, effective_cache_size 16GB, as the fixture has), in force.
    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.15-profile-too-small", root, symlinks=True)
    assert run_cli("apply", "--root", str(root), "--write").status == 0

    def profile() -> dict:  # type: ignore[type-arg]
        result = run_cli("verify", "--root", str(root), "--format", "json")
        return next(c for c in json.loads(result.stdout)["changes"] if c["change"]["tunable"] == "profile")

    assert profile()["state"] == "pending" and "still gives 'medium'" in profile()["why"]
    _edit(root, "etc/foreman-installer/scenarios.d/satellite.yaml", "  tuning: medium", "  tuning: large")
    check = profile()
    assert check["state"] == "pending", check
    assert check["why"] == ("the scenario file says tuning large, but the rendered configuration is not the profile's: "
                            "postgresql.conf gives shared_buffers 4GB, not the profile's 8GB: the installer run with "
                            "--tuning large has not completed")
    _edit(root, "var/lib/pgsql/data/postgresql.conf", "shared_buffers = 4GB", "shared_buffers = 8GB")
    assert profile()["state"] == "in force"


@pytest.mark.parametrize("argv", [
    ("plan", "--product", "satellite", "--version", "6.2", "--hosts", "10000", "--cpus", "8", "--ram", "32G"),
    ("plan", "--from", str(REPO / "tests/fixtures/sosreports/satellite-6.2")),
    ("audit", str(REPO / "tests/fixtures/sosreports/satellite-6.2")),
])
def test_a_satellite_62_bundle_never_asks_for_tuning(tmp_path: Path, argv: tuple[str, ...]) -> None:
    # Satellite 6.2 (Foreman 1.11) had no tuning profiles (they came with foreman-installer 1.24 / Satellite 6.7,
    # fi-tuning-profiles): its APPLY.md opens with the installer's own options and no file of the bundle says --tuning
    run_cli(*argv, "--output-dir", str(tmp_path / "out"))
    apply_md = (tmp_path / "out/APPLY.md").read_text(encoding="utf-8")
    steps = [line for line in apply_md.splitlines() if re.match(r"\d+\. ", line)]
    assert steps and "--tuning" not in steps[0]
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file() and "--tuning" in p.read_text(encoding="utf-8")]


def test_a_change_set_file_is_checked_against_what_shadows_it_on_the_tree(tmp_path: Path) -> None:
    # a set planned without this host's files (`plan --output-dir`'s changes.json) lands on satellite-6.15 plus
    # /usr/lib/systemd/system/httpd.service.d/vendor.conf LimitNOFILE=2048 (read after limits.conf: it wins) and a
    # postgresql.auto.conf work_mem = '2MB' (ALTER SYSTEM wins over postgresql.conf): each is said, in one line.
    root = _tree(tmp_path)
    vendor = root / "usr/lib/systemd/system/httpd.service.d/vendor.conf"
    vendor.parent.mkdir(parents=True)
    vendor.write_text("[Service]\nLimitNOFILE=2048\n", encoding="utf-8")
    _edit(root, AUTO, "random_page_cost = '1.1'\n", "random_page_cost = '1.1'\nwork_mem = '2MB'\n")
    sets = {"release": "Satellite 6.15", "changes": [
        CHANGES["changes"][4],
        {"tunable": "postgresql.work_mem", "channel": "custom-hiera", "target": "postgresql::server::config_entries/work_mem",
         "value": "8MB"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sets))
    assert result.status == 0, result.stderr
    assert ("cannot take effect: httpd.limit_nofile: /usr/lib/systemd/system/httpd.service.d/vendor.conf sets "
            "LimitNOFILE=2048 and is read after limits.conf: it wins") in result.stderr
    assert ("cannot take effect: postgresql.work_mem: postgresql.auto.conf sets work_mem = '2MB' (ALTER SYSTEM), which "
            "wins over postgresql.conf: ALTER SYSTEM RESET work_mem first") in result.stderr


def test_a_new_drop_in_that_shadows_again_what_a_removal_cleared_is_drift(tmp_path: Path) -> None:
    # the run removes httpd's override.conf (LimitNOFILE=2048, after limits.conf) and writes LimitNOFILE=640000;
    # later a colleague adds zz-hand.conf with LimitNOFILE=1024, read after limits.conf: the removal is undone in
    # effect, which is drift (with the file), not "pending a daemon-reload"
    root = _tree(tmp_path)
    override = root / "etc/systemd/system/httpd.service.d/override.conf"
    override.parent.mkdir(parents=True)
    override.write_text("[Service]\nLimitNOFILE=2048\n", encoding="utf-8")
    sets = {"release": "Satellite 6.15", "changes": [
        {"tunable": "remove:dropin:/etc/systemd/system/httpd.service.d/override.conf", "channel": "dropin",
         "target": "httpd.service:override.conf", "op": "remove", "effect": "daemon-reload", "units": ["httpd"],
         "file": "/etc/systemd/system/httpd.service.d/override.conf"},
        CHANGES["changes"][4]]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sets), "--write").status == 0
    before = _states(run_cli("verify", "--root", str(root)).stdout)
    assert before["remove:dropin:/etc/systemd/system/httpd.service.d/override.conf"] == "pending"
    (root / "etc/systemd/system/httpd.service.d/zz-hand.conf").write_text("[Service]\nLimitNOFILE=1024\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root), "--format", "json")
    check = next(c for c in json.loads(result.stdout)["changes"]
                 if c["change"]["tunable"] == "remove:dropin:/etc/systemd/system/httpd.service.d/override.conf")
    assert check["state"] == "drift", check
    assert check["why"].startswith("/etc/systemd/system/httpd.service.d/zz-hand.conf sets LimitNOFILE=1024, read after "
                                   "limits.conf: httpd.service's limit is shadowed again")


def test_an_installer_option_whose_rendered_value_is_not_in_the_tree_is_pending_from_the_answers_file(tmp_path: Path) -> None:
    # a plain tree (no package list, no foreman.service.d, no pumactl stats): the Puma workers in force cannot be read,
    # but the answers file's foreman_service_puma_workers 24 says the installer has not run with 18 yet: pending
    root = _tree(tmp_path)
    _edit(root, "etc/foreman-installer/scenarios.d/satellite-answers.yaml", "  db_password: Vq8mXr2LpT6sKn4z\n",
          "  db_password: Vq8mXr2LpT6sKn4z\n  foreman_service_puma_workers: 24\n")
    for name in ("sos_commands", "sos_reports"):
        shutil.rmtree(root / name)
    for name in ("version.txt", "installed-rpms"):
        (root / name).unlink()
    shutil.rmtree(root / "etc/systemd/system/foreman.service.d")
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "puma.workers", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18},
        CHANGES["changes"][5]]}  # a file written, so the run has a journal
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    result = run_cli("verify", "--root", str(root), "--format", "json")
    [check, _] = json.loads(result.stdout)["changes"]
    assert (check["state"], check["found"]) == ("pending", "24"), check
    assert check["why"] == ("the installer's answers file still gives '24': waiting for an installer run (the rendered "
                            "value is not in the source)")


def test_the_audits_removal_of_an_included_line_is_one_file_edit_in_its_change_set(tmp_path: Path) -> None:
    # the audit's pg-work-mem-low finding removes conf.d/90-site.conf's work_mem first (a sed line in its fixes);
    # apply --audit makes it the same file edit as plan's set, not a by-hand command besides it
    root = _tree(tmp_path)
    site = include_conf_d(root, "90-site.conf", "log_min_messages = warning\nwork_mem = 2MB\n")
    result = run_cli("apply", "--root", str(root), "--audit")
    assert result.status == 0, result.stderr
    assert f"--- {site} (current)\n" in result.stdout and "-work_mem = 2MB\n" in result.stdout
    assert "sed -i" not in result.stdout


MERGE_HIERA = """\
pgbase: &pgbase
  work_mem: '24MB'
  max_connections: 400   # DBA: do not raise, pgbouncer in front
postgresql::server::config_entries:
  <<: *pgbase
  shared_buffers: 1GB
"""


def test_a_pin_a_merge_key_brings_in_is_raised_after_it_and_named(tmp_path: Path) -> None:
    # the example's plan moves to the large profile, whose postgresql.pp gives max_connections 1000 and
    # shared_buffers 8GB (satellite-installer config/foreman.hiera/tuning/sizes/large.yaml): both pins go
    root = tmp_path / "sos"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    (root / HIERA).write_text(MERGE_HIERA, encoding="utf-8")
    result = run_cli("apply", "--from", str(root), "--root", str(root), "--write")
    assert result.status == 0, result.stderr
    text = (root / HIERA).read_text(encoding="utf-8")
    # the anchor and the << stay; the new value is an explicit key after the <<, which Psych lets win
    assert "pgbase: &pgbase\n" in text and "  <<: *pgbase\n" in text
    assert text.index("  <<: *pgbase\n") < text.index("  max_connections: 1000\n")
    assert "was written for 400" in text
    assert "shared_buffers" not in text
    assert ("replaces the site's 400 (through <<): postgresql::server::config_entries/max_connections 1000" in result.stdout)
    assert "DBA: do not raise, pgbouncer in front" in result.stdout
    assert "removes the site's postgresql::server::config_entries/shared_buffers: 1GB from custom-hiera.yaml (" in result.stdout
    assert "replaces the site's 1GB" not in result.stdout  # said once (acceptance D8)


def test_plan_output_dir_raises_a_merge_key_pin_after_the_merge_key_and_quotes_its_comment(tmp_path: Path) -> None:
    root = tmp_path / "sos"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    (root / HIERA).write_text(MERGE_HIERA, encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("plan", "--from", str(root), "--output-dir", str(out))
    assert result.status == 0, result.stderr
    text = (out / "custom-hiera.yaml").read_text(encoding="utf-8")
    assert "pgbase: &pgbase\n" in text and "  <<: *pgbase\n" in text
    assert text.index("  <<: *pgbase\n") < text.index("  max_connections: 1000\n")
    assert ("the site's comment there was written for 400: DBA: do not raise, pgbouncer in front") in text


@pytest.mark.parametrize("change", [
    {"tunable": "postgresql.checkpoint_segments", "channel": "custom-hiera",
     "target": "postgresql::server::config_entries/checkpoint_segments", "value": 64},
    {"tunable": "postgresql.entries", "channel": "custom-hiera", "target": "postgresql::server::config_entries",
     "value": {"work_mem": "8MB", "checkpoint_segments": 64}},
    {"tunable": "postgresql.checkpoint_segments", "channel": "alter-system", "target": "checkpoint_segments", "value": 64,
     "effect": "restart", "units": ["postgresql.service"]},
])
def test_a_change_set_file_setting_what_the_hosts_postgresql_refuses_is_refused(tmp_path: Path, change: dict) -> None:  # type: ignore[type-arg]
    # satellite-6.15's PG_VERSION is 12; checkpoint_segments went in PostgreSQL 9.5 (pg-release-95-wal-size) and
    # PostgreSQL refuses to start with it: a reviewed set that writes it is refused in one line, nothing written (D6)
    root = _tree(tmp_path)
    before = _files(root)
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, {"release": "Satellite 6.15", "changes": [change]}),
                     "--write")
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (f"change 1: {change['tunable']}: PostgreSQL 12 (the host's PG_VERSION) no longer has checkpoint_segments "
            "and refuses to start with it [pg-release-95-wal-size]: not applied") in result.stderr
    assert _files(root) == before and _runs(root) == []


def test_a_sysctl_line_read_after_foretunes_is_taken_out_and_verify_names_it_when_it_is_back(tmp_path: Path) -> None:
    # satellite-6.15 with /etc/sysctl.d/95-site.conf fs.aio-max-nr = 65536 and /usr/lib/sysctl.d/99-vendor.conf
    # fs.aio-max-nr = 131072: sysctl --system reads 90-foretune.conf first, then 95-site.conf, then 99-vendor.conf (one
    # order by name whatever the directory; the latest name wins, sysctl-d-order), so foretune's 1048576 would never
    # take effect. Both are below it: apply takes the /etc line out (the site's other line stays) and hides the
    # package's file by a file of the same name in /etc/sysctl.d (a name in /etc hides /run's and /usr/lib's) that
    # carries its other lines, and says both (feedback D2). verify: pending until sysctl --system; the line put back
    # is drift, naming the file that wins.
    root = _tree(tmp_path)
    (root / "etc/sysctl.d").mkdir(exist_ok=True)
    (root / "usr/lib/sysctl.d").mkdir(parents=True, exist_ok=True)
    (root / "etc/sysctl.d/95-site.conf").write_text("fs.aio-max-nr = 65536\nvm.swappiness = 10\n", encoding="utf-8")
    (root / "usr/lib/sysctl.d/99-vendor.conf").write_text("# vendor\nfs.aio-max-nr = 131072\nkernel.pid_max = 4194304\n",
                                                          encoding="utf-8")
    sysctl = {"release": "Satellite 6.15", "changes": [
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576,
         "effect": "sysctl-reload", "file": "/etc/sysctl.d/90-foretune.conf"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write")
    assert result.status == 0, result.stderr
    assert "cannot take effect" not in result.stderr
    assert ("/etc/sysctl.d/95-site.conf sets fs.aio-max-nr = 65536 and is read after 90-foretune.conf (sysctl --system "
            "reads the sysctl.d files in one order by name, /etc/sysctl.conf last; the last wins): the line goes, so that "
            "fs.aio-max-nr = 1048576 takes effect\n") in result.stdout
    assert ("/usr/lib/sysctl.d/99-vendor.conf sets fs.aio-max-nr = 131072 and is read after 90-foretune.conf") in result.stdout
    assert (root / "etc/sysctl.d/95-site.conf").read_text(encoding="utf-8") == "vm.swappiness = 10\n"
    hides = (root / "etc/sysctl.d/99-vendor.conf").read_text(encoding="utf-8").splitlines()
    assert hides[0].startswith("# foretune: hides /usr/lib/sysctl.d/99-vendor.conf (") and hides[1:] == [
        "# vendor", "kernel.pid_max = 4194304"]
    assert (root / "usr/lib/sysctl.d/99-vendor.conf").read_text(encoding="utf-8").count("fs.aio-max-nr") == 1  # as it was
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"kernel.aio_max_nr": "pending", "unshadow:/etc/sysctl.d/95-site.conf:fs.aio-max-nr":
                                      "pending", "unshadow:/usr/lib/sysctl.d/99-vendor.conf:fs.aio-max-nr": "pending"}, result.stdout
    assert "waiting for sysctl --system" in result.stdout
    (root / "etc/sysctl.d/95-site.conf").write_text("vm.swappiness = 10\nfs.aio-max-nr = 65536\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1 and _states(result.stdout)["kernel.aio_max_nr"] == "drift", result.stdout
    assert ("/etc/sysctl.d/95-site.conf sets fs.aio-max-nr = 65536 and is read after 90-foretune.conf: sysctl --system "
            "keeps 65536") in result.stdout
    assert _states(result.stdout)["unshadow:/etc/sysctl.d/95-site.conf:fs.aio-max-nr"] == "drift"
    assert "/etc/sysctl.d/95-site.conf has it again (applied: removed)" in result.stdout


def test_a_later_sysctl_line_above_foretunes_is_kept_unless_asked(tmp_path: Path) -> None:
    # /etc/sysctl.d/95-site.conf fs.aio-max-nr = 2097152, above foretune's 1048576: the site's, kept (never lowered
    # silently), nothing written; with --prefer foretune the line goes and apply says it lowers the site's value
    root = _tree(tmp_path)
    (root / "etc/sysctl.d").mkdir(exist_ok=True)
    (root / "etc/sysctl.d/95-site.conf").write_text("fs.aio-max-nr = 2097152\n", encoding="utf-8")
    sysctl = {"release": "Satellite 6.15", "changes": [
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576,
         "effect": "sysctl-reload", "file": "/etc/sysctl.d/90-foretune.conf"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write")
    assert result.status == 0, result.stderr
    assert "not applied: kernel.aio_max_nr: /etc/sysctl.d/95-site.conf gives fs.aio-max-nr = 2097152" in result.stderr
    assert (root / "etc/sysctl.d/95-site.conf").read_text(encoding="utf-8") == "fs.aio-max-nr = 2097152\n"
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write", "--prefer", "foretune")
    assert result.status == 0, result.stderr
    assert (root / "etc/sysctl.d/95-site.conf").read_text(encoding="utf-8") == ""
    assert "(this lowers the site's 2097152, as asked: --prefer foretune)" in result.stdout


def test_a_change_set_file_the_installer_cannot_run_as_given_is_refused(tmp_path: Path) -> None:
    # satellite-6.15's box: 16 CPUs, 63.8 GiB (MemTotal 66924544 kB). Foreman 3.9's installer checks extra-large
    # against 32 CPUs and 128 GiB (fi-tuning-hook, hardware.yaml) and refuses it here; and Satellite 6.15 runs Puma, so
    # its installer has no --foreman-passenger-* option (fi-passenger-keys-removed): the installer would abort. Each
    # set is refused in one line, nothing written (feedback D7); large, which the check accepts, goes through.
    root = _tree(tmp_path)
    before = _files(root)
    xl = {"release": "Satellite 6.15 (Foreman 3.9)", "changes": [
        {"tunable": "profile", "channel": "profile", "target": "--tuning", "value": "extra-large", "effect": "installer-run"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, xl), "--write")
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert (f"change 1: --tuning extra-large: the installer's hardware check refuses it on {root} (16 CPUs, 63.8 GiB RAM; "
            "it needs 32 CPUs and 128 GiB) [fi-tuning-hook]: not applied; the largest profile it accepts here: large") in result.stderr
    passenger = {"release": "Satellite 6.15 (Foreman 3.9)", "changes": [
        {"tunable": "puma.workers", "channel": "installer", "target": "--foreman-passenger-max-pool-size", "value": 18}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, passenger), "--write")
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert ("change 1: --foreman-passenger-max-pool-size: the installer of Satellite 6.15 (Foreman 3.9) has no such "
            "option (Foreman runs on Puma; Passenger settings are inert) [fi-passenger-keys-removed]: not applied") in result.stderr
    assert _files(root) == before and _runs(root) == []
    large = {"release": "Satellite 6.15 (Foreman 3.9)", "changes": [
        {"tunable": "profile", "channel": "profile", "target": "--tuning", "value": "large", "effect": "installer-run"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, large))
    assert result.status == 0 and "installer command: satellite-installer --tuning large\n" in result.stdout, result.stderr


def test_a_forced_rollback_rolls_the_later_runs_back_first_and_records_them(tmp_path: Path) -> None:
    # run 1 sets fs.aio-max-nr in 90-foretune.conf; run 2 sets it again and writes tuned's active_profile, a file run 1
    # never touched. --rollback RUN1 --force rolls run 2 back first (its journal says so), then run 1: the tree is the
    # original again and verify finds no applied run left (feedback D3: run 2 stayed "applied", half undone).
    root = _tree(tmp_path)
    before = _files(root)
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576,
         "effect": "sysctl-reload", "file": "/etc/sysctl.d/90-foretune.conf"}]}
    two = {"release": "Satellite 6.15", "changes": [
        {**one["changes"][0], "value": 2097152},
        {"tunable": "tuned.profile", "channel": "tuned", "target": "profile", "value": "throughput-performance", "effect": "tuned-adm"}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write").status == 0
    time.sleep(1.1)  # run ids are whole seconds
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, two), "--write").status == 0
    first, second = _runs(root)
    result = run_cli("apply", "--root", str(root), "--rollback", first, "--force")
    assert result.status == 0, result.stderr
    assert f"run {second}, applied after run {first}, rolled back first (--force)" in result.stderr
    assert _files(root) == before
    journal = json.loads((root / RUNS / second / "journal.json").read_text(encoding="utf-8"))
    assert journal["rolled_back"]
    verify = run_cli("verify", "--root", str(root))
    assert verify.status == 2 and "no applied change set" in verify.stderr, verify.stderr


def test_a_rollback_that_meets_a_symbolic_link_restores_nothing(tmp_path: Path) -> None:
    # after a run that wrote custom-hiera.yaml, a drop-in and tuned's active_profile, custom-hiera.yaml becomes a
    # symbolic link: the rollback refuses it in one line before restoring anything, and the run stays applied
    # (feedback D17: the drop-in and tuned's file were already gone). The error's command carries --root (D4).
    root = _tree(tmp_path)
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path), "--write").status == 0
    [run] = _runs(root)
    written = _files(root)
    victim = tmp_path / "victim.txt"
    victim.write_text("victim\n", encoding="utf-8")
    (root / HIERA).unlink()
    (root / HIERA).symlink_to(victim)
    result = run_cli("apply", "--root", str(root), "--rollback", run)
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "is a symbolic link" in result.stderr
    assert victim.read_text(encoding="utf-8") == "victim\n"
    assert {k: v for k, v in _files(root).items() if k != HIERA} == {k: v for k, v in written.items() if k != HIERA}
    assert not json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))["rolled_back"]


def test_a_sites_own_tuned_profile_that_includes_the_guides_is_kept_and_said(tmp_path: Path) -> None:
    # the site's /etc/tuned/sat-custom/tuned.conf: [main] include=virtual-guest, [vm] transparent_hugepages=never, and
    # active_profile sat-custom. A set asking for virtual-guest keeps it, saying so (feedback D5: replaced silently);
    # --prefer foretune replaces it, and says what it replaces.
    root = _tree(tmp_path)
    (root / "etc/tuned/sat-custom").mkdir(parents=True)
    (root / "etc/tuned/sat-custom/tuned.conf").write_text(
        "[main]\nsummary=site profile\ninclude=virtual-guest\n\n[vm]\ntransparent_hugepages=never\n", encoding="utf-8")
    (root / "etc/tuned/active_profile").write_text("sat-custom\n", encoding="utf-8")
    tuned = {"release": "Satellite 6.15", "changes": [
        {"tunable": "os.tuned_profile", "channel": "tuned", "target": "profile", "value": "virtual-guest", "effect": "tuned-adm"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, tuned), "--write")
    assert result.status == 0, result.stderr
    assert ("not applied: os.tuned_profile: the active profile is the site's own sat-custom (/etc/tuned/sat-custom/"
            "tuned.conf), which includes virtual-guest: kept (add --prefer foretune to replace it)") in result.stderr
    assert "tuned-adm profile" not in result.stdout
    assert (root / "etc/tuned/active_profile").read_text(encoding="utf-8") == "sat-custom\n"
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, tuned), "--prefer", "foretune")
    assert ("replaces the site's own tuned profile sat-custom (/etc/tuned/sat-custom/tuned.conf, which includes "
            "virtual-guest) with virtual-guest (as asked: --prefer foretune): os.tuned_profile\n") in result.stdout
    assert "-sat-custom\n+virtual-guest\n" in result.stdout


def test_a_site_value_below_foretunes_in_custom_hiera_is_replaced_and_each_removed_pin_is_said(tmp_path: Path) -> None:
    # custom-hiera.yaml pins shared_buffers 512MB (foretune: 2GB for this set) and max_connections 500 (a pin the
    # set removes so the profile's value can act). A site value below foretune's is replaced, as --prefer's help says,
    # and said once, never both "kept" and "replaces" (feedback D15); each pin removed is said with why.
    root = _tree(tmp_path)
    (root / HIERA).write_text("---\npostgresql::server::config_entries:\n  shared_buffers: 512MB\n  max_connections: 500\n",
                              encoding="utf-8")
    entries = {"release": "Satellite 6.15", "changes": [
        {"tunable": "postgresql.shared_buffers", "channel": "custom-hiera",
         "target": "postgresql::server::config_entries/shared_buffers", "value": "2GB", "site_value": "512MB",
         "reason": "at least 2 GiB"},
        {"tunable": "unshadow:postgresql::server::config_entries/max_connections", "channel": "custom-hiera",
         "target": "postgresql::server::config_entries/max_connections", "op": "remove", "site_value": 500,
         "reason": "the profile gives 1000"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, entries), "--write")
    assert result.status == 0, result.stderr
    assert "not applied" not in result.stderr
    assert "replaces the site's 512MB: postgresql::server::config_entries/shared_buffers 2GB (at least 2 GiB)\n" in result.stdout
    assert ("removes the site's postgresql::server::config_entries/max_connections: 500 from custom-hiera.yaml (the "
            "profile gives 1000)\n") in result.stdout
    assert (root / HIERA).read_text(encoding="utf-8") == (
        "---\npostgresql::server::config_entries:\n  # foretune: replaced the site's 512MB as the change set asks\n"
        "  shared_buffers: 2GB\n")


def test_a_line_taken_out_of_an_included_file_under_root_follows_postmaster_pid(tmp_path: Path) -> None:
    # postgresql.conf includes tuning-local.conf (shared_buffers = 1GB, work_mem = 2MB after postgresql.conf's own
    # lines). apply --root takes both lines out. shared_buffers is read only at start (pg-conf-restart): pending a
    # restart until postmaster.pid shows a start after the run, as the auto.conf reset beside it (feedback D11);
    # work_mem on a reload, which the files cannot show: not verified, then in force after that start too.
    root = _tree(tmp_path)
    data = root / "var/lib/pgsql/data"
    with (data / "postgresql.conf").open("a", encoding="utf-8") as handle:
        handle.write("include 'tuning-local.conf'\n")
    (data / "tuning-local.conf").write_text("shared_buffers = 1GB\nwork_mem = 2MB\n", encoding="utf-8")
    path = "/var/lib/pgsql/data/tuning-local.conf"
    removals = {"release": "Satellite 6.15", "changes": [
        {"tunable": f"unshadow:{path}:shared_buffers", "channel": "file", "target": path, "value": "shared_buffers = 1GB",
         "op": "remove", "effect": "restart", "units": ["postgresql"], "file": path},
        {"tunable": f"unshadow:{path}:work_mem", "channel": "file", "target": path, "value": "work_mem = 2MB",
         "op": "remove", "effect": "immediate", "units": ["postgresql"], "file": path}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, removals), "--write")
    assert result.status == 0, result.stderr
    assert (data / "tuning-local.conf").read_text(encoding="utf-8") == ""
    journal = json.loads(next((root / RUNS).glob("*/journal.json")).read_text(encoding="utf-8"))
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {f"unshadow:{path}:shared_buffers": "pending", f"unshadow:{path}:work_mem": "not verified"}
    assert "needs a PostgreSQL restart: PostgreSQL reads shared_buffers only when it starts" in result.stdout
    _postmaster_pid(root, journal["epoch"] + 60)
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0, result.stdout
    assert _states(result.stdout) == {f"unshadow:{path}:shared_buffers": "in force", f"unshadow:{path}:work_mem": "in force"}


def test_overcommit_memory_is_a_mode_not_a_limit_a_site_1_is_not_kept_as_more(tmp_path: Path) -> None:
    # vm.overcommit_memory 0/1/2 picks a mode (0 heuristic, 1 always overcommit); the installer asks for 0. A site's
    # 1 in /etc/sysctl.d/10-redis.conf is not "more than foretune's 0" to keep: apply writes 0 as the audit bundle
    # does (feedback D10: apply kept it, the bundle wrote it). 10-redis.conf sorts first, so 90-foretune.conf wins.
    root = _tree(tmp_path)
    (root / "etc/sysctl.d").mkdir(exist_ok=True)
    (root / "etc/sysctl.d/10-redis.conf").write_text("vm.overcommit_memory = 1\n", encoding="utf-8")
    overcommit = {"release": "Satellite 6.15", "changes": [
        {"tunable": "sysctl:vm.overcommit_memory", "channel": "sysctl", "target": "vm.overcommit_memory", "value": 0,
         "effect": "sysctl-reload", "file": "/etc/sysctl.d/90-foretune.conf"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, overcommit), "--write")
    assert result.status == 0, result.stderr
    assert "not applied" not in result.stderr and "cannot take effect" not in result.stderr
    assert (root / "etc/sysctl.d/90-foretune.conf").read_text(encoding="utf-8") == "vm.overcommit_memory = 0\n"


def test_an_installer_only_set_is_not_called_in_place_and_an_installer_run_is_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a set with one installer option: no file to write, but not "in place" either (the installer has not run with
    # it). With --write --run-installer the installer changes the host: the run is recorded, with how the installer
    # ran, so verify has a set to read (feedback D12). "This host" is a tree here: Host is pointed at tmp_path.
    from foretune.apply import host as host_module
    from foretune.apply import journal as journal_module

    root = _tree(tmp_path)
    workers = {"release": "Satellite 6.15", "changes": [
        {"tunable": "puma.workers", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, workers))
    assert result.status == 0, result.stderr
    assert (f"nothing to change on {root}: the files are in place; the installer command below puts the set's installer "
            "values in force\n") in result.stdout
    assert "the change set is in place" not in result.stdout

    class TreeAsThisHost(host_module.Host):
        def __init__(self, root_: str | None = None, dsn: str | None = None, environ: object = None) -> None:
            super().__init__(str(root), dsn, environ)  # type: ignore[arg-type]

    monkeypatch.setattr(host_module, "Host", TreeAsThisHost)
    monkeypatch.setattr(journal_module, "run_installer", lambda command, environ: (0, 0))
    result = run_cli("apply", "--changes", _changes(tmp_path, workers), "--write", "--run-installer")
    assert result.status == 0, result.stderr
    [run] = _runs(root)
    journal = json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))
    assert journal["installer"] == {"command": "satellite-installer --foreman-foreman-service-puma-workers 18",
                                    "noop_status": 0, "status": 0}
    assert [c["tunable"] for c in journal["changes"]] == ["puma.workers"]
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"puma.workers": "pending"}, result.stdout  # pumactl stats still gives 24


def test_hammers_request_timeout_is_read_back_from_the_file_the_installer_renders(tmp_path: Path) -> None:
    # the bundled example's /etc/hammer/cli.modules.d/foreman.yml says :request_timeout: 120; the audit's set gives
    # --foreman-cli-request-timeout -1 (no timeout). verify reads hammer's file: pending until it says -1, then in
    # force, since hammer reads it on each command (feedback D18: it was "not verified").
    root = tmp_path / "host"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    assert run_cli("apply", "--root", str(root), "--audit", "--write").status == 0
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout)["hammer.request_timeout"] == "pending"
    assert "hammer request_timeout (the rendered configuration) still gives 120: waiting for an installer run" in result.stdout
    _edit(root, "etc/hammer/cli.modules.d/foreman.yml", ":request_timeout: 120", ":request_timeout: -1")
    assert _states(run_cli("verify", "--root", str(root)).stdout)["hammer.request_timeout"] == "in force"


def test_apply_takes_cpus_and_ram_given_on_the_command_line_over_the_sources_and_says_so(tmp_path: Path) -> None:
    # satellite-6.15-tuned: 16 CPUs, 63.8 GiB (MemTotal 66924544 kB), --tuning medium. 40000 hosts need extra-large
    # (20001+ hosts, gf-quickstart), which foreman-installer 3.9's hardware check refuses below 32 CPUs and 128 GiB
    # (fi-tuning-hook): on the box as the source describes it the set takes large. Given --cpus 32 --ram 128G, the
    # set is made for that box, with --audit as without it, and apply says which figures it used instead of the source's.
    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.15-tuned", root, symlinks=True)
    for audit in ([], ["--audit"]):
        result = run_cli("apply", "--root", str(root), "--hosts", "40000", *audit)
        assert result.status == 0, result.stderr
        assert "installer command: satellite-installer --tuning large " in result.stdout
        assert "refuses --tuning extra-large" in result.stderr or "extra-large, which the installer's hardware check refuses" in result.stderr
        result = run_cli("apply", "--root", str(root), "--hosts", "40000", "--cpus", "32", "--ram", "128G", *audit)
        assert result.status == 0, result.stderr
        assert "installer command: satellite-installer --tuning extra-large " in result.stdout
        assert (f"foretune: --cpus: 32 CPUs instead of the 16 CPUs {root} says; --ram: 128.0 GiB RAM instead of the "
                "63.8 GiB RAM") in result.stderr


def _dynflow_show(root: Path, limit: int, pids: dict[str, int] | None = None) -> None:
    """The tree's systemctl show of the dynflow-sidekiq@ instances with LimitNOFILE ``limit`` (and a MainPID each)."""
    path = root / "sos_commands/systemd/systemctl_show_service_--all"
    out, unit = [], ""
    for line in path.read_text(encoding="utf-8").split("\n"):
        unit = line[3:] if line.startswith("Id=") else unit
        if unit.startswith("dynflow-sidekiq@") and line.startswith(("LimitNOFILE=", "LimitNOFILESoft=")):
            line = f"{line.split('=')[0]}={limit}"
            if line.startswith("LimitNOFILESoft=") and pids:
                line += f"\nMainPID={pids[unit]}"
        out.append(line)
    path.write_text("\n".join(out), encoding="utf-8")


def test_a_drop_in_of_a_template_unit_is_verified_on_each_instance(tmp_path: Path) -> None:
    # dynflow-sidekiq@.service runs as dynflow-sidekiq@orchestrator, @worker and @worker-hosts-queue (the fixture's
    # systemctl show: LimitNOFILE=1024 each). A LimitNOFILE drop-in in dynflow-sidekiq@.service.d applies to every
    # instance (feedback D18): verify reads each instance's limit, pending while one still runs 1024; not verified
    # while systemd has the value but no process limit is readable; in force once /proc/PID/limits of each shows it; a
    # drop-in of one instance read after limits.conf that sets another value is drift, naming the file.
    root = _tree(tmp_path)
    one = {"release": "Satellite 6.15", "changes": [
        {"tunable": "dynflow.limit_nofile", "channel": "dropin", "target": "dynflow-sidekiq@.service:LimitNOFILE",
         "value": 65536, "effect": "daemon-reload", "units": ["dynflow-sidekiq@*"],
         "file": "/etc/systemd/system/dynflow-sidekiq@.service.d/limits.conf"}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, one), "--write")
    assert result.status == 0, result.stderr
    assert (root / "etc/systemd/system/dynflow-sidekiq@.service.d/limits.conf").read_text(encoding="utf-8") == (
        "[Service]\nLimitNOFILE=65536\n")
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"dynflow.limit_nofile": "pending"}, result.stdout
    assert "systemctl show dynflow-sidekiq@orchestrator.service (LimitNOFILE) still gives 1024" in result.stdout
    _dynflow_show(root, 65536)
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"dynflow.limit_nofile": "not verified"}, result.stdout
    assert "systemd loaded LimitNOFILE=65536 for dynflow-sidekiq@orchestrator.service" in result.stdout
    pids = {"dynflow-sidekiq@orchestrator.service": 3101, "dynflow-sidekiq@worker.service": 3102,
            "dynflow-sidekiq@worker-hosts-queue.service": 3103}
    _dynflow_show(root, 65536, pids)
    limits = (root / "proc/2201/limits").read_text(encoding="utf-8")
    for pid in pids.values():
        (root / f"proc/{pid}").mkdir()
        (root / f"proc/{pid}/limits").write_text(limits.replace("Max open files            1024                 524288",
                                                                "Max open files            65536                65536"),
                                                 encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0 and _states(result.stdout) == {"dynflow.limit_nofile": "in force"}, result.stdout
    assert "/proc/<MainPID of dynflow-sidekiq@worker.service>/limits (soft)" in result.stdout
    site = root / "etc/systemd/system/dynflow-sidekiq@worker.service.d"
    site.mkdir()
    (site / "zz-site.conf").write_text("[Service]\nLimitNOFILE=1024\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1 and _states(result.stdout) == {"dynflow.limit_nofile": "drift"}, result.stdout
    assert "/etc/systemd/system/dynflow-sidekiq@worker.service.d/zz-site.conf now has 'LimitNOFILE=1024'" in result.stdout


def test_apply_keeps_the_installers_header_and_names_the_comments_that_go_with_a_key(tmp_path: Path) -> None:
    # satellite-6.15-tuned, 15000 hosts (large: 18 Puma workers, gf-puma-recommendations; db_pool 16 + 4 = 20): the
    # custom-hiera.yaml foreman-installer ships opens with --- and its two-line header; the site pinned 12 workers right
    # under it and db_pool 5 under its own comment. Both pins go (the options take their place); the installer's header
    # stays, and the comment that goes with db_pool is named (feedback D2 of the acceptance pass)
    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.15-tuned", root, symlinks=True)
    (root / HIERA).write_text("---\n# This file is for custom hiera overrides, see\n# https://docs.theforeman.org/ for details.\n"
                              "foreman::foreman_service_puma_workers: 12\n# pinned by the previous admin\nforeman::db_pool: 5\n"
                              "apache::trace_enable: Off\n", encoding="utf-8")
    result = run_cli("apply", "--root", str(root), "--hosts", "15000", "--write")
    assert result.status == 0, result.stderr
    text = (root / HIERA).read_text(encoding="utf-8")
    assert text.startswith("---\n# This file is for custom hiera overrides, see\n# https://docs.theforeman.org/ for details.\n"
                           "apache::trace_enable: Off\n")
    assert "pinned by the previous admin" not in text and "foreman::db_pool" not in text
    assert f"{root / HIERA}: foreman::db_pool: the site's comment \"pinned by the previous admin\" goes with it" in result.stderr


def test_verify_reads_back_what_the_source_renders_and_a_stale_key_once_gone(tmp_path: Path) -> None:
    # the example after apply --write: Dynflow's worker.yml still says :concurrency: 15 and systemctl show gives
    # foreman-proxy LimitNOFILE=1024: both are read back where the installer renders them, pending (never "not
    # verified" while the source holds them; acceptance D1)
    root = tmp_path / "ex"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    result = run_cli("apply", "--root", str(root), "--write")
    assert result.status == 0, result.stderr
    assert "replaces the site's 32: removes" not in result.stdout  # one line per removed key (acceptance D8)
    result = run_cli("verify", "--root", str(root))
    states = _states(result.stdout)
    assert states["dynflow.sidekiq_concurrency"] == "pending" and states["smart_proxy_dynflow.limit_nofile"] == "pending"
    assert "dynflow concurrency (the rendered configuration) still gives 15: waiting for an installer run" in result.stdout
    assert "systemctl show foreman-proxy.service (LimitNOFILE) still gives 1024" in result.stdout
    # the stale checkpoint_segments, gone from custom-hiera.yaml: PostgreSQL 12 never ran with it (it refuses to
    # start with it), so nothing waits for a restart (acceptance D6)
    assert states["stale:postgresql::server::config_entries/checkpoint_segments"] == "in force"
    # a repeated apply writes nothing and says no daemon-reload (the drop-ins are in place; acceptance D8)
    again = run_cli("apply", "--root", str(root))
    assert "daemon-reload" not in again.stdout


def test_a_change_set_file_made_for_another_release_is_refused(tmp_path: Path) -> None:
    # a set made for Satellite 6.15 (Foreman 3.9, Puma) on the satellite-6.2 tree (Foreman 1.11, Passenger): its
    # installer has no --foreman-foreman-service-puma-workers (Puma came with Foreman 2.3); the set is refused in one
    # line, nothing written (acceptance D11)
    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    before = _files(root)
    puma = {"release": "Satellite 6.15 (Foreman 3.9)", "changes": [
        {"tunable": "puma.workers", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, puma), "--write")
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"a change set for Satellite 6.15 (Foreman 3.9), but {root} runs Satellite 6.2 (Foreman 1.11)" in result.stderr
    assert _files(root) == before and _runs(root) == []


def test_a_change_set_file_with_two_values_for_one_option_is_refused(tmp_path: Path) -> None:
    # two tunable names, one installer option: the command would pass it twice (acceptance D12)
    root = _tree(tmp_path)
    dup = {"release": "Satellite 6.15", "changes": [
        {"tunable": "a", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 18},
        {"tunable": "b", "channel": "installer", "target": "--foreman-foreman-service-puma-workers", "value": 12}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, dup))
    assert result.status == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "two values for --foreman-foreman-service-puma-workers (a change set holds one value per tunable)" in result.stderr


def test_zero_is_no_limit_when_a_site_value_is_compared(tmp_path: Path) -> None:
    # PassengerMaxPreloaderIdleTime 0 keeps the preloader for ever (g62-passenger, the brief's value): a site's 300
    # shuts it down sooner, so 0 replaces it instead of the 300 being kept as "more than foretune's 0" (acceptance D16)
    root = tmp_path / "s62"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    vhost = root / "etc/httpd/conf.d/05-foreman-ssl.conf"
    _edit(root, "etc/httpd/conf.d/05-foreman-ssl.conf", "</VirtualHost>", "  PassengerMaxPreloaderIdleTime 300\n</VirtualHost>")
    idle = {"release": "Satellite 6.2", "changes": [
        {"tunable": "passenger.max_preloader_idle_time", "channel": "file", "target": "/etc/httpd/conf.d/05-foreman-ssl.conf",
         "value": "PassengerMaxPreloaderIdleTime 0", "effect": "restart", "units": ["httpd"]}]}
    result = run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, idle), "--write")
    assert result.status == 0, result.stderr
    assert "more than foretune's 0" not in result.stderr
    assert "PassengerMaxPreloaderIdleTime 0" in vhost.read_text(encoding="utf-8")
    assert "PassengerMaxPreloaderIdleTime 300" not in vhost.read_text(encoding="utf-8")


def test_a_postgresql_conf_edit_under_root_is_pending_until_postgresql_started_after_the_run(tmp_path: Path) -> None:
    # Satellite 6.2 edits postgresql.conf by hand (g62-postgresql); PostgreSQL reads shared_buffers only when it starts
    # (pg-conf-restart). Under --root without --dsn: pending a restart until postmaster.pid (third line: the start
    # time) says PostgreSQL started after the run, then in force (acceptance D19)
    root = tmp_path / "s62"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    edit = {"release": "Satellite 6.2", "changes": [
        {"tunable": "postgresql.shared_buffers", "channel": "file", "target": "/var/lib/pgsql/data/postgresql.conf",
         "value": "shared_buffers = 4992MB", "effect": "restart", "units": ["postgresql"]}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, edit), "--write").status == 0
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1 and _states(result.stdout) == {"postgresql.shared_buffers": "pending"}, result.stdout
    assert "needs a PostgreSQL restart: PostgreSQL reads shared_buffers only when it starts" in result.stdout
    (root / "var/lib/pgsql/data/postmaster.pid").write_text(f"1234\n/var/lib/pgsql/data\n{int(time.time()) + 60}\n5432\n",
                                                             encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 0 and _states(result.stdout) == {"postgresql.shared_buffers": "in force"}, result.stdout


SITE_OVERRIDE = """\
# site: memory fragmentation fix, INC0099
[Service]
Environment=MALLOC_ARENA_MAX=2 FOREMAN_PUMA_THREADS_MIN=16
Environment=FOREMAN_PUMA_THREADS_MAX=16
LimitNOFILE=65536
"""


def _run_fix(command: str, root: Path, kept: Path) -> None:
    """Run the audit's shell fix on ``root`` instead of /: /etc under the tree, /root's copy at ``kept``."""
    import subprocess  # start-up: only this test runs a fix's shell command

    local = command.replace("/root/foreman.service.d-override.conf", str(kept)).replace(" /etc/", f" {root}/etc/")
    local = local.replace("systemctl daemon-reload", "true")
    assert subprocess.run(["bash", "-c", local], check=False).returncode == 0, local


def test_the_audit_fix_apply_md_and_apply_take_the_same_lines_out_of_a_site_override_conf(tmp_path: Path) -> None:
    # override.conf sets the Puma threads after installer.conf (systemd-dropin-order) beside the site's own
    # MALLOC_ARENA_MAX and LimitNOFILE: the finding's command, APPLY.md and apply all take out only the Puma words,
    # keep the site's settings, and the file stays; verify says what went, not "removed"
    root = _tree(tmp_path)
    (root / OVERRIDE).write_text(SITE_OVERRIDE, encoding="utf-8")
    after = ("# site: memory fragmentation fix, INC0099\n[Service]\nEnvironment=MALLOC_ARENA_MAX=2\nLimitNOFILE=65536\n")
    out = tmp_path / "out"
    assert run_cli("plan", "--from", str(root), "--output-dir", str(out)).status == 0
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert ("Take `Environment=MALLOC_ARENA_MAX=2 FOREMAN_PUMA_THREADS_MIN=16` and `Environment=FOREMAN_PUMA_THREADS_MAX=16` "
            "out of `/etc/systemd/system/foreman.service.d/override.conf`, keep its other settings") in steps
    assert "Move `/etc/systemd/system/foreman.service.d/override.conf` away" not in steps
    findings = json.loads(run_cli("audit", str(root), "--format", "json").stdout)["findings"]
    [finding] = [f for f in findings if f["rule"] == "puma-dropin-override"]
    command = finding["fixes"][0]["command"]
    assert command.startswith("cp -p /etc/systemd/system/foreman.service.d/override.conf /root/foreman.service.d-override.conf && ")
    by_hand = tmp_path / "by-hand"
    shutil.copytree(root, by_hand, symlinks=True)
    _run_fix(command, by_hand, tmp_path / "kept.conf")
    assert (by_hand / OVERRIDE).read_text(encoding="utf-8") == after
    assert (tmp_path / "kept.conf").read_text(encoding="utf-8") == SITE_OVERRIDE
    assert run_cli("apply", "--root", str(root), "--changes", str(out / "changes.json"), "--write").status == 0
    assert (root / OVERRIDE).read_text(encoding="utf-8") == after
    # systemd runs the unit with override.conf's Puma threads (16) until a daemon-reload (systemctl show)
    _edit(root, "sos_commands/systemd/systemctl_show_service_--all", "FOREMAN_PUMA_THREADS_MIN=5 FOREMAN_PUMA_THREADS_MAX=5",
          "FOREMAN_PUMA_THREADS_MIN=16 FOREMAN_PUMA_THREADS_MAX=16")
    result = run_cli("verify", "--root", str(root))
    assert ("dropin foreman.service:override.conf (remove lines)\n" in result.stdout
            and "Environment=MALLOC_ARENA_MAX=2 FOREMAN_PUMA_THREADS_MIN=16 | Environment=FOREMAN_PUMA_THREADS_MAX=16 taken "
                "out of /etc/systemd/system/foreman.service.d/override.conf (its other settings stay); in force after "
                "systemctl daemon-reload" in result.stdout), result.stdout
    assert run_cli("apply", "--root", str(root), "--rollback", "last").status == 0
    assert (root / OVERRIDE).read_text(encoding="utf-8") == SITE_OVERRIDE


def test_the_audit_fix_and_apply_both_remove_an_override_conf_left_with_no_setting(tmp_path: Path) -> None:
    # the fixture's override.conf holds only [Service] and the two Puma lines: both ways leave no file behind
    root = _tree(tmp_path)
    findings = json.loads(run_cli("audit", str(root), "--format", "json").stdout)["findings"]
    [finding] = [f for f in findings if f["rule"] == "puma-dropin-override"]
    by_hand = tmp_path / "by-hand"
    shutil.copytree(root, by_hand, symlinks=True)
    _run_fix(finding["fixes"][0]["command"], by_hand, tmp_path / "kept.conf")
    assert not (by_hand / OVERRIDE).exists()
    assert run_cli("apply", "--root", str(root), "--audit", "--write").status == 0
    assert not (root / OVERRIDE).exists()


def test_the_thp_commands_are_journalled_and_verify_reads_thp_back(tmp_path: Path) -> None:
    # the example box runs THP "[always] madvise never" for enabled and defrag; the set's THP lines are by hand
    # (echo never > /sys/...), and the journal keeps them so that verify reads sysfs back: pending while it says
    # [always], in force once it says [never], drift when it is [always] again after a verify saw it in force
    root = tmp_path / "sos"
    shutil.copytree(REPO / "examples/sosreport-satellite-6.15-mistuned", root, symlinks=True)
    result = run_cli("apply", "--root", str(root), "--write")
    assert result.status == 0, result.stderr
    assert "by hand: echo never > /sys/kernel/mm/transparent_hugepage/enabled\n" in result.stdout
    [journal] = list((root / RUNS).glob("*/journal.json"))
    assert {"echo never > /sys/kernel/mm/transparent_hugepage/enabled",
            "echo never > /sys/kernel/mm/transparent_hugepage/defrag"} <= set(json.loads(journal.read_text())["by_hand"])

    def thp() -> dict[str, tuple[str, str, str]]:
        checks = json.loads(run_cli("verify", "--root", str(root), "--format", "json").stdout)["changes"]
        return {c["change"]["tunable"]: (c["state"], c["found"], c["where"]) for c in checks if c["change"]["channel"] == "by-hand"}

    enabled, defrag = "/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/defrag"
    assert thp() == {"os.thp": ("pending", "always", enabled), "os.thp_defrag": ("pending", "always", defrag)}
    for path in (enabled, defrag):
        (root / path.lstrip("/")).write_text("always madvise [never]\n", encoding="utf-8")
    assert thp() == {"os.thp": ("in force", "never", enabled), "os.thp_defrag": ("in force", "never", defrag)}
    (root / enabled.lstrip("/")).write_text("[always] madvise never\n", encoding="utf-8")
    assert thp()["os.thp"] == ("drift", "always", enabled)


def test_drift_in_a_rendered_value_names_the_file_it_was_read_from_and_when_it_changed(tmp_path: Path) -> None:
    # the fixture's scenario file says tuning: medium; the run keeps medium (in force), a verify sees it in force,
    # then someone writes tuning: large into satellite.yaml: the drift names that file, its time and "after run"
    root = _tree(tmp_path)
    sets = {"release": "Satellite 6.15", "changes": [
        {"tunable": "profile", "channel": "profile", "target": "--tuning", "value": "medium", "effect": "installer-run"},
        CHANGES["changes"][5]]}  # a file written, so the run has a journal
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sets), "--write").status == 0
    assert _states(run_cli("verify", "--root", str(root)).stdout)["profile"] == "in force"
    scenario = root / "etc/foreman-installer/scenarios.d/satellite.yaml"
    _edit(root, "etc/foreman-installer/scenarios.d/satellite.yaml", "  tuning: medium\n", "  tuning: large\n")
    later = time.time() + 5
    os.utime(scenario, (later, later))
    checks = json.loads(run_cli("verify", "--root", str(root), "--format", "json").stdout)["changes"]
    [check] = [c for c in checks if c["change"]["tunable"] == "profile"]
    assert check["state"] == "drift", check
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(later))
    [run] = [p.name for p in (root / RUNS).iterdir()]
    assert (f"; read from /etc/foreman-installer/scenarios.d/satellite.yaml, modified at {when} (after run {run})"
            in check["why"]), check["why"]


def test_satellite_62_plan_bundle_keeps_what_apply_keeps_and_apply_says_the_installer_goes_first(tmp_path: Path) -> None:
    # satellite-6.2 with passenger.conf raised by the site to PassengerMaxPoolSize 30 and queue 1000 (the guide's
    # queue is 200): plan --output-dir's APPLY.md lists the queue as kept, as apply does, and lowers neither;
    # apply says the installer run (which renders 05-foreman-ssl.conf again) comes before the file edits
    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    _edit(root, "etc/httpd/conf.d/passenger.conf", "  PassengerMaxPoolSize 20\n  PassengerMaxRequestQueueSize 250\n",
          "  PassengerMaxPoolSize 30\n  PassengerMaxRequestQueueSize 1000\n")
    out = tmp_path / "out"
    assert run_cli("plan", "--from", str(root), "--hosts", "8000", "--output-dir", str(out)).status == 0
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert ("- `/etc/httpd/conf.d/passenger.conf` PassengerMaxRequestQueueSize 200: /etc/httpd/conf.d/passenger.conf sets "
            "PassengerMaxRequestQueueSize 1000, above foretune's PassengerMaxRequestQueueSize 200: the site's value is kept "
            "(never lowered silently)") in steps
    assert "set `PassengerMaxPoolSize" not in steps and "set `PassengerMaxRequestQueueSize" not in steps
    result = run_cli("apply", "--root", str(root), "--from", str(root), "--hosts", "8000")
    assert result.status == 0, result.stderr
    assert "passenger.conf (foretune)" not in result.stdout
    assert ("run the installer before these file edits: it rewrites the files it manages (/etc/httpd/conf.d/"
            "05-foreman-ssl.conf") in result.stdout, result.stdout


def test_satellite_62_runs_the_installer_first_and_edits_the_files_it_rendered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Satellite 6.2 reads no custom-hiera.yaml: the set's file edits go into files the installer renders, so with
    # --write --run-installer the installer runs first and the edits are made on what it wrote. The stand-in installer
    # renders 05-foreman-ssl.conf anew (MaxKeepAliveRequests 100 again, as puppet's template has it), as a real run
    # would; "this host" is a tree here (Host pointed at it).
    from foretune.apply import host as host_module
    from foretune.apply import journal as journal_module

    root = tmp_path / "host"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    vhost = root / "etc/httpd/conf.d/05-foreman-ssl.conf"
    rendered = vhost.read_text(encoding="utf-8").replace("MaxKeepAliveRequests 100", "MaxKeepAliveRequests 100\n  ServerTokens Prod")
    calls: list[str] = []

    def installer(command: str, environ: object) -> tuple[int, int]:
        calls.append(vhost.read_text(encoding="utf-8"))  # what the file held when the installer ran
        vhost.write_text(rendered, encoding="utf-8")
        return 0, 0

    class TreeAsThisHost(host_module.Host):
        def __init__(self, root_: str | None = None, dsn: str | None = None, environ: object = None) -> None:
            super().__init__(str(root), dsn, environ)  # type: ignore[arg-type]

    out = tmp_path / "out"
    assert run_cli("plan", "--from", str(root), "--hosts", "8000", "--output-dir", str(out)).status == 0
    monkeypatch.setattr(host_module, "Host", TreeAsThisHost)
    monkeypatch.setattr(journal_module, "run_installer", installer)
    result = run_cli("apply", "--changes", str(out / "changes.json"), "--write", "--run-installer")
    assert result.status == 0, result.stderr
    assert len(calls) == 1 and "MaxKeepAliveRequests 100" in calls[0]  # the installer ran before any edit
    after = vhost.read_text(encoding="utf-8")
    assert "  ServerTokens Prod\n" in after  # the edits were made on the file the installer rendered
    assert "  MaxKeepAliveRequests 0\n" in after and "MaxKeepAliveRequests 100" not in after
    assert "the file edits are written after it, on the files it rendered" in result.stderr
    [run] = _runs(root)
    journal = json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))
    assert journal["installer"]["status"] == 0
    # its backup is what the installer rendered: a rollback gives back the installer's file, not the one before it
    assert run_cli("apply", "--rollback", run).status == 0
    assert vhost.read_text(encoding="utf-8") == rendered


def test_satellite_62_keepalive_goes_into_the_vhost_that_includes_no_katello_conf(tmp_path: Path) -> None:
    # the 6.2 brief: "The default configuration for KeepAlive for Red Hat Satellite 6 is found in
    # `/etc/httpd/conf.d/05-foreman-ssl.d/katello.conf`"; httpd reads that file only when the vhost includes its
    # directory. satellite-6.2's vhost includes none and sets MaxKeepAliveRequests 100 itself: the change set edits
    # the vhost, in every output (plan's APPLY.md and changes.json, apply)
    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    out = tmp_path / "out"
    assert run_cli("plan", "--from", str(root), "--hosts", "8000", "--output-dir", str(out)).status == 0
    assert "05-foreman-ssl.d/katello.conf` set" not in (out / "APPLY.md").read_text(encoding="utf-8")
    changes = json.loads((out / "changes.json").read_text(encoding="utf-8"))["changes"]
    assert not [c for c in changes if "05-foreman-ssl.d" in c["target"]]
    keepalive = next(c for c in changes if c["tunable"] == "apache.max_keepalive_requests")
    assert (keepalive["target"], keepalive["value"]) == ("/etc/httpd/conf.d/05-foreman-ssl.conf", "MaxKeepAliveRequests 0")
    assert run_cli("apply", "--root", str(root), "--changes", str(out / "changes.json"), "--write").status == 0
    vhost = (root / "etc/httpd/conf.d/05-foreman-ssl.conf").read_text(encoding="utf-8")
    assert "  MaxKeepAliveRequests 0\n" in vhost and "  KeepAlive on\n" in vhost  # "on" is On already: left as it is
    assert vhost.index("PassengerMaxRequests 10000") < vhost.index("</VirtualHost>")  # inside the vhost
    assert not (root / "etc/httpd/conf.d/05-foreman-ssl.d").exists()
    # with the vhost including the directory (as puppet-foreman renders it), katello.conf is the place
    again = tmp_path / "again"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", again, symlinks=True)
    _edit(again, "etc/httpd/conf.d/05-foreman-ssl.conf", "  KeepAlive on\n  MaxKeepAliveRequests 100\n  KeepAliveTimeout 5\n", "")
    _edit(again, "etc/httpd/conf.d/05-foreman-ssl.conf", "</VirtualHost>",
          '  ## Load additional static includes\n  IncludeOptional "/etc/httpd/conf.d/05-foreman-ssl.d/*.conf"\n</VirtualHost>')
    result = run_cli("apply", "--root", str(again), "--from", str(again), "--hosts", "8000")
    assert "+++ " + str(again / "etc/httpd/conf.d/05-foreman-ssl.d/katello.conf") in result.stdout, result.stdout


def test_satellite_62_file_edits_are_pending_a_restart_until_the_service_started_after_the_run(tmp_path: Path) -> None:
    # a 6.2 file edit (httpd's vhost, qpidd.conf) takes effect when its service restarts: right after apply --write
    # verify calls it pending with that restart, never "not verified"; httpd's pid file (/run/httpd/httpd.pid, written
    # when it starts) newer than the run makes its edits in force; qpidd's stay pending (no pid file tells)
    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    assert run_cli("apply", "--root", str(root), "--from", str(root), "--hosts", "8000", "--write").status == 0
    result = run_cli("verify", "--root", str(root))
    states = _states(result.stdout)
    edits = {"passenger.max_requests", "apache.max_keepalive_requests", "qpid.mgmt_pub_interval"}
    assert {states[t] for t in edits} == {"pending"}, result.stdout
    assert ("written into /etc/httpd/conf.d/05-foreman-ssl.conf; MaxKeepAliveRequests takes effect when httpd restarts "
            f"(no pid file under {root} tells when httpd started): `systemctl restart httpd`") in result.stdout
    pid = root / "run/httpd/httpd.pid"
    pid.parent.mkdir(parents=True)
    pid.write_text("4242\n", encoding="utf-8")
    [run] = _runs(root)
    applied = json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))["epoch"]
    os.utime(pid, (applied - 60, applied - 60))  # httpd started before the run: still pending, saying so
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout)["apache.max_keepalive_requests"] == "pending"
    assert "/run/httpd/httpd.pid says httpd started at " in result.stdout
    os.utime(pid, (applied + 60, applied + 60))  # and after it: httpd reads the edits
    states = _states(run_cli("verify", "--root", str(root)).stdout)
    assert states["apache.max_keepalive_requests"] == states["passenger.max_requests"] == "in force"
    assert "apache.keepalive" not in states  # the vhost runs "KeepAlive on" already: the plan changes nothing there
    assert states["qpid.mgmt_pub_interval"] == "pending"


def test_passenger_instances_mongodb_cache_and_the_vhost_keepalive_are_read_back_where_they_take_effect(tmp_path: Path) -> None:
    # Satellite 6.7-6.9 changes (acceptance D1): PassengerMaxInstancesPerApp, MongoDB's cacheSizeGB (a hash entry of
    # mongodb::server::config_data) and the Foreman vhost's MaxKeepAliveRequests are read back from what the installer
    # renders (the Passenger and vhost directives, mongod.conf): pending while those give the old values, in force
    # once they give the set's
    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.9-prefork", root, symlinks=True)
    for rpms in (root / "sos_commands/rpm").iterdir():  # Satellite 6.7 (Foreman 1.24), whose vhost has KeepAlive parameters
        rpms.write_text(rpms.read_text(encoding="utf-8").replace("foreman-2.3.1.20-1", "foreman-1.24.1.32-1")
                        .replace("satellite-6.9.4-1", "satellite-6.7.5-1"), encoding="utf-8")
    (root / "etc/httpd/conf.d/passenger.conf").write_text(
        "LoadModule passenger_module modules/mod_passenger.so\n<IfModule mod_passenger.c>\n  PassengerMaxPoolSize 48\n"
        "</IfModule>\n", encoding="utf-8")
    cs = {"release": "Satellite 6.7", "changes": [
        {"tunable": "passenger.max_instances_per_app", "channel": "custom-hiera",
         "target": "apache::mod::passenger::passenger_max_instances_per_app", "value": 60,
         "file": "/etc/foreman-installer/custom-hiera.yaml"},
        {"tunable": "mongodb.cache_size_gb", "channel": "custom-hiera", "target": "mongodb::server::config_data",
         "value": {"storage.wiredTiger.engineConfig.cacheSizeGB": 12.8}, "file": "/etc/foreman-installer/custom-hiera.yaml"},
        {"tunable": "apache.max_keepalive_requests", "channel": "installer", "target": "--foreman-max-keepalive-requests",
         "value": 0},
        {"tunable": "capsule.proxy_timeout", "channel": "custom-hiera", "target": "apache::mod::proxy::proxy_timeout",
         "value": 600, "file": "/etc/foreman-installer/custom-hiera.yaml"}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, cs), "--write").status == 0
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout) == {"passenger.max_instances_per_app": "pending", "mongodb.cache_size_gb": "pending",
                                      "apache.max_keepalive_requests": "pending", "capsule.proxy_timeout": "pending"}, result.stdout
    assert "apache MaxKeepAliveRequests (the rendered configuration) still gives 100: waiting for an installer run" in result.stdout
    assert "mongodb (the rendered configuration) still gives {'storage.wiredTiger.engineConfig.cacheSizeGB': 8.0}" in result.stdout
    conf = root / "etc/opt/rh/rh-mongodb34/mongod.conf"  # a mongod.conf without cacheSizeGB yet: pending, not unknown
    kept = conf.read_text(encoding="utf-8")
    conf.write_text(kept.replace("  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 8\n", ""), encoding="utf-8")
    again = run_cli("verify", "--root", str(root))
    assert _states(again.stdout)["mongodb.cache_size_gb"] == "pending", again.stdout
    assert "still gives {'storage.wiredTiger.engineConfig.cacheSizeGB': 'not set'}" in again.stdout
    conf.write_text(kept, encoding="utf-8")
    assert "passenger PassengerMaxInstancesPerApp (the rendered configuration) still gives 'not set'" in result.stdout
    # what the installer run renders
    _edit(root, "etc/opt/rh/rh-mongodb34/mongod.conf", "cacheSizeGB: 8", "cacheSizeGB: 12.8")
    _edit(root, "etc/httpd/conf.d/05-foreman-ssl.conf", "MaxKeepAliveRequests 100", "MaxKeepAliveRequests 0")
    _edit(root, "etc/httpd/conf.d/passenger.conf", "PassengerMaxPoolSize 48\n", "PassengerMaxPoolSize 48\n  PassengerMaxInstancesPerApp 60\n")
    (root / "etc/httpd/conf.d/proxy.conf").write_text("ProxyTimeout 600\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert set(_states(result.stdout).values()) == {"in force"}, result.stdout


def test_qpid_interval_and_mqtt_rate_limit_are_pending_until_rendered_then_in_force_then_drift(tmp_path: Path) -> None:
    # acceptance D24: qpidd.conf without a mgmt-pub-interval line (6.7/6.9 before the installer run) and a Capsule's
    # remote_execution_ssh.yml without :mqtt_rate_limit: are "not set" there, so pending an installer run (not "not
    # verified"); once rendered with the set's value in force; a later other value is drift
    sat = tmp_path / "sat"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.9-prefork", sat, symlinks=True)
    _edit(sat, "etc/qpid/qpidd.conf", "mgmt-pub-interval=5\n", "")
    cap = tmp_path / "cap"
    shutil.copytree(REPO / "tests/fixtures/sosreports/capsule-6.15-pull-rex", cap, symlinks=True)
    rex = "etc/foreman-proxy/settings.d/remote_execution_ssh.yml"
    _edit(cap, rex, ":mqtt_rate_limit: 200\n", "")
    for root, release, change in (
            (sat, "Satellite 6.9", {"tunable": "qpid.mgmt_pub_interval", "channel": "custom-hiera",
                                    "target": "qpid::mgmt_pub_interval", "value": 5, "file": "/" + HIERA}),
            (cap, "Capsule 6.15", {"tunable": "mqtt.rate_limit", "channel": "installer", "value": 100,
                                   "target": "--foreman-proxy-plugin-remote-execution-script-mqtt-rate-limit"})):
        # with a file it writes, so that the run is journalled (installer options alone write nothing)
        cs = {"release": release, "changes": [change, CHANGES["changes"][5]]}
        assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, cs), "--write").status == 0
    result = run_cli("verify", "--root", str(sat))
    assert _states(result.stdout)["qpid.mgmt_pub_interval"] == "pending", result.stdout
    assert "qpid mgmt_pub_interval (the rendered configuration) still gives 'not set': waiting for an installer run" in result.stdout
    result = run_cli("verify", "--root", str(cap))
    assert _states(result.stdout)["mqtt.rate_limit"] == "pending", result.stdout
    assert "mqtt rate_limit (the rendered configuration) still gives 'not set': waiting for an installer run" in result.stdout
    # what the installer run renders
    _edit(sat, "etc/qpid/qpidd.conf", "interface=lo\n", "interface=lo\nmgmt-pub-interval=5\n")
    _edit(cap, rex, ":mqtt_resend_interval: 900", ":mqtt_rate_limit: 100\n:mqtt_resend_interval: 900")
    for root, tunable in ((sat, "qpid.mgmt_pub_interval"), (cap, "mqtt.rate_limit")):
        result = run_cli("verify", "--root", str(root))
        assert _states(result.stdout)[tunable] == "in force", result.stdout
    # a later run renders another value: drift
    _edit(sat, "etc/qpid/qpidd.conf", "mgmt-pub-interval=5\n", "mgmt-pub-interval=10\n")
    _edit(cap, rex, ":mqtt_rate_limit: 100", ":mqtt_rate_limit: 200")
    for root, tunable in ((sat, "qpid.mgmt_pub_interval"), (cap, "mqtt.rate_limit")):
        result = run_cli("verify", "--root", str(root))
        assert _states(result.stdout)[tunable] == "drift", result.stdout


def test_puma_values_rendered_but_not_loaded_by_systemd_are_pending(tmp_path: Path) -> None:
    # satellite-6.15-dropin without pumactl stats: after apply and an installer run (installer.conf renders the set's
    # workers and threads) systemd still runs foreman.service with the old environment (systemctl show: THREADS 5,
    # WORKERS 24) until daemon-reload and a restart: the Puma values are pending, as the drop-in removal is (D4)
    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.15-dropin", root, symlinks=True)
    (root / "sos_commands/foreman/pumactl_stats").unlink()
    assert run_cli("apply", "--root", str(root), "--audit", "--write").status == 0
    [run] = _runs(root)
    changes = json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))["changes"]
    env = {c["target"]: c["value"] for c in changes if c["target"].startswith("--foreman-foreman-service-puma-")}
    assert env, changes
    names = {"--foreman-foreman-service-puma-workers": "FOREMAN_PUMA_WORKERS",
             "--foreman-foreman-service-puma-threads-min": "FOREMAN_PUMA_THREADS_MIN",
             "--foreman-foreman-service-puma-threads-max": "FOREMAN_PUMA_THREADS_MAX"}
    installer = root / "etc/systemd/system/foreman.service.d/installer.conf"
    text = installer.read_text(encoding="utf-8")
    for option, value in env.items():  # what the installer run renders
        text = re.sub(rf"{names[option]}=\d+", f"{names[option]}={value}", text)
    installer.write_text(text, encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    states = _states(result.stdout)
    puma = [c["tunable"] for c in changes if c["target"] in env]
    assert {states[t] for t in puma} == {"pending"}, result.stdout
    assert "systemd still runs foreman.service with " in result.stdout
    assert "(systemctl show), not the configuration the installer rendered: systemctl daemon-reload && systemctl restart foreman" in result.stdout
    removal = "remove:dropin:/etc/systemd/system/foreman.service.d/override.conf"
    assert states[removal] == "pending", result.stdout
    # daemon-reload and a restart: systemd runs foreman.service with installer.conf's values (the set's threads 16/16,
    # and workers 12: the 24 systemd runs are outside medium's 8-12, so the set asks for 12, which installer.conf
    # already gives) and none left from override.conf: the removal is in force with the Puma values (D25)
    assert env == {"--foreman-foreman-service-puma-threads-min": 16, "--foreman-foreman-service-puma-threads-max": 16,
                   "--foreman-foreman-service-puma-workers": 12}, env
    show = root / "sos_commands/systemd/systemctl_show_service_--all"
    old = "FOREMAN_PUMA_THREADS_MIN=5 FOREMAN_PUMA_THREADS_MAX=5 FOREMAN_PUMA_WORKERS=24"
    text = show.read_text(encoding="utf-8")
    assert old in text
    # a loaded Environment without THREADS_MAX, which installer.conf gives as 16: it is not the rendered one: pending
    show.write_text(text.replace(old, "FOREMAN_PUMA_THREADS_MIN=16 FOREMAN_PUMA_WORKERS=12"), encoding="utf-8")
    assert _states(run_cli("verify", "--root", str(root)).stdout)[removal] == "pending"
    show.write_text(text.replace(old, "FOREMAN_PUMA_THREADS_MIN=16 FOREMAN_PUMA_THREADS_MAX=16 FOREMAN_PUMA_WORKERS=12"),
                    encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    states = _states(result.stdout)
    assert states[removal] == "in force", result.stdout
    assert {states[c["tunable"]] for c in changes if c["target"] in env} == {"in force"}, result.stdout


def test_a_later_sysctl_file_is_drift_while_the_kernel_still_has_the_value(tmp_path: Path) -> None:
    # the kernel runs foretune's fs.aio-max-nr (sysctl -a says so) and a sysctl.d file read after 90-foretune.conf
    # appears with the old value: it wins at the next boot or sysctl --system, so verify calls it drift at once,
    # naming the file, as it does a new drop-in (acceptance D8)
    root = _tree(tmp_path)
    sysctl = {"release": "Satellite 6.15", "changes": [
        {"tunable": "kernel.aio_max_nr", "channel": "sysctl", "target": "fs.aio-max-nr", "value": 1048576,
         "effect": "sysctl-reload", "file": "/etc/sysctl.d/90-foretune.conf"}]}
    assert run_cli("apply", "--root", str(root), "--changes", _changes(tmp_path, sysctl), "--write").status == 0
    kernel = next(p for p in (root / "sos_commands/kernel").iterdir() if p.name.startswith("sysctl_-a"))
    kernel.write_text(re.sub(r"fs\.aio-max-nr = \d+", "fs.aio-max-nr = 1048576", kernel.read_text(encoding="utf-8")),
                      encoding="utf-8")
    assert _states(run_cli("verify", "--root", str(root)).stdout) == {"kernel.aio_max_nr": "in force"}
    (root / "etc/sysctl.d/99-late.conf").write_text("fs.aio-max-nr = 65536\n", encoding="utf-8")
    result = run_cli("verify", "--root", str(root))
    assert result.status == 1 and _states(result.stdout) == {"kernel.aio_max_nr": "drift"}, result.stdout
    assert ("/etc/sysctl.d/99-late.conf sets fs.aio-max-nr = 65536 and is read after 90-foretune.conf: sysctl --system "
            "keeps 65536") in result.stdout and "the kernel still has 1048576 until then" in result.stdout


def test_a_custom_hiera_that_is_an_absolute_symbolic_link_is_refused_not_planned_as_absent(tmp_path: Path) -> None:
    # a copy made with cp -a or rsync keeps an absolute link: custom-hiera.yaml -> /elsewhere/custom-hiera.yaml. Read
    # under --root it would point outside the tree; planned as absent, the set would keep the file's stale keys and
    # locks while the installer command passes the options they override. Refused in one line, as a relative link
    # is, before anything is planned or written (acceptance D20).
    root = _tree(tmp_path)
    outside = tmp_path / "elsewhere" / "custom-hiera.yaml"
    outside.parent.mkdir()
    shutil.copy(root / HIERA, outside)
    (root / HIERA).unlink()
    (root / HIERA).symlink_to(outside)
    before = outside.read_bytes()
    for extra in ([], ["--write"], ["--audit", "--write"]):
        result = run_cli("apply", "--root", str(root), *extra)
        assert result.status == 2, result.stdout
        assert result.stderr == (f"foretune: error: {root / HIERA}: is a symbolic link (to {outside}): refusing to "
                                 "follow it\n")
    assert _runs(root) == [] and outside.read_bytes() == before


def test_drift_of_a_file_names_an_installer_run_logged_after_the_run(tmp_path: Path) -> None:
    # a 6.2 file edit undone by a later installer run: the drift names the file's time and the installer's log (its
    # run after foretune's rewrites the files it manages), as the issue asks ("what changed them where that can be told")
    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.2", root, symlinks=True)
    assert run_cli("apply", "--root", str(root), "--from", str(root), "--hosts", "8000", "--write").status == 0
    [run] = _runs(root)
    applied = json.loads((root / RUNS / run / "journal.json").read_text(encoding="utf-8"))["epoch"]
    _edit(root, "etc/qpid/qpidd.conf", "mgmt-pub-interval=5\n", "")
    log = root / "var/log/foreman-installer/satellite.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("[ INFO 2026-11-27T12:00:00 main]  Running installer\n", encoding="utf-8")
    for path in (root / "etc/qpid/qpidd.conf", log):
        os.utime(path, (applied + 120, applied + 120))
    result = run_cli("verify", "--root", str(root))
    assert _states(result.stdout)["qpid.mgmt_pub_interval"] == "drift", result.stdout
    assert ("/etc/qpid/qpidd.conf no longer has it (applied: 'mgmt-pub-interval=5'); /etc/qpid/qpidd.conf was modified at "
            in result.stdout)
    assert ("; an installer run logged in /var/log/foreman-installer/satellite.log at "
            in result.stdout and "after the run, rewrites the files it manages" in result.stdout)
