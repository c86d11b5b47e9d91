"""Careful file writing: never lose what was there (timestamped backup first), atomic replace."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from foretune.errors import InputError


def backup(path: Path) -> Path:
    """Copy ``path`` to ``<path>.foretune-<timestamp>.bak`` (metadata kept) and return the copy."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.foretune-{stamp}.bak")
    n = 1
    while target.exists():
        target = path.with_name(f"{path.name}.foretune-{stamp}-{n}.bak")
        n += 1
    shutil.copy2(path, target)
    return target


def write_text(path: Path, text: str, *, mode: int | None = None) -> Path | None:
    """Write ``text`` atomically; back up a different existing file first. Returns the backup, if any."""
    if not path.parent.is_dir():
        raise InputError(f"{path}: directory {path.parent} does not exist")
    saved = None
    if path.exists():
        if path.read_text(encoding="utf-8", errors="replace") == text:
            return None
        saved = backup(path)
        mode = path.stat().st_mode & 0o7777 if mode is None else mode
    tmp = path.with_name(f".{path.name}.foretune-tmp")
    tmp.write_text(text, encoding="utf-8")
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)
    return saved


def write_bundle(files: dict[str, str], directory: str) -> list[Path]:
    """Write relative-path -> content into ``directory`` (created); return the paths written."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise InputError(f"--out {directory}: exists and is not a directory")
    written = []
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, text, mode=0o755 if rel.endswith(".sh") else None)
        written.append(path)
    return written
