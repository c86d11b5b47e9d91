"""Hostile input, round 2: one reproducer per defect, each a test that fails without its fix.

Outputs never clobber inputs, snapshots are 0600, reports follow the umask and get no backups,
odd values in custom-hiera or the answers file become a problem instead of a crash, log text
never drives the terminal, and a damaged archive says what happened and what may be partial.
"""

from __future__ import annotations

import bz2
import io
import json
import lzma
import os
import re
import shutil
import stat
import tarfile
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

FIXTURE = REPO / "tests/fixtures/sosreports/satellite-6.15"
LOGS = REPO / "tests/logs/fixtures"
PLAN = ("--product", "satellite", "--version", "6.15", "--hosts", "500", "--cpus", "8", "--ram", "32G")


def one_line(stderr: str) -> bool:
    return stderr.count("\n") == 1 and "Traceback" not in stderr


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("snap") / "snap.json"
    result = run_cli("collect", "--root", str(FIXTURE), "--output", str(out), environ={"PATH": "/nonexistent"})
    assert result.status == 0, result.stderr
    return out


# --- files --------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [("facts",), ("audit",), ("logs",)])
def test_output_that_is_the_input_is_refused_and_the_input_kept(command: tuple[str, ...], snapshot: Path, tmp_path: Path) -> None:
    source = tmp_path / "snap.json"
    shutil.copyfile(snapshot, source)
    before = source.read_bytes()
    link = tmp_path / "link.json"
    link.symlink_to(source)
    for given, output in ((source, source), (link, source), (source, tmp_path / "." / "snap.json")):
        result = run_cli(*command, str(given), "--output", str(output))
        assert result.status == 2, result.stderr
        assert one_line(result.stderr) and "refusing to overwrite an input" in result.stderr, result.stderr
        assert source.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "snap.json"]


def test_output_over_a_file_of_an_input_directory_is_refused(tmp_path: Path) -> None:
    tree = tmp_path / "sos"
    shutil.copytree(FIXTURE, tree, symlinks=True)
    version = (tree / "version.txt").read_bytes()
    for argv in (("facts", str(tree)), ("audit", str(tree)), ("logs", str(tree))):
        result = run_cli(*argv, "--output", str(tree / "version.txt"))
        assert result.status == 2 and one_line(result.stderr), result.stderr
        assert f"is inside the input {tree}; refusing to overwrite an input" in result.stderr
    assert (tree / "version.txt").read_bytes() == version
    result = run_cli("plan", "--from", str(tree), "--hosts", "500", "--output-dir", str(tree / "etc/foreman-installer"))
    assert result.status == 2 and "is inside the input" in result.stderr, result.stderr


def test_output_dir_that_is_the_input_directory_is_refused(tmp_path: Path) -> None:
    tree = tmp_path / "sos"
    shutil.copytree(FIXTURE, tree, symlinks=True)
    names = sorted(str(p) for p in tree.rglob("*"))
    result = run_cli("plan", "--from", str(tree), "--hosts", "500", "--output-dir", str(tree))
    assert result.status == 2 and one_line(result.stderr) and "is the input" in result.stderr, result.stderr
    assert sorted(str(p) for p in tree.rglob("*")) == names


@pytest.mark.parametrize("command", [("plan", *PLAN), ("audit", str(FIXTURE), "--hosts", "500")])
def test_output_dir_that_is_a_symlink_is_refused_like_output(command: tuple[str, ...], tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "apply"
    link.symlink_to(elsewhere)
    result = run_cli(*command, "--output-dir", str(link))
    assert result.status == 2, result.stderr
    assert result.stderr.strip() == (f"foretune: error: --output-dir {link}: is a symbolic link (to {elsewhere}): refusing to "
                                     "write through it; name the directory itself")
    assert list(elsewhere.iterdir()) == []


def test_snapshots_are_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        for name in ("a.json", "b.json.gz"):
            out = tmp_path / name
            result = run_cli("collect", "--root", str(FIXTURE), "--output", str(out), environ={"PATH": "/nonexistent"})
            assert result.status == 0, result.stderr
            assert stat.S_IMODE(out.stat().st_mode) == 0o600, name
        os.chmod(tmp_path / "a.json", 0o644)  # a snapshot written again is 0600 again
        assert run_cli("collect", "--root", str(FIXTURE), "--output", str(tmp_path / "a.json"),
                       environ={"PATH": "/nonexistent"}).status == 0
        assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o600
    finally:
        os.umask(old)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json.gz"]  # no backup of a snapshot


def test_reports_follow_the_umask_and_get_no_backup(tmp_path: Path) -> None:
    report = tmp_path / "audit.txt"
    old = os.umask(0o077)
    try:
        # 1: the fixture's pumactl stats show all 24 workers at pool_capacity 0 with a backlog of 2 (a high finding)
        assert run_cli("audit", str(FIXTURE), "--output", str(report)).status == 1
        assert stat.S_IMODE(report.stat().st_mode) == 0o600
        assert run_cli("audit", str(FIXTURE), "--format", "json", "--output", str(report)).status == 1
        os.umask(0o022)
        assert run_cli("plan", *PLAN, "--output", str(tmp_path / "plan.json")).status == 0
        assert stat.S_IMODE((tmp_path / "plan.json").stat().st_mode) == 0o644
    finally:
        os.umask(old)
    assert json.loads(report.read_text())  # replaced by the second run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.txt", "plan.json"]  # no *.bak


def test_output_dir_backs_up_only_what_an_admin_edits(tmp_path: Path) -> None:
    out = tmp_path / "apply"
    assert run_cli("plan", *PLAN, "--output-dir", str(out)).status == 0
    for path in out.rglob("*"):
        if path.is_file():
            path.write_text(path.read_text() + "# edited\n")
    assert run_cli("plan", *PLAN, "--output-dir", str(out)).status == 0
    backups = sorted(str(p.relative_to(out)).split(".foretune-")[0] for p in out.rglob("*.bak"))
    assert "custom-hiera.yaml" in backups
    assert not [b for b in backups if b.endswith((".md", ".sh"))], backups
    assert all(b == "custom-hiera.yaml" or b.startswith(("systemd/", "sysctl.d/")) for b in backups), backups


def test_render_write_into_dev_null_is_refused_in_one_line() -> None:
    result = run_cli("render", *PLAN, "--write", "--merge-into", "/dev/null")
    assert result.status == 2
    assert result.stderr.strip() == ("foretune: error: /dev/null: is a character device, not a custom-hiera.yaml file: "
                                     "refusing to merge into it")
    assert "wrote" not in result.stdout + result.stderr


@pytest.mark.parametrize("target", ["link", "/dev/stdout"])
def test_render_write_into_a_device_behind_a_link_is_refused_in_one_line(target: str, tmp_path: Path) -> None:
    """A link to /dev/null, and /dev/stdout (a link to the pipe it writes to): refused like /dev/null itself."""
    import subprocess
    import sys

    path = tmp_path / "h.yaml"
    if target == "link":
        path.symlink_to("/dev/null")
    else:
        path = Path(target)
    log = tmp_path / "stdout.txt"  # fd 1 a regular file, as in `foretune ... > file`
    with log.open("w") as stdout:
        done = subprocess.run([sys.executable, "-m", "foretune", "render", *PLAN, "--write", "--merge-into", str(path)],
                              stdout=stdout, stderr=subprocess.PIPE, text=True, check=False)
    done.stdout = log.read_text()
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "not a custom-hiera.yaml file: refusing to merge into it" in done.stderr
    assert "wrote" not in done.stdout + done.stderr


# --- crashes ------------------------------------------------------------------------------------

BLOCK = "foreman::db_pool: |\n  twenty\n  connections\n"


def _tree(tmp_path: Path, *, hiera: str = "", answers: str = "") -> Path:
    tree = tmp_path / "sos"
    shutil.copytree(FIXTURE, tree, symlinks=True)
    if hiera:
        with (tree / "etc/foreman-installer/custom-hiera.yaml").open("a") as handle:
            handle.write(hiera)
    if answers:
        path = tree / "etc/foreman-installer/scenarios.d/satellite-answers.yaml"
        text = path.read_text()
        assert "\nforeman:\n" in text
        path.write_text(text.replace("\nforeman:\n", "\nforeman:\n" + answers, 1))
    return tree


@pytest.mark.parametrize(("where", "hiera", "answers"), [
    ("custom-hiera.yaml", BLOCK, ""),
    ("custom-hiera.yaml", "foreman::foreman_service_puma_workers: many\nforeman_proxy_content::pulpcore_worker_count: [1, 2]\n", ""),
    ("satellite-answers.yaml", "", "  db_pool: |\n    twenty\n"),
])
def test_non_integer_count_is_a_problem_quoting_where_it_came_from(where: str, hiera: str, answers: str, tmp_path: Path) -> None:
    tree = _tree(tmp_path, hiera=hiera, answers=answers)
    target = tmp_path / "custom-hiera.yaml"
    shutil.copyfile(tree / "etc/foreman-installer/custom-hiera.yaml", target)
    runs = {"plan": ("plan", "--from", str(tree), "--hosts", "500"), "audit": ("audit", str(tree), "--hosts", "500"),
            "render": ("render", "--from", str(tree), "--hosts", "500", "--merge-into", str(target))}
    for name, argv in runs.items():
        result = run_cli(*argv)
        # audit: 1 for the fixture's saturated Puma pool (24 workers at pool_capacity 0, a backlog of 2 each)
        assert result.status == (1 if name == "audit" else 0), (name, result.stderr)
        problems = [line for line in result.stderr.splitlines() if "is not a whole number" in line]
        assert problems, (name, result.stderr)
        assert all(where in line and "left out, the plan uses the installer's value" in line for line in problems), problems
    plan = run_cli("plan", "--from", str(tree), "--hosts", "500")
    if "db_pool" in hiera + answers:
        assert 'foreman::db_pool: "twenty\\n' in plan.stderr  # the value quoted on one line


def test_out_of_range_counts_are_problems_and_left_out(tmp_path: Path) -> None:
    hiera = ("foreman::foreman_service_puma_workers: -5\nforeman::foreman_service_puma_threads_max: 0\n"
             "foreman::db_pool: 99999999999999999999999999\nforeman::foreman_service_puma_threads_min: 0\n"
             "foreman_proxy::plugin::dynflow::file_limit: 1000000\n")
    tree = _tree(tmp_path, hiera=hiera)
    result = run_cli("plan", "--from", str(tree), "--hosts", "500")
    assert result.status == 0, result.stderr
    problems = [line for line in result.stderr.splitlines() if "is out of range" in line]
    assert [p.split(": ")[3] for p in problems] == ["foreman::foreman_service_puma_workers",
                                                    "foreman::foreman_service_puma_threads_max", "foreman::db_pool"], problems
    assert "foreman::foreman_service_puma_threads_max: 0 is out of range (a count from 1 to 100000)" in result.stderr
    assert all("left out, the plan uses the installer's value" in p for p in problems)
    budget = result.stdout.split("PostgreSQL connection budget:")[1].split("\n\n")[0]
    assert not re.search(r"(?<![\w-])-[0-9]", budget) and "99999999" not in result.stdout, budget  # no negative figure


def test_huge_duration_in_production_log_is_no_crash(tmp_path: Path) -> None:
    log = tmp_path / "production.log"
    huge = "9" * 400
    log.write_text(f"2025-01-10T08:00:00 [I|app|11111111] Processing by HostsController#index as JSON\n"
                   f"2025-01-10T08:00:01 [I|app|11111111] Completed 200 OK in {huge}.0ms (Views: 1e400ms | ActiveRecord: {huge}ms)\n"
                   f"2025-01-10T08:00:02 [I|app|22222222] Processing by HostsController#index as JSON\n"
                   f"2025-01-10T08:00:02 [I|app|22222222] Completed 200 OK in 95ms (Views: 1.0ms | ActiveRecord: 50.0ms)\n")
    for fmt in ("text", "json", "html", "markdown"):
        result = run_cli("logs", str(log), "--format", fmt)
        assert result.status == 0, (fmt, result.stderr)


def test_absurd_durations_in_production_log_are_not_counted(tmp_path: Path) -> None:
    import json as json_module

    log = tmp_path / "production.log"
    lines = []
    for i, took in enumerate(("1e400", "-5", "nan", "1e300", "95", "105")):
        rid = f"{i:08x}"
        lines += [f"2025-01-10T08:00:0{i} [I|app|{rid}] Processing by HostsController#index as JSON\n",
                  f"2025-01-10T08:00:0{i} [I|app|{rid}] Completed 200 OK in {took}ms (Views: 1.0ms | ActiveRecord: 5.0ms)\n"]
    log.write_text("".join(lines))
    result = run_cli("logs", str(log), "--format", "json")
    assert result.status == 0, result.stderr
    text = result.stdout
    assert "e+300" not in text and "Infinity" not in text and "NaN" not in text and "1" + "0" * 300 not in text
    production = json_module.loads(text)["production"][0]
    assert production["requests"] == 2 and production["not_understood"] == 4
    assert (production["latency"]["p50"], production["latency"]["max"]) == (95.0, 105.0)
    shown = run_cli("logs", str(log)).stdout
    assert "4 lines not understood" in shown and "p50 95.0 ms, p95 105 ms, p99 105 ms, max 105 ms" in shown, shown
    assert "peak 1 request" in shown, shown  # the dropped lines still ended their requests


def test_invalid_timestamp_in_custom_hiera_is_one_line_for_render(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("foreman::foreman_service_puma_workers: 4\nforeman::x: !!timestamp 2024-13-45\n")
    for extra in ((), ("--write",)):
        result = run_cli("render", *PLAN, "--merge-into", str(target), *extra)
        assert result.status == 2, result.stderr
        assert one_line(result.stderr) and "not usable YAML (month must be in 1..12)" in result.stderr, result.stderr
    assert target.read_text().endswith("2024-13-45\n")


# --- terminal -----------------------------------------------------------------------------------

def test_escape_sequences_in_a_tasks_export_never_reach_the_terminal(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    tasks = tree / "sos_commands/foreman/foreman_tasks_tasks"
    tasks.write_text("\x1b[2J\x1b]0;owned\x07\x9b31mnot a header\n" + tasks.read_text())
    for fmt in ("text", "markdown"):
        result = run_cli("logs", str(tree), "--format", fmt)
        assert result.status == 0, result.stderr
        assert "not understood" in result.stdout
        assert not any(ch in result.stdout for ch in "\x1b\x07\x9b"), fmt
        assert "\\x1b[2J" in result.stdout or fmt == "markdown"


def test_escape_sequences_in_request_paths_and_controllers_never_reach_html_charts(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    log = tree / "var/log/foreman/production.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(30):
        rid = f"{i:08x}"
        stamp = f"2024-02-12T10:{i:02d}:00"
        lines += [f'{stamp} [I|app|{rid}] Started GET "/api/\x1b[31mhosts\x1b]0;owned\x07/{i % 3}" for 10.0.0.1\n',
                  f"{stamp} [I|app|{rid}] Processing by Api::V2::\x1b[2JHosts\x9b31mController#index as JSON\n",
                  f"{stamp} [I|app|{rid}] Completed 200 OK in {10 + i}ms (ActiveRecord: 1.0ms)\n"]
    log.write_text("".join(lines))
    result = run_cli("logs", str(tree), "--format", "html")
    assert result.status == 0, result.stderr
    assert "<svg" in result.stdout and "Hosts" in result.stdout
    assert not any(ch in result.stdout for ch in "\x1b\x07\x9b")


# --- secrets in logs reports --------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["text", "json", "html", "markdown"])
def test_logs_reports_never_show_url_userinfo(fmt: str, tmp_path: Path) -> None:
    log = tmp_path / "foreman-ssl_access_ssl.log"
    lines = [f'10.0.0.{i} - - [27/Mar/2017:13:35:0{i} -0400] "GET https://admin:Wq7LogsUrl{i}@sat.example.com/api/v2/hosts/{i} '
             f'HTTP/1.1" 200 10 "-" "curl/7.61"' for i in range(5)]
    lines.append('10.0.0.9 - - [27/Mar/2017:13:35:09 -0400] "GET /x?Wq7 HTTP/1.1 extra" 200 10 "-" "-"')
    log.write_text("\n".join(lines) + "\n")
    result = run_cli("logs", str(log), "--format", fmt)
    assert result.status == 0, result.stderr
    assert "sat.example.com/api/v2/hosts/:id" in result.stdout
    assert "Wq7LogsUrl" not in result.stdout + result.stderr


# --- damaged archives ---------------------------------------------------------------------------

def _tar(tree: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add(tree, arcname="sosreport-sat-2026")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def fixture_tar() -> bytes:
    return _tar(FIXTURE)


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9])
def test_truncated_bz2_says_truncated_and_where(fraction: float, fixture_tar: bytes, tmp_path: Path) -> None:
    data = bz2.compress(fixture_tar)
    cut = tmp_path / "cut.tar.bz2"
    cut.write_bytes(data[: int(len(data) * fraction)])
    result = run_cli("facts", str(cut), "--format", "json")
    assert result.status == 2, result.stderr  # one bz2 block: nothing before the cut decompresses
    assert one_line(result.stderr)
    assert f"is truncated before its first tar member: compressed data ends at byte {int(len(data) * fraction):,}" in result.stderr
    assert "empty file" not in result.stderr


@pytest.mark.parametrize("keep", [520, 612])
def test_archive_cut_after_its_first_member_says_truncated(keep: int, tmp_path: Path) -> None:
    """A GNU tar (as `tar czf` writes it) whose gzip stream is flushed after ``keep`` tar bytes (the top directory's
    header and a little of the next) and cut there: truncated, and where, not "not a sosreport"."""
    import zlib

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        archive.add(FIXTURE, arcname="satellite-6.15")
    compressor = zlib.compressobj(wbits=31)  # gzip
    head = compressor.compress(buffer.getvalue()[:keep]) + compressor.flush(zlib.Z_FULL_FLUSH)
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(head)
    result = run_cli("facts", str(cut), "--format", "json")
    assert result.status == 2, result.stderr
    assert one_line(result.stderr)
    assert f"is truncated after 1 member: compressed data ends at byte {len(head)}" in result.stderr, result.stderr
    assert "not a sosreport" not in result.stderr


def test_byte_flipped_bz2_near_its_start_says_where_the_damaged_block_is(fixture_tar: bytes, tmp_path: Path) -> None:
    data = bytearray(bz2.compress(fixture_tar))
    data[12] ^= 0x10
    flipped = tmp_path / "flip.tar.bz2"
    flipped.write_bytes(bytes(data))
    result = run_cli("facts", str(flipped), "--format", "json")
    assert result.status == 2 and one_line(result.stderr), result.stderr  # one block: nothing before the damage
    assert f"bz2 data is corrupt in bytes 0-{len(data):,} of the bz2 file (the block it checks whole)" in result.stderr


def test_byte_flipped_gz_near_its_end_says_corrupt_not_truncated(tmp_path: Path) -> None:
    import gzip

    data = bytearray(gzip.compress(_tar(FIXTURE), mtime=0))
    data[len(data) - 30] ^= 0x10
    flipped = tmp_path / "flip.tar.gz"
    flipped.write_bytes(bytes(data))
    result = run_cli("facts", str(flipped), "--format", "json")
    assert result.status == 0, result.stderr
    # where the flipped bit lands depends on the fixture's bytes: the deflate stream may never end (the gzip
    # trailer then says the data was whole: corrupt near the end) or decode to a damaged tar header; either way
    # the archive is corrupt, not truncated at its full size
    first = result.stderr.splitlines()[0]
    assert "flip.tar.gz is corrupt" in first and "truncated" not in first, result.stderr


def test_byte_flipped_xz_says_corrupt_and_where(fixture_tar: bytes, tmp_path: Path) -> None:
    data = bytearray(lzma.compress(fixture_tar, preset=0))
    data[len(data) // 3] ^= 0x10
    flipped = tmp_path / "flip.tar.xz"
    flipped.write_bytes(bytes(data))
    result = run_cli("facts", str(flipped), "--format", "json")
    assert "corrupt" in result.stderr and "of the xz file" in result.stderr and "empty file" not in result.stderr, result.stderr
    assert result.status in (0, 2)
    if result.status == 2:
        assert one_line(result.stderr)


def test_cut_archive_names_every_composite_fact_that_read_past_the_cut(fixture_tar: bytes, tmp_path: Path) -> None:
    whole = tmp_path / "whole.tar"
    whole.write_bytes(fixture_tar)
    full = json.loads(run_cli("facts", str(whole), "--format", "json").stdout)["facts"]
    members = tarfile.open(fileobj=io.BytesIO(fixture_tar)).getmembers()  # noqa: SIM115
    checked = 0
    for member in members[len(members) // 4:: max(1, len(members) // 12)]:
        cut = tmp_path / "cut.tar"
        cut.write_bytes(fixture_tar[: member.offset])
        result = run_cli("facts", str(cut), "--format", "json")
        if result.status != 0:
            continue
        partial = json.loads(result.stdout)["facts"]
        warning = [line for line in result.stderr.splitlines() if "facts lost to the damage: " in line]
        assert len(warning) == 1, result.stderr
        differ = [name for name, entry in full.items() if "value" in entry and partial.get(name, {}).get("value") != entry["value"]]
        named = warning[0].split("facts lost to the damage: ", 1)[1]
        assert [name for name in differ if not __import__("re").search(rf"\b{name}\b", named)] == [], (member.name, named)
        checked += 1
    assert checked >= 5
