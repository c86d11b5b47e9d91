"""Helpers that pack fixture trees and hand-made members into tarballs at test time."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "sosreports"
CASES = ("satellite-6.2", "satellite-6.9", "satellite-6.15", "orcharhino-6.9", "capsule-6.15-pull-rex")


def pack(tree: Path, out: Path, *, top: str = "sosreport-host-2024-02-12-abcdef") -> Path:
    """``tree`` as a tarball (compression from the suffix) under one top-level directory, as sos does."""
    mode = {".xz": "w:xz", ".gz": "w:gz", ".bz2": "w:bz2"}.get(out.suffix, "w")
    with tarfile.open(out, mode) as archive:  # type: ignore[call-overload]
        archive.add(tree, arcname=top)
    return out


def add_bytes(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def add_symlink(archive: tarfile.TarFile, name: str, target: str) -> None:
    info = tarfile.TarInfo(name)
    info.type = tarfile.SYMTYPE
    info.linkname = target
    archive.addfile(info)
