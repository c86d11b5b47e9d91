"""Files foretune reads and writes, handled the way a tool running as root must.

Reading opens only regular files (and ``/dev/null``), checked with ``stat`` before and
``fstat`` after a non-blocking open, so a FIFO or a device is refused at once instead of
hanging. Writing replaces a regular file through a private temporary file made by
``tempfile.mkstemp`` in the target's directory (``O_EXCL``, random name), after a backup
created the same way (only when asked: files an admin edits, never regenerated reports); the
result keeps the original's mode, owner and SELinux label, and a new file gets 0644 less the
umask (a snapshot: 0600 always, ``mode=SNAPSHOT_MODE``). Pipes, FIFOs, terminals and ``/dev/null`` (also as ``/dev/stdout`` or
``/dev/fd/N``) are written as streams: never renamed over, chmod-ed or backed up. Anything
else (symbolic links, block and other character devices, sockets, directories, paths under
``/proc`` or ``/sys``) is refused with one line.

Every refusal is an ``OSError`` whose ``strerror`` is that line, so callers' existing
``except OSError`` handlers report it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Union

NEW_FILE_MODE = 0o644  # before the umask
SNAPSHOT_MODE = 0o600  # a snapshot holds the host's configuration: its owner only, whatever the umask
_TTY_MAJORS = frozenset({4, 5, *range(136, 144)})  # virtual consoles, /dev/tty, Unix98 pseudo-terminals
_FD_PATH = re.compile(r"/(?:dev/(?:stdout|stderr|fd/[0-9]{1,9})|proc/(?:self|thread-self|[0-9]{1,9})/fd/[0-9]{1,9})")
_SYSTEM_DIRS = ("/dev/", "/proc/", "/sys/")
_XATTRS = ("security.selinux",)
PathLike = Union[str, "os.PathLike[str]"]


def refusal(path: str, reason: str) -> OSError:
    """The OSError every refusal raises: ``strerror`` is the one-line reason."""
    return OSError(errno.EINVAL, reason, path)


def kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words (``a FIFO``, ``a block device``...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def _is_null(st: os.stat_result) -> bool:
    if not stat.S_ISCHR(st.st_mode):
        return False
    try:
        return st.st_rdev == os.stat(os.devnull).st_rdev
    except OSError:
        return False


def _readable(st: os.stat_result) -> bool:
    return stat.S_ISREG(st.st_mode) or _is_null(st)


# --- reading ----------------------------------------------------------------------------------

def open_input(path: PathLike) -> BinaryIO:
    """Open a regular file (or /dev/null) for binary reading; an OSError at once for anything else."""
    name = os.fspath(path)
    st = os.stat(name)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", name)
    if not _readable(st):
        raise refusal(name, f"is {kind(st.st_mode)}, not a regular file: refusing to read it")
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not _readable(st):  # replaced between stat and open
            raise refusal(name, f"is {kind(st.st_mode)}, not a regular file: refusing to read it")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: PathLike, limit: int | None = None) -> bytes:
    """The contents of a regular file; with ``limit``, at most ``limit + 1`` bytes (so callers see "too large")."""
    with open_input(path) as handle:
        return handle.read() if limit is None else handle.read(limit + 1)


def read_text(path: PathLike) -> str:
    """A regular file's contents as UTF-8 (UnicodeDecodeError when it is not)."""
    return read_bytes(path).decode("utf-8")


# --- writing ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Written:
    """What :func:`write_file` did."""

    path: Path
    backup: Path | None = None
    stream: bool = False  # written to a pipe, FIFO, terminal or /dev/null
    unchanged: bool = False  # the file already held exactly this content


def write_file(path: PathLike, data: str | bytes, *, backup: bool = False, new_mode: int = NEW_FILE_MODE,
               mode: int | None = None) -> Written:
    """Write ``data`` to ``path`` safely (see the module docstring); OSError with one line when refused.

    ``backup``: keep the replaced content as ``<name>.foretune-<time>.bak`` (files an admin edits).
    ``new_mode``: a new file's mode before the umask. ``mode``: this mode, new file or not (snapshots).
    """
    name = os.fspath(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        lst: os.stat_result | None = os.lstat(name)
    except FileNotFoundError:
        lst = None
    try:
        st: os.stat_result | None = os.stat(name) if lst is not None else None
    except FileNotFoundError:
        st = None  # dangling symbolic link
    absolute = os.path.abspath(name)
    if _FD_PATH.fullmatch(absolute) and st is not None and (_streamable(st) or stat.S_ISREG(st.st_mode)):
        return _write_stream(name, payload, st)
    if st is not None and _streamable(st):
        return _write_stream(name, payload, st)
    if absolute.startswith(_SYSTEM_DIRS):
        raise refusal(name, "refusing to write under /dev, /proc or /sys")
    if lst is not None and stat.S_ISLNK(lst.st_mode):
        target = os.readlink(name)
        raise refusal(name, f"is a symbolic link (to {target}): refusing to write through it; name the file itself")
    if lst is not None and not stat.S_ISREG(lst.st_mode):
        raise refusal(name, f"is {kind(lst.st_mode)}: refusing to write to it")
    return _replace(name, payload, lst, keep_backup=backup, new_mode=new_mode, mode=mode)


def _streamable(st: os.stat_result) -> bool:
    """A pipe/FIFO, /dev/null or a terminal: written in place, never replaced."""
    if stat.S_ISFIFO(st.st_mode):
        return True
    return stat.S_ISCHR(st.st_mode) and (_is_null(st) or os.major(st.st_rdev) in _TTY_MAJORS)


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        view = view[os.write(fd, view):]


def _write_stream(name: str, payload: bytes, st: os.stat_result) -> Written:
    flags = os.O_WRONLY | os.O_APPEND | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
    fifo = stat.S_ISFIFO(st.st_mode)
    try:
        fd = os.open(name, flags | (os.O_NONBLOCK if fifo else 0))
    except OSError as exc:
        if exc.errno == errno.ENXIO and fifo:
            raise refusal(name, "is a FIFO nobody is reading: refusing to wait for a reader") from None
        raise
    try:
        now = os.fstat(fd)
        if not (_streamable(now) or (stat.S_ISREG(now.st_mode) and _FD_PATH.fullmatch(os.path.abspath(name)))):
            raise refusal(name, f"is {kind(now.st_mode)}: refusing to write to it")
        os.set_blocking(fd, True)
        _write_all(fd, payload)
    finally:
        os.close(fd)
    return Written(Path(name), stream=True)


def _read_existing(name: str, lst: os.stat_result) -> bytes:
    fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (lst.st_dev, lst.st_ino):
            raise refusal(name, "changed while foretune was writing it: nothing written")
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _copy_metadata(fd: int, st: os.stat_result, source: str | None) -> None:
    """Give ``fd`` the owner, mode and SELinux label of ``st``/``source`` (owner only when permitted)."""
    if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(PermissionError):  # only root may give a file away
            os.fchown(fd, st.st_uid, st.st_gid)
    os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which clears set-id bits
    if source is None or not hasattr(os, "getxattr"):
        return
    for attr in _XATTRS:
        with contextlib.suppress(OSError):
            os.setxattr(fd, attr, os.getxattr(source, attr, follow_symlinks=False))


def _new_file(directory: str, prefix: str, suffix: str) -> tuple[int, str]:
    return tempfile.mkstemp(dir=directory, prefix=prefix, suffix=suffix)


def backup(name: str, data: bytes, st: os.stat_result) -> Path:
    """Copy ``data`` (the current content of ``name``) to a new ``<name>.foretune-<time>.bak`` with ``st``'s metadata.

    The backup is created with ``O_CREAT | O_EXCL | O_NOFOLLOW`` and mode 0600 until its
    contents, owner and mode are in place, so nothing can be redirected or read early.
    """
    stamp = time.strftime("%Y%m%dT%H%M%S")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    for n in range(1000):
        target = f"{name}.foretune-{stamp}{f'-{n}' if n else ''}.bak"
        try:
            fd = os.open(target, flags, 0o600)
        except FileExistsError:
            continue
        try:
            _write_all(fd, data)
            _copy_metadata(fd, st, name)
            os.utime(fd, ns=(st.st_atime_ns, st.st_mtime_ns))
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            os.unlink(target)
            raise
        os.close(fd)
        return Path(target)
    raise refusal(name, "cannot find a free backup name")


def umask() -> int:
    """The process umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _replace(name: str, payload: bytes, lst: os.stat_result | None, *, keep_backup: bool, new_mode: int,
             mode: int | None = None) -> Written:
    directory = os.path.dirname(name) or "."
    if not os.path.isdir(directory):
        raise FileNotFoundError(errno.ENOENT, f"directory {directory} does not exist", name)
    saved = None
    if lst is not None:
        old = _read_existing(name, lst)
        if old == payload and (mode is None or stat.S_IMODE(lst.st_mode) == mode):
            return Written(Path(name), unchanged=True)
        if keep_backup:
            saved = backup(name, old, lst)
    try:
        fd, tmp = _new_file(directory, f".{os.path.basename(name)}.", ".foretune-tmp")
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, name) from None
    try:
        _write_all(fd, payload)
        if lst is not None:
            _copy_metadata(fd, lst, name)
        if mode is not None:
            os.fchmod(fd, mode)
        elif lst is None:
            os.fchmod(fd, new_mode & ~umask())
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, name)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Written(Path(name), backup=saved)


def make_dirs(root: PathLike, rel: str) -> Path:
    """Create ``root/rel`` (mode 0755 before umask) one level at a time, refusing symbolic links below ``root``."""
    path = Path(root)
    for part in Path(rel).parts:
        path = path / part
        try:
            os.mkdir(path, 0o755)
        except FileExistsError:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                raise refusal(str(path), "is a symbolic link: refusing to write through it") from None
            if not stat.S_ISDIR(st.st_mode):
                raise refusal(str(path), f"is {kind(st.st_mode)}, not a directory") from None
    return path
