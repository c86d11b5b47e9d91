"""A sosreport extracted to a directory; symlinks are followed inside the tree only."""

from __future__ import annotations

import os
from pathlib import Path

from foretune.errors import InputError
from foretune.host.sources.tree import TreeSource
from foretune.safeio import read_bytes
from foretune.units import format_bytes

MARKERS = ("sos_commands", "version.txt", "sos_reports", "sos_logs")
MAX_FILE_BYTES = 64 * 1024 * 1024


def is_sosreport_root(names: set[str]) -> bool:
    return any(marker in names for marker in MARKERS)


class SosreportDirectory(TreeSource):
    """A sosreport directory; with ``plain`` any directory tree laid out like a host (a mounted image, a copy of
    /etc and /var): its files are read where a sosreport keeps them, and command outputs are simply absent."""

    def __init__(self, root: Path, plain: bool = False) -> None:
        super().__init__(kind="sosreport", label=str(root))
        try:
            entries = set(os.listdir(root))
        except OSError as exc:
            raise InputError(f"cannot read {root}: {exc.strerror}") from None
        if not plain and not is_sosreport_root(entries):
            raise InputError(f"{root} is not a sosreport: no sos_commands/ or version.txt inside")
        if plain and not entries & {"etc", "var", "proc", "usr", "run", *MARKERS}:
            raise InputError(f"{root} is not a host's tree: no etc/, var/ or sos_commands/ inside")
        self.root = root

    def _path(self, rel: str) -> Path:
        return self.root / rel if rel else self.root

    def _readlink(self, rel: str) -> str | None:
        path = self._path(rel)
        return os.readlink(path) if path.is_symlink() else None

    def _is_file(self, rel: str) -> bool:
        path = self._path(rel)
        return not path.is_symlink() and path.is_file()

    def _listdir(self, rel: str) -> list[str]:
        path = self._path(rel)
        if path.is_symlink() or not path.is_dir():
            return []
        try:
            return os.listdir(path)
        except OSError:
            return []

    def _data(self, rel: str) -> bytes | None:
        path = self._path(rel)
        try:
            data = read_bytes(path, MAX_FILE_BYTES)
            if len(data) > MAX_FILE_BYTES:
                self.problem(f"{rel} is larger than {format_bytes(MAX_FILE_BYTES)}: skipped")
                return None
            return data
        except OSError as exc:
            self.problem(f"{rel}: cannot read ({exc.strerror})")
            return None
