"""Careful file writing for outputs: an atomic replace (see foretune.safeio), after a timestamped backup for the
files an admin edits (custom-hiera.yaml, drop-ins), never for what foretune regenerates (reports, scripts, APPLY.md)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

from foretune.errors import InputError
from foretune.safeio import NEW_FILE_MODE, make_dirs, read_bytes, write_file

MANIFEST = ".foretune-bundle.json"  # what the last bundle written into a directory wrote there: {"files": {rel: sha256}}

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


def write_bundle(files: dict[str, str], directory: str, said: Callable[[str], None] | None = None) -> list[Path]:
    """Write relative-path -> content into ``directory`` (created); return the paths written.

    A directory an earlier bundle was written into holds only this bundle's files afterwards: each file the earlier
    one wrote (its manifest, :data:`MANIFEST`) that this one does not is removed while it is as that bundle wrote it;
    one edited since, and any other file there, stays and is named through ``said``. A file of the earlier bundle left
    as it wrote it is replaced without a backup (only an admin's edit is backed up)."""
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
    earlier = _manifest(root)
    written = []
    digests: dict[str, str] = {}
    for rel, text in files.items():
        try:
            parent = make_dirs(root, os.path.dirname(rel))
        except OSError as exc:
            raise InputError(f"{exc.filename}: {exc.strerror}") from None
        path = parent / os.path.basename(rel)
        as_written = rel in earlier and _digest(path) == earlier[rel]
        write_text(path, text, new_mode=SCRIPT_MODE if rel.endswith(".sh") else NEW_FILE_MODE,
                   backup=admin_edited(rel) and not as_written)
        written.append(path)
        digests[rel] = hashlib.sha256(text.encode("utf-8")).hexdigest()  # what write_text wrote
    for note in _leftovers(root, earlier, digests):
        if said is not None:
            said(note)
    write_text(root / MANIFEST, json.dumps({"files": digests}, indent=1, sort_keys=True) + "\n")
    return written


def _digest(path: Path) -> str | None:
    """The sha256 of a regular file (never through a link), None when there is none."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except OSError:
        return None


def _manifest(root: Path) -> dict[str, str]:
    """rel -> sha256 of what the bundle written last into ``root`` wrote ({} when none is there or it is unreadable)."""
    try:
        data = json.loads(read_bytes(root / MANIFEST).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items() if ".." not in Path(str(k)).parts and not str(k).startswith("/")} \
        if isinstance(files, dict) else {}


def _leftovers(root: Path, earlier: dict[str, str], now: dict[str, str]) -> list[str]:
    """Remove the earlier bundle's files this one does not write, as they were written; what stays, said."""
    notes = []
    for rel in sorted(set(earlier) - set(now)):
        path = root / rel
        digest = _digest(path)
        if digest is None or os.path.realpath(path.parent) != os.path.join(os.path.realpath(root), os.path.dirname(rel)).rstrip("/"):
            continue  # gone, not a regular file, or reached through a linked directory: never removed through a link
        if digest != earlier[rel]:
            notes.append(f"{path}: left in place: an earlier bundle wrote it and it was edited since, but this bundle "
                         "has no such file (do not apply it with this one)")
            continue
        os.unlink(path)
        notes.append(f"removed {path}: an earlier bundle wrote it, this one has no such file")
        parent = path.parent
        while parent != root and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent
    others = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and not p.is_symlink()
                    and str(p.relative_to(root)) not in now and p.name != MANIFEST and str(p.relative_to(root)) not in earlier)
    if others:
        notes.append(f"{root} also holds files this bundle did not write (do not apply them with it): "
                     + ", ".join(others[:8]) + (f" and {len(others) - 8} more" if len(others) > 8 else ""))
    return notes
