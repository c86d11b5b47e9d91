"""The system's decompressor (xz -T0, pigz) and foretune's own decoder give the same facts and problems."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from foretune.errors import InputError
from foretune.facts import read_source
from foretune.host.sources import stream
from foretune.logs.source import open_tarball
from tests.facts.archive import FIXTURES, pack

HAVE_XZ = shutil.which("xz") is not None
HAVE_GZ = shutil.which("pigz") is not None
needs_xz = pytest.mark.skipif(not HAVE_XZ, reason="no xz command on this machine: only the Python decoder exists")
needs_gz = pytest.mark.skipif(not HAVE_GZ, reason="no pigz command on this machine")


def _read(path: Path, decoder: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, object], list[str]]:
    if decoder == "python":
        monkeypatch.setenv(stream.ENV_DECODER, "python")
    else:
        monkeypatch.delenv(stream.ENV_DECODER, raising=False)
    try:
        facts = read_source(str(path))
    except InputError as exc:  # too damaged to be read at all: the same one line either way
        return {}, [str(exc)]
    known = {name: facts.value(name) for name in ("product", "product_version", "ram_bytes", "puma", "log_incidents")}
    return known, list(facts.problems)


def test_python_decoder_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert stream.system_command("xz", {stream.ENV_DECODER: "python"}) is None
    assert stream.system_command("gz", {stream.ENV_DECODER: "python"}) is None
    assert stream.system_command("bz2", {}) is None  # bzip2 is always decoded here


@needs_xz
def test_system_xz_is_used_with_all_threads() -> None:
    command = stream.system_command("xz", {})
    assert command is not None
    assert Path(command[0]).name == "xz" and command[1:] == ["-T0", "-dc"]


def test_gz_is_decoded_by_pigz_or_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """pigz when present; never gzip (one thread in another process costs more CPU than zlib here)."""
    command = stream.system_command("gz", {})
    assert (Path(command[0]).name if command else None) == ("pigz" if shutil.which("pigz") else None)
    (tmp_path / "gzip").write_text("#!/bin/sh\nexec cat\n")
    (tmp_path / "gzip").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))  # a gzip and no pigz
    assert stream.system_command("gz", {}) is None


def _cut(whole: bytes, at: int) -> bytes:
    return whole[:at]


def _flip_crc(whole: bytes) -> bytes:  # gzip: the CRC-32 in the trailer; xz: a byte of the index
    return whole[:-8] + bytes([whole[-8] ^ 0xFF]) + whole[-7:]


def _flip_middle(whole: bytes) -> bytes:
    mid = len(whole) // 2
    return whole[:mid] + bytes([whole[mid] ^ 0x55]) + whole[mid + 1:]


@pytest.mark.parametrize("suffix", [pytest.param(".xz", marks=needs_xz), pytest.param(".gz", marks=needs_gz)])
@pytest.mark.parametrize("damage", ["none", "cut-half", "cut-tail", "crc", "middle"])
def test_both_decoders_read_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str, damage: str) -> None:
    whole = pack(FIXTURES / "satellite-6.15", tmp_path / f"w.tar{suffix}").read_bytes()
    data = {"none": whole, "cut-half": _cut(whole, len(whole) // 2), "cut-tail": _cut(whole, len(whole) - 3),
            "crc": _flip_crc(whole), "middle": _flip_middle(whole)}[damage]
    path = tmp_path / f"d.tar{suffix}"
    path.write_bytes(data)
    mine = _read(path, "python", monkeypatch)
    system = _read(path, "system", monkeypatch)
    assert system == mine
    if damage == "none":
        assert mine[0]["product"] == "satellite" and not mine[1]
    else:  # the damage is reported, in the same words, whichever decoded it
        assert any(" is corrupt" in p or " is truncated" in p for p in mine[1]), mine[1]


@needs_xz
def test_multi_block_xz(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = pack(FIXTURES / "satellite-6.15", tmp_path / "w.tar")
    subprocess.run(["xz", "-T2", "--block-size=16KiB", "-k", str(plain)], check=True)
    path = tmp_path / "w.tar.xz"
    listing = subprocess.run(["xz", "--robot", "-l", str(path)], check=True, capture_output=True, text=True).stdout
    blocks = int(next(line for line in listing.splitlines() if line.startswith("totals")).split("\t")[2])
    assert blocks > 2  # several blocks, which xz -T0 decodes on several cores
    mine = _read(path, "python", monkeypatch)
    system = _read(path, "system", monkeypatch)
    assert system == mine
    assert mine[0]["product"] == "satellite" and not mine[1]


@needs_gz
def test_a_failing_tool_hands_over_to_the_python_decoder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool that stops early with an error: the archive is read again by the Python decoder, logs included."""
    whole = pack(FIXTURES / "capsule-6.15-measured-failure", tmp_path / "w.tar.gz")
    fake = tmp_path / "fails"
    fake.write_text("#!/bin/sh\nhead -c 5000 | gzip -dc 2>/dev/null; exit 1\n")
    fake.chmod(0o755)
    mine = _read(whole, "python", monkeypatch)
    monkeypatch.setattr(stream, "TOOLS", {"gz": ((str(fake),),)})
    assert stream.system_command("gz", {}) == [str(fake)]
    failing = _read(whole, "system", monkeypatch)
    assert failing == mine
    assert mine[0]["log_incidents"]  # the logs were read once, not twice, by the second pass


@needs_xz
def test_progress_follows_the_tool_through_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = pack(FIXTURES / "satellite-6.15", tmp_path / "w.tar.xz")
    monkeypatch.delenv(stream.ENV_DECODER, raising=False)
    seen: list[tuple[int, int]] = []
    open_tarball(path, progress=lambda done, size: seen.append((done, size)))
    size = path.stat().st_size
    assert seen and all(0 <= done <= size and total == size for done, total in seen)
    assert seen[-1][0] > 0  # the tool's reads move the shared offset, which progress reports


def test_steady_heap_is_asked_where_there_is_mallopt(monkeypatch: pytest.MonkeyPatch) -> None:
    import ctypes

    assert stream.steady_heap() in (True, False)  # glibc: True; elsewhere False, never an error

    def missing(name: object) -> object:
        raise OSError("no C library")

    monkeypatch.setattr(ctypes, "CDLL", missing)
    assert stream.steady_heap() is False


def test_the_first_damage_is_the_one_every_later_read_reports() -> None:
    """A reader that stops at the damage (a log member) and the tar reader after it report the same damage, not a
    later error the decoder finds when fed on past it."""
    import io  # start-up: test only
    import lzma  # start-up: test only
    import random  # start-up: test only

    from foretune.host.sources.stream import Corrupt, Decompressed

    plain = random.Random(7).randbytes(600_000)  # incompressible: the damage stays mid-file
    data = bytearray(lzma.compress(plain))
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(64)
    stream = Decompressed(io.BytesIO(bytes(data)), "xz")
    errors = []
    for _ in range(4):  # the data before the damage first, then the damage on every read after it
        try:
            while stream.read(65536):
                pass
        except Corrupt as exc:
            errors.append(str(exc))
    assert len(errors) >= 3 and len(set(errors)) == 1, errors
    assert "after 0 bytes" not in errors[0], errors[0]


@pytest.mark.parametrize("kind", [pytest.param("xz", marks=needs_xz), pytest.param("gz", marks=needs_gz)])
def test_system_decoder_seeks_forward_as_tarfile_reads_it(tmp_path: Path, kind: str) -> None:
    """tell/seek (what tarfile's "r:" mode asks): reads and forward skips give the data's own bytes; never backwards."""
    import gzip
    import lzma
    import random

    plain = random.Random(5).randbytes(3 * stream.OUT_CHUNK + 777)
    path = tmp_path / f"data.{kind}"
    path.write_bytes(lzma.compress(plain) if kind == "xz" else gzip.compress(plain))
    with path.open("rb") as handle:
        command = stream.system_command(kind, {})
        assert command is not None
        reader = stream.SystemDecompressed(handle, kind, command)
        try:
            assert reader.tell() == 0 and reader.read(512) == plain[:512] and reader.tell() == 512
            assert reader.seek(512) == 512  # where it is already: nothing skipped
            assert reader.seek(1000) == 1000 and reader.read(10) == plain[1000:1010]
            far = 2 * stream.OUT_CHUNK + 5  # beyond what the decoder holds
            assert reader.seek(far) == far and reader.tell() == far
            assert reader.read(stream.OUT_CHUNK) == plain[far:far + stream.OUT_CHUNK]
            with pytest.raises(OSError):
                reader.seek(far)
            assert reader.seek(len(plain) + 5000) == len(plain)  # the end comes first
            assert reader.read(1) == b""
        finally:
            reader.close()
