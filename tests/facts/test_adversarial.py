"""Messy and hostile inputs give one clear line each, never a traceback; what can be read is still read."""

from __future__ import annotations

import io
import lzma
import tarfile
from pathlib import Path

import pytest

from foretune.errors import InputError
from foretune.facts import read_source
from foretune.host.sources import tarball
from tests.conftest import run_cli
from tests.facts.archive import FIXTURES, add_bytes, add_symlink, pack

TOP = "sosreport-evil-2024"
MEMINFO = b"MemTotal: 1048576 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"


def _evil(path: Path, members: list[tuple[str, bytes | str]]) -> Path:
    """A tarball with a minimal sosreport plus ``members`` (bytes = file, str = symlink target)."""
    with tarfile.open(path, "w:gz") as archive:
        add_bytes(archive, f"{TOP}/version.txt", b"sosreport: 4.6.1\n")
        add_bytes(archive, f"{TOP}/proc/meminfo", MEMINFO)
        for name, data in members:
            if isinstance(data, str):
                add_symlink(archive, name, data)
            else:
                add_bytes(archive, name, data)
    return path


def test_traversal_and_absolute_names_are_ignored(tmp_path: Path) -> None:
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/../../etc/passwd", b"root:x:0:0\n"), ("/etc/shadow", b"root:!:1::\n")])
    facts = read_source(str(archive))
    assert facts.value("ram_bytes") == 1024**3
    assert any("'sosreport-evil-2024/../../etc/passwd' has an unsafe name" in p for p in facts.problems)
    assert any("'/etc/shadow' has an unsafe name" in p for p in facts.problems)


def test_symlink_escaping_the_archive_is_not_followed(tmp_path: Path) -> None:
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/sos_commands/kernel/sysctl_-a", "../../../../../../etc/sysctl.conf"),
                                            (f"{TOP}/etc/foreman-installer/custom-hiera.yaml", "../../../../../root/.bashrc")])
    facts = read_source(str(archive))
    assert not facts["sysctl"].known
    assert not facts["custom_hiera"].known
    assert any("sos_commands/kernel/sysctl_-a is a symlink pointing outside the archive" in p for p in facts.problems)


def test_symlink_escape_in_a_directory(tmp_path: Path) -> None:
    root = tmp_path / "sos"
    (root / "sos_commands" / "kernel").mkdir(parents=True)
    (root / "proc").mkdir()
    (root / "proc" / "meminfo").write_bytes(MEMINFO)
    secret = tmp_path / "outside.conf"
    secret.write_text("vm.swappiness = 1\n")
    (root / "sos_commands" / "kernel" / "sysctl_-a").symlink_to("../../../outside.conf")
    facts = read_source(str(root))
    assert facts.value("ram_bytes") == 1024**3
    assert not facts["sysctl"].known
    assert any("pointing outside the archive" in p for p in facts.problems)


def test_absolute_symlink_resolves_inside_the_archive(tmp_path: Path) -> None:
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/sos_commands/kernel/sysctl_-a", "/sos_commands/kernel/sysctl_copy"),
                                            (f"{TOP}/sos_commands/kernel/sysctl_copy", b"vm.swappiness = 7\n")])
    facts = read_source(str(archive))
    # absolute targets map to the archive root, never to the host running foretune
    assert facts.value("sysctl") == {"vm.swappiness": "7"}
    assert not any("outside" in p for p in facts.problems)


def test_truncated_xz_keeps_what_was_read(tmp_path: Path) -> None:
    whole = pack(FIXTURES / "satellite-6.15", tmp_path / "whole.tar.xz")
    data = whole.read_bytes()
    cut = tmp_path / "cut.tar.xz"
    cut.write_bytes(data[: int(len(data) * 0.6)])
    facts = read_source(str(cut))
    damage = [p for p in facts.problems if "truncated" in p]
    assert len(damage) == 1 and damage[0].startswith("cut.tar.xz is truncated after "), facts.problems  # one line
    assert ": facts lost to the damage: " in damage[0] and facts.damage == damage[0]
    assert len([f for f in facts.facts.values() if f.known]) > 3


def test_member_larger_than_the_cap_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tarball, "MAX_MEMBER_BYTES", 1024)
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/sos_commands/kernel/sysctl_-a", b"vm.swappiness = 30\n" * 200)])
    facts = read_source(str(archive))
    assert not facts["sysctl"].known
    assert facts.value("ram_bytes") == 1024**3
    assert "archive member sosreport-evil-2024/sos_commands/kernel/sysctl_-a is larger than 1 KiB: skipped" in facts.problems


def test_binary_junk_and_latin1(tmp_path: Path) -> None:
    archive = _evil(tmp_path / "a.tar.gz", [
        (f"{TOP}/etc/foreman/database.yml", bytes(range(256)) * 4),
        (f"{TOP}/etc/foreman-installer/custom-hiera.yaml", "# Réglages\nfoo::bar: 'café'\n".encode("latin-1")),
    ])
    facts = read_source(str(archive))
    assert "etc/foreman/database.yml is binary, not text: ignored" in facts.problems
    assert not facts["foreman_db_pool"].known
    assert "etc/foreman-installer/custom-hiera.yaml is not UTF-8: read as Latin-1" in facts.problems
    assert facts.value("custom_hiera") == {"foo::bar": "café"}


def test_malformed_text_is_one_problem_line(tmp_path: Path) -> None:
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/etc/foreman/database.yml", b"production: [unclosed\n"),
                                            (f"{TOP}/sos_commands/foreman/pumactl_stats", b"")])
    facts = read_source(str(archive))
    assert any(p.startswith("etc/foreman/database.yml: not valid YAML (line") for p in facts.problems)
    assert not facts["puma_stats"].known


@pytest.mark.parametrize("content", [b"", b"not a tarball at all" * 10])
def test_empty_or_garbage_file_is_not_a_source(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "x.tar.xz"
    path.write_bytes(content)
    with pytest.raises(InputError) as info:
        read_source(str(path))
    assert "\n" not in str(info.value)
    assert str(path) in str(info.value)


def test_xz_that_is_not_a_sosreport(tmp_path: Path) -> None:
    path = tmp_path / "x.tar.xz"
    with tarfile.open(path, "w:xz") as archive:
        add_bytes(archive, "photos/cat.jpg", b"\xff\xd8\xff")
    with pytest.raises(InputError, match="is not a sosreport"):
        read_source(str(path))


def test_non_sosreport_directory_missing_path_and_unknown_file(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(InputError, match=r"is not a sosreport: no sos_commands/ or version\.txt inside"):
        read_source(str(tmp_path))
    with pytest.raises(InputError, match="no such file or directory"):
        read_source(str(tmp_path / "missing.tar.xz"))
    with pytest.raises(InputError, match="not a sosreport directory, sosreport tarball"):
        read_source(str(tmp_path / "notes.txt"))


def test_cli_exit_statuses(tmp_path: Path) -> None:
    result = run_cli("facts", str(tmp_path))
    assert result.status == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    raw = lzma.compress(b"")
    (tmp_path / "t.tar.xz").write_bytes(raw)
    assert run_cli("facts", str(tmp_path / "t.tar.xz")).status == 2
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/etc/foreman/database.yml", b"\x00\x01")])
    result = run_cli("facts", str(archive))
    assert result.status == 0
    assert "ram_bytes" in result.stdout and "1.0 GiB" in result.stdout
    assert "foretune: warning: etc/foreman/database.yml is binary, not text: ignored" in result.stderr


def test_tarball_reads_only_wanted_members(tmp_path: Path) -> None:
    big = b"x" * (2 * 1024 * 1024)
    archive = _evil(tmp_path / "a.tar.gz", [(f"{TOP}/var/log/foreman/production.log", big),
                                            (f"{TOP}/sos_commands/foreman/huge_output", big)])
    source = tarball.SosreportTarball(archive)
    assert "var/log/foreman/production.log" not in source.files
    assert "sos_commands/foreman/huge_output" not in source.files
    assert "proc/meminfo" in source.files
    assert source._listdir("var/log/foreman") == ["production.log"]
    assert io.BytesIO(source.files["proc/meminfo"]).read() == MEMINFO


def test_archive_without_directory_members_still_globs(tmp_path: Path) -> None:
    path = tmp_path / "flat.tar"
    with tarfile.open(path, "w") as archive:  # only file members, no directory entries, no top-level folder
        add_bytes(archive, "version.txt", b"sosreport: 4.7.0\n")
        add_bytes(archive, "etc/foreman/dynflow/worker.yml", b":concurrency: 7\n")
        add_bytes(archive, "etc/foreman/dynflow/orchestrator.yml", b":concurrency: 1\n")
    facts = read_source(str(path))
    assert facts.value("dynflow") == {"workers": 1, "concurrency": 7, "orchestrator": True, "executors": None}


def test_stray_top_level_member_does_not_hide_the_sosreport(tmp_path: Path) -> None:
    path = tmp_path / "s.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        add_bytes(archive, "README.txt", b"attached by the customer\n")  # first member: once decided the layout
        add_bytes(archive, f"{TOP}/version.txt", b"sosreport: 4.6.1\n")
        add_bytes(archive, f"{TOP}/proc/meminfo", MEMINFO)
    facts = read_source(str(path))
    assert facts.value("ram_bytes") == 1024**3
    assert f"s.tar.gz: 1 top-level member beside {TOP}/ ignored (README.txt)" in facts.problems


def test_bad_header_checksum_is_reported_not_read_as_the_end(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        add_bytes(archive, f"{TOP}/version.txt", b"sosreport: 4.6.1\n")
        add_bytes(archive, f"{TOP}/proc/meminfo", MEMINFO)
        add_bytes(archive, f"{TOP}/sos_commands/kernel/sysctl_-a", b"vm.swappiness = 1\n")
    data = bytearray(buffer.getvalue())
    third = 4 * 512  # two members of one header and one data block each
    data[third + 1] ^= 0x20
    path = tmp_path / "c.tar.xz"
    path.write_bytes(lzma.compress(bytes(data)))
    facts = read_source(str(path))
    assert facts.value("ram_bytes") == 1024**3
    assert not facts["sysctl"].known
    assert facts.damage is not None and facts.damage.startswith("c.tar.xz is corrupt after 2 members, after proc/meminfo ("), \
        facts.problems
    # proc/meminfo was read whole before the damaged header: its facts are not named as read in part
    assert "ram_bytes" not in facts.damage and "sysctl" in facts.damage.split("facts lost to the damage: ", 1)[1]


def test_gzip_crc_error_is_reported(tmp_path: Path) -> None:
    whole = pack(FIXTURES / "satellite-6.15", tmp_path / "w.tar.gz").read_bytes()
    bad = whole[:-8] + bytes([whole[-8] ^ 0xFF]) + whole[-7:]  # the CRC-32 in the trailer
    path = tmp_path / "crc.tar.gz"
    path.write_bytes(bad)
    facts = read_source(str(path))
    assert facts.value("product") == "satellite"
    assert any(p.startswith("crc.tar.gz is corrupt") and "incorrect data check" in p for p in facts.problems), facts.problems


def test_archive_cut_before_sos_commands_is_read_as_far_as_it_goes(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:  # sos writes etc/ and proc/ first
        add_bytes(archive, f"{TOP}/proc/meminfo", MEMINFO)
        add_bytes(archive, f"{TOP}/etc/foreman/database.yml", b"production:\n  pool: 13\n")
        add_bytes(archive, f"{TOP}/sos_commands/kernel/sysctl_-a", b"vm.swappiness = 1\n" * 200)
    path = tmp_path / "cut.tar"
    path.write_bytes(buffer.getvalue()[: 5 * 512 + 100])  # inside the third member's data
    facts = read_source(str(path))
    assert facts.value("ram_bytes") == 1024**3 and facts.value("foreman_db_pool") == 13
    assert facts.damage is not None and facts.damage.startswith(
        "cut.tar is truncated after 3 members, in sos_commands/kernel/sysctl_-a ("), facts.problems
    assert facts.damage in facts.problems and "facts lost to the damage: " in facts.damage
    # the member the cut fell in is lost; proc/meminfo, read whole before it, is named nowhere
    assert "sysctl" in facts.damage.split("facts lost to the damage: ", 1)[1] and "ram_bytes" not in facts.damage
    assert facts["sysctl"].lost and not facts.partial.get("ram_bytes")


def test_oversized_extended_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.tar"
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as archive:
        add_bytes(archive, f"{TOP}/version.txt", b"sosreport: 4.6.1\n")
        add_bytes(archive, f"{TOP}/proc/meminfo", MEMINFO)
        info = tarfile.TarInfo(f"{TOP}/etc/x")
        info.pax_headers = {"comment": "y" * (2 * tarball.MAX_HEADER_BYTES)}
        archive.addfile(info, io.BytesIO(b""))
    facts = read_source(str(path))
    assert facts.value("ram_bytes") == 1024**3
    assert any("an extended header of" in p and "corrupt after 2 members" in p for p in facts.problems), facts.problems


def test_member_count_is_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tarball, "MAX_MEMBERS", 3)
    archive = _evil(tmp_path / "m.tar.gz", [(f"{TOP}/etc/x{i}", b"x") for i in range(10)])
    facts = read_source(str(archive))
    assert facts.value("ram_bytes") == 1024**3
    assert "m.tar.gz has more than 3 members: the rest is ignored, facts may be missing" in facts.problems


def test_hostile_yaml_is_one_problem_each(tmp_path: Path) -> None:
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]\n" for i in range(8))
    archive = _evil(tmp_path / "y.tar.gz", [(f"{TOP}/etc/foreman/database.yml", laughs.encode()),
                                            (f"{TOP}/etc/foreman-installer/custom-hiera.yaml", b"x: " + b"[" * 500 + b"]" * 500),
                                            (f"{TOP}/etc/foreman-proxy/settings.d/remote_execution_ssh.yml",
                                             b":mqtt_ttl: " + b"9" * 400 + b"\n")])
    facts = read_source(str(archive))
    assert "etc/foreman/database.yml: ignored: YAML expands to more than 100000 values (alias bomb?)" in facts.problems
    assert "etc/foreman-installer/custom-hiera.yaml: ignored: YAML nested deeper than 64 levels" in facts.problems
    assert any(p.endswith("remote_execution_ssh.yml: ignored: integer with more than 30 digits") for p in facts.problems), \
        facts.problems
    assert facts.value("ram_bytes") == 1024**3
