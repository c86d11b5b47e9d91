"""Writes that cannot hurt and reads that cannot hang: foretune.safeio and every command that writes or reads files."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from foretune import safeio
from foretune.bench import results
from foretune.errors import InputError
from foretune.render.files import write_bundle, write_text
from tests.conftest import REPO, Result, run_cli

SOS = str(REPO / "tests/fixtures/sosreports/satellite-6.15")
PLAN = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
IS_ROOT = os.geteuid() == 0


def run_bounded(*argv: str, seconds: float = 30.0) -> Result:
    """run_cli in a thread; the test fails (instead of hanging) when the command blocks."""
    box: list[Result] = []
    worker = threading.Thread(target=lambda: box.append(run_cli(*argv)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert box, f"foretune {' '.join(argv)} blocked for {seconds} s"
    return box[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


def _reader(path: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as handle:
            into.append(handle.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _open_for_reader(path: Path, timeout: float = 10.0) -> None:
    """Wait until a reader has the FIFO open (a non-blocking open for writing then succeeds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            return
        except OSError:
            time.sleep(0.01)
    raise AssertionError("reader never opened the FIFO")


# --- writing ---------------------------------------------------------------------------------

def test_fifo_without_reader_is_refused_at_once_and_stays_a_fifo(fifo: Path) -> None:
    result = run_bounded("audit", SOS, "--output", str(fifo))
    assert result.status == 2
    assert result.stderr.strip().splitlines() == [f"foretune: error: {fifo}: is a FIFO nobody is reading: refusing to wait for a reader"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in fifo.parent.iterdir()) == ["pipe.yaml"]


def test_fifo_with_reader_is_written_as_a_stream(fifo: Path) -> None:
    got: list[bytes] = []
    reader = _reader(fifo, got)
    # The reader blocks in open() until a writer appears; hold the FIFO open once so it is ready.
    keep = os.open(fifo, os.O_WRONLY)
    written = safeio.write_file(fifo, "report\n")
    os.close(keep)
    reader.join(10)
    assert got == [b"report\n"]
    assert written.stream and written.backup is None
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in fifo.parent.iterdir()) == ["pipe.yaml"]


def test_dev_null_is_written_as_a_stream_without_backup() -> None:
    before = set(os.listdir("/dev"))
    result = run_bounded("audit", SOS, "--output", "/dev/null", "--fail-on", "critical")
    assert result.status == 0, result.stderr
    st = os.stat("/dev/null")
    assert stat.S_ISCHR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o666
    assert set(os.listdir("/dev")) == before


@pytest.mark.skipif(not IS_ROOT, reason="mknod needs root")
def test_device_nodes_elsewhere_null_is_a_stream_others_refused(tmp_path: Path) -> None:
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o600, os.stat("/dev/null").st_rdev)
    assert safeio.write_file(null, "x").stream
    zero = tmp_path / "zero"
    os.mknod(zero, stat.S_IFCHR | 0o600, os.makedev(1, 5))
    block = tmp_path / "loop"
    os.mknod(block, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    for node, what in ((zero, "a character device"), (block, "a block device")):
        with pytest.raises(OSError, match=f"is {what}: refusing to write to it"):
            safeio.write_file(node, "x")
        assert stat.S_IMODE(os.lstat(node).st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["loop", "null", "zero"]  # no .bak, no temporary file


def test_system_directories_are_refused(tmp_path: Path) -> None:
    for target in ("/dev/foretune-test-output", "/proc/sys/vm/drop_caches", "/sys/kernel/mm/transparent_hugepage/enabled"):
        with pytest.raises(OSError, match="refusing to write under /dev, /proc or /sys"):
            safeio.write_file(target, "x")
    assert not os.path.exists("/dev/foretune-test-output")


def test_dev_stdout_is_a_stream_to_a_pipe_and_to_a_redirected_file(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "foretune", "audit", SOS, "--format", "json", "--output", "/dev/stdout", "--fail-on", "critical"]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.startswith("{") and '"schema": "foretune-audit/1"' in piped.stdout
    out = tmp_path / "report.json"
    out.write_text("earlier line\n")
    with open(out, "a") as handle:
        done = subprocess.run(argv, stdout=handle, stderr=subprocess.PIPE, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("earlier line\n{")  # appended in place: nothing renamed over, no backup
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_temporary_file_name_taken_by_a_symlink_redirects_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    target = tmp_path / "audit.txt"
    target.write_text("old report\n")
    planted = ["planted", "planted", "fresh"]
    (tmp_path / ".audit.txt.planted.foretune-tmp").symlink_to(victim)
    (tmp_path / ".audit.txt.foretune-tmp").symlink_to(victim)  # the name older versions used

    tried: list[str] = []

    def names() -> Iterator[str]:
        for name in planted:
            tried.append(name)
            yield name

    monkeypatch.setattr(tempfile, "_get_candidate_names", names)
    written = safeio.write_file(target, "new report\n", backup=True)
    assert target.read_text() == "new report\n"
    assert victim.read_text() == "precious\n"
    assert not target.is_symlink()
    assert written.backup is not None and written.backup.read_text() == "old report\n"
    assert tried == planted  # the planted name came up (twice) and was skipped, not followed
    assert (tmp_path / ".audit.txt.planted.foretune-tmp").is_symlink()


def test_backup_name_taken_by_a_symlink_redirects_nothing(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("a: 1\n")
    now = time.time()
    for delta in range(3):
        stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now + delta))
        (tmp_path / f"custom-hiera.yaml.foretune-{stamp}.bak").symlink_to(victim)
    saved = write_text(target, "a: 2\n", backup=True)
    assert victim.read_text() == "precious\n"
    assert saved is not None and not saved.is_symlink() and saved.read_text() == "a: 1\n"
    assert target.read_text() == "a: 2\n"


def test_symlink_as_target_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    victim = tmp_path / "passwd"
    victim.write_text("root:x:0:0\n")
    link = tmp_path / "report.html"
    link.symlink_to(victim)
    result = run_bounded("audit", SOS, "--output", str(link))
    assert result.status == 2
    assert result.stderr.strip() == (f"foretune: error: {link}: is a symbolic link (to {victim}): refusing to write through it; "
                                     "name the file itself")
    assert victim.read_text() == "root:x:0:0\n" and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["passwd", "report.html"]


def test_existing_file_keeps_its_mode_and_so_does_its_backup(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("a: 1\n")
    os.chmod(target, 0o640)
    saved = write_text(target, "a: 2\n", backup=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert saved is not None and stat.S_IMODE(saved.stat().st_mode) == 0o640


def test_new_file_gets_0644_less_the_umask(tmp_path: Path) -> None:
    for umask, expected in ((0o000, 0o644), (0o022, 0o644), (0o077, 0o600), (0o027, 0o640)):
        old = os.umask(umask)
        try:
            path = tmp_path / f"new-{umask:o}.txt"
            safeio.write_file(path, "x\n")
        finally:
            os.umask(old)
        assert stat.S_IMODE(path.stat().st_mode) == expected, oct(umask)


def test_snapshot_mode_is_0600_whatever_the_umask_new_or_replaced(tmp_path: Path) -> None:
    for umask in (0o000, 0o022):
        old = os.umask(umask)
        try:
            path = tmp_path / f"snap-{umask:o}.json"
            safeio.write_file(path, "{}\n", mode=safeio.SNAPSHOT_MODE)
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, oct(umask)
            os.chmod(path, 0o644)
            safeio.write_file(path, "{}\n", mode=safeio.SNAPSHOT_MODE)  # same content, wrong mode: put right
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, oct(umask)
        finally:
            os.umask(old)


def test_reports_get_no_backup_files_an_admin_edits_do(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_text("old\n")
    assert safeio.write_file(report, "new\n").backup is None
    hiera = tmp_path / "custom-hiera.yaml"
    hiera.write_text("a: 1\n")
    saved = write_text(hiera, "a: 2\n", backup=True)
    assert saved is not None and saved.read_text() == "a: 1\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["report.txt", "custom-hiera.yaml", saved.name])


def test_plan_out_scripts_are_new_0755_others_0644_and_existing_modes_stay(tmp_path: Path) -> None:
    out = tmp_path / "apply"
    assert run_cli("plan", *PLAN, "--out", str(out)).status == 0
    assert stat.S_IMODE((out / "installer.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((out / "custom-hiera.yaml").stat().st_mode) == 0o644
    os.chmod(out / "installer.sh", 0o700)
    bigger = ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "30000", "--cpus", "32", "--ram", "128G"]
    assert run_cli(*bigger, "--out", str(out)).status == 0
    assert stat.S_IMODE((out / "installer.sh").stat().st_mode) == 0o700


@pytest.mark.skipif(not IS_ROOT, reason="giving a file to another owner needs root")
def test_owner_of_the_original_is_kept_for_the_file_and_its_backup(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("a: 1\n")
    os.chown(target, 1234, 2345)
    os.chmod(target, 0o600)
    saved = write_text(target, "a: 2\n", backup=True)
    for path in (target, saved):
        assert path is not None
        st = path.stat()
        assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 2345, 0o600)


def test_render_write_into_a_fifo_never_hangs_nor_replaces_it(fifo: Path) -> None:
    result = run_bounded("render", *PLAN, "--merge-into", str(fifo), "--write")
    assert result.status == 2
    assert result.stderr.strip() == f"foretune: error: {fifo}: is a FIFO, not a regular file: refusing to read it"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_plan_out_refuses_a_planted_subdirectory_symlink(tmp_path: Path) -> None:
    out = tmp_path / "apply"
    elsewhere = tmp_path / "etc-systemd-system"
    elsewhere.mkdir()
    out.mkdir()
    (out / "systemd").symlink_to(elsewhere)
    with pytest.raises(InputError, match="systemd: is a symbolic link: refusing to write through it"):
        write_bundle({"systemd/httpd.service.d/limits.conf": "x\n"}, str(out))
    assert list(elsewhere.iterdir()) == []


def test_bench_output_and_collect_use_the_same_safe_write(tmp_path: Path, fifo: Path) -> None:
    doc = {"schema": results.SCHEMA, "kind": "db", "host": "h", "created": "2026-01-01T00:00:00", "tool_version": "x", "results": []}
    link = tmp_path / "bench.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(InputError, match="is a symbolic link"):
        results.write(doc, str(link))
    assert not (tmp_path / "elsewhere.json").exists()
    with pytest.raises(InputError, match="FIFO nobody is reading"):
        results.write(doc, str(fifo))
    snap = tmp_path / "snap.json"
    snap.symlink_to(tmp_path / "elsewhere.json")
    result = run_bounded("collect", "--out", str(snap))
    assert result.status == 2 and "is a symbolic link" in result.stderr
    assert not (tmp_path / "elsewhere.json").exists()


# --- reading ---------------------------------------------------------------------------------

@pytest.mark.parametrize("option", ["--waivers", "--bench"])
def test_audit_file_options_refuse_a_fifo_at_once(fifo: Path, option: str) -> None:
    result = run_bounded("audit", SOS, option, str(fifo))
    assert result.status == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "is a FIFO, not a regular file: refusing to read it" in result.stderr


@pytest.mark.parametrize("name", ["snap.json", "snap.json.gz", "sos.tar.xz"])
def test_source_that_is_a_fifo_is_refused_at_once(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    os.mkfifo(path)
    for argv in (("facts", str(path)), ("audit", str(path)), ("plan", "--from", str(path))):
        result = run_bounded(*argv)
        assert result.status == 2, argv
        assert "is a FIFO, not a regular file: refusing to read it" in result.stderr, argv


def test_character_devices_are_refused_as_inputs_but_dev_null_reads_empty() -> None:
    result = run_bounded("audit", SOS, "--waivers", "/dev/zero")
    assert result.status == 2
    assert "/dev/zero: is a character device, not a regular file: refusing to read it" in result.stderr
    assert safeio.read_bytes("/dev/null") == b""
    assert run_bounded("audit", SOS, "--waivers", "/dev/null", "--fail-on", "critical").status == 0


def test_a_fifo_inside_a_sosreport_is_skipped_not_waited_for(tmp_path: Path) -> None:
    import shutil

    tree = tmp_path / "sos"
    shutil.copytree(SOS, tree, symlinks=True)
    (tree / "etc/redis.conf").unlink()
    os.mkfifo(tree / "etc/redis.conf")
    result = run_bounded("facts", str(tree), "--format", "json")
    assert result.status == 0


def test_a_failed_write_leaves_the_original_and_no_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.txt"
    target.write_text("old\n")
    os.chmod(target, 0o600)

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(safeio.os, "fsync", full)
    with pytest.raises(OSError, match="No space left on device"):
        safeio.write_file(target, "new\n", backup=False)
    assert target.read_text() == "old\n" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.txt"]


def test_live_reads_skip_a_fifo_without_waiting(tmp_path: Path) -> None:
    from foretune.host.sources.live import LiveHost
    from foretune.host.specs import BY_NAME

    (tmp_path / "etc").mkdir()
    os.mkfifo(tmp_path / "etc/redis.conf")
    host = LiveHost({"PATH": ""}, root=str(tmp_path))
    box: list[object] = []
    worker = threading.Thread(target=lambda: box.append(host.read(BY_NAME["redis_conf"])), daemon=True)
    worker.start()
    worker.join(10)
    assert box == [None]
    assert host.why["redis_conf"] == "/etc/redis.conf: is a FIFO, not a regular file: refusing to read it"
