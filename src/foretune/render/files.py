"""Careful file writing for outputs: an atomic replace (see foretune.safeio), after a timestamped backup for the
files an admin edits (custom-hiera.yaml, drop-ins), never for what foretune regenerates (reports, scripts, APPLY.md)."""

from __future__ import annotations

import os
from pathlib import Path

from foretune.errors import InputError
from foretune.safeio import NEW_FILE_MODE, make_dirs, write_file

SCRIPT_MODE = 0o755  # the shell scripts `plan --out` writes are meant to be run; only new files get it


def write_text(path: Path, text: str, *, new_mode: int = NEW_FILE_MODE, backup: bool = False) -> Path | None:
    """Write ``text`` safely; with ``backup``, back up a different existing file first. Returns the backup, if any.

    An existing file keeps its mode and owner; a new one gets ``new_mode`` less the umask. Pipes, FIFOs,
    terminals and /dev/null are written as streams; anything else that is not a regular file
    is refused (InputError).
    """
    try:
        return write_file(path, text, new_mode=new_mode, backup=backup).backup
    except OSError as exc:
        raise InputError(f"{exc.filename or path}: {exc.strerror or exc}") from None


def admin_edited(rel: str) -> bool:
    """Files of a bundle an admin edits by hand and so gets a backup of: custom-hiera.yaml, drop-ins.

    >>> [admin_edited(r) for r in ("custom-hiera.yaml", "systemd/foreman.service.d/override.conf", "APPLY.md", "installer.sh")]
    [True, True, False, False]
    """
    return rel == "custom-hiera.yaml" or rel.startswith(("systemd/", "sysctl.d/"))


def write_bundle(files: dict[str, str], directory: str) -> list[Path]:
    """Write relative-path -> content into ``directory`` (created); return the paths written."""
    root = Path(directory)
    if root.is_symlink():
        raise InputError(f"--output-dir {directory}: is a symbolic link (to {os.readlink(root)}): refusing to write "
                         "through it; name the directory itself")
    if root.exists() and not root.is_dir():
        raise InputError(f"--output-dir {directory}: exists and is not a directory")
    try:
        os.makedirs(root, mode=0o755, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--output-dir {directory}: {exc.strerror}") from None
    written = []
    for rel, text in files.items():
        try:
            parent = make_dirs(root, os.path.dirname(rel))
        except OSError as exc:
            raise InputError(f"{exc.filename}: {exc.strerror}") from None
        path = parent / os.path.basename(rel)
        write_text(path, text, new_mode=SCRIPT_MODE if rel.endswith(".sh") else NEW_FILE_MODE, backup=admin_edited(rel))
        written.append(path)
    return written
