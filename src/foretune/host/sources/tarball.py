"""A sosreport tarball read in one streaming pass, never extracted to disk.

Only members the specs may need are kept in memory (exact candidates, glob patterns, small
command outputs that a symlink may point to). Symlinks are resolved after the pass, inside
the archive only. The work is bounded: member size, member count, extended-header size and
the memory of kept members are capped. A damaged archive gives what its intact members hold:
truncation and corruption (CRC errors, bad header checksums, an end inside a header) are
always reported, and stray top-level members do not hide the sosreport beside them.
"""

from __future__ import annotations

import functools
import io
import os
import posixpath
import re
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from foretune.errors import InputError
from foretune.host.sources.base import MemberReader
from foretune.host.sources.sosreport import is_sosreport_root
from foretune.host.sources.stream import (
    Corrupt,
    Decompressed,
    SystemDecompressed,
    ToolFailed,
    Truncated,
    compression,
    open_decompressed,
    steady_heap,
)
from foretune.host.sources.tree import TreeSource
from foretune.host.specs import SPECS, sos_candidates, sos_patterns
from foretune.safeio import open_input
from foretune.term import plural
from foretune.units import format_bytes

SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")
MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_KEPT_BYTES = 256 * 1024 * 1024  # all members kept in memory together
MAX_MEMBERS = 200_000  # a large sosreport has about 20,000
MAX_HEADER_BYTES = 1024 * 1024  # pax / GNU long-name headers (real ones are under 1 KiB)
SIDE_CACHE_BYTES = 256 * 1024  # small sos_commands outputs kept in case a symlink or the manifest names them
SIDE_CACHE_TOTAL = 32 * 1024 * 1024
TRAILER_BYTES = 16 * 1024 * 1024  # compressed data after the end of the tar read to check its integrity
TOP_LEVEL = {"etc", "proc", "sys", "var", "usr", "sos_commands", "sos_reports", "sos_logs", "sos_strings", "version.txt",
             "installed-rpms", "date", "hostname"}


class _Capped(Exception):
    """A header larger than :data:`MAX_HEADER_BYTES`."""


class _Info(tarfile.TarInfo):
    """TarInfo that caps extended headers and remembers why the member list ended."""

    @classmethod
    def fromtarfile(cls, tarfile: Any) -> Any:
        try:
            return super().fromtarfile(tarfile)
        except Exception as exc:
            tarfile.foretune_end = exc
            raise

    def _proc_member(self, tarfile: Any) -> Any:
        if self.type in _EXTENDED and self.size > MAX_HEADER_BYTES:
            raise _Capped(f"an extended header of {self.size} bytes (the limit is {format_bytes(MAX_HEADER_BYTES)})")
        return super()._proc_member(tarfile)  # type: ignore[misc]


_EXTENDED = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)


@functools.lru_cache(maxsize=1)
def _wanted() -> tuple[frozenset[str], re.Pattern[str]]:
    """Exact archive paths and one compiled pattern for the glob specs (matched once per member)."""
    exact: set[str] = {"sos_reports/manifest.json", "version.txt"}
    patterns: list[str] = []
    for spec in SPECS:
        if spec.glob:
            patterns += sos_patterns(spec)
        else:
            exact.update(sos_candidates(spec))
    exact.update({"date", "sos_commands/date/date", "sos_commands/general/date"})
    return frozenset(exact), re.compile("|".join(_translate(p) for p in patterns) or "(?!)")


def _translate(pattern: str) -> str:
    """A glob whose ``*``/``?`` never cross ``/`` (as fnmatch applied per path component) as a regex."""
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        end = pattern.find("]", i + 1) if ch == "[" else -1
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif end != -1:
            out.append("[" + pattern[i + 1:end] + "]")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "(?:" + "".join(out) + ")"


def _matches(rel: str, pattern: re.Pattern[str]) -> bool:
    """
    >>> _matches("proc/123/limits", _wanted()[1]), _matches("proc/123/x/limits", _wanted()[1])
    (True, False)
    """
    return pattern.fullmatch(rel) is not None


def _tailed(name: str, inner: str) -> bool:
    """Whether a member is a log sos tailed: ``sos_strings/<plugin>/<path with dots>.tailed``."""
    return any(rel.startswith("sos_strings/") and rel.endswith(".tailed") for rel in (name, inner) if rel)


def _reason(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]


class SosreportTarball(TreeSource):
    def __init__(self, path: Path, logs: MemberReader | None = None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        """Read the archive at ``path`` in one pass; ``logs`` reads the log members during it."""
        super().__init__(kind="sosreport", label=str(path))
        self._logs = logs
        self._progress = progress
        self._position: Callable[[], int] = lambda: 0
        self._size = 0
        self.files: dict[str, bytes] = {}
        self.links: dict[str, str] = {}
        self.dirs: set[str] = set()
        self.names: set[str] = set()
        self.incomplete: str | None = None  # "truncated after N members" when the archive ends early
        self._damage: str | None = None  # how and where, for the error when too little is left to recognise
        self.damage: str | None = None  # "truncated after N members, in PATH (reason)": the one line that says it
        self.cut_at: str | None = None  # the member being read when the damage was found (relative), if in the sosreport
        self._last = ""  # full name of the last member header read
        self._after_last = False  # the damage came in the header after it (the last member was read whole)
        self._reason = ""
        self._kind = ""  # the compression: gz, xz, bz2 or "" (plain tar)
        self.garbled = False  # a gzip stream found corrupt: deflate decodes damage into plausible data, unchecked until
        # the CRC at the stream's end, so every member read may hold damaged data
        self._open: frozenset[str] = frozenset()  # the directories the damage left unfinished
        self._children: dict[str, set[str]] | None = None
        self._scan(path)

    # --- the streaming pass -----------------------------------------------------------------
    def _scan(self, path: Path) -> None:
        try:
            handle = open_input(path)
            size = os.fstat(handle.fileno()).st_size
            self._position, self._size = handle.tell, size
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}") from None
        if size == 0:
            handle.close()
            raise InputError(f"{path} is empty: not a sosreport archive")
        with handle:
            try:
                kind = self._kind = compression(handle.read(6))
                handle.seek(0)
            except OSError as exc:
                raise InputError(f"cannot read {path}: {exc.strerror}") from None
            steady_heap()
            stream = open_decompressed(handle, kind) if kind else handle
            tool = stream if isinstance(stream, SystemDecompressed) else None
            problems = len(self.problems)
            try:
                full = self._members(path, stream)
                self._trailer(path, stream)
                if self.incomplete is not None and isinstance(stream, SystemDecompressed):
                    raise ToolFailed("damaged")  # the same damage, found and worded by foretune's decoder
            except ToolFailed:
                # the system's decompressor found damage: read again with foretune's decoder, which says where
                assert tool is not None
                tool.close()
                del self.problems[problems:]
                self.incomplete = self._damage = None
                self.garbled = False
                restart = getattr(self._logs, "restart", None)
                if restart is not None:
                    restart()
                handle.seek(0, os.SEEK_END)  # drops the read buffer: the tool moved the shared file offset
                handle.seek(0)
                stream = Decompressed(handle, kind)
                full = self._members(path, stream)
                self._trailer(path, stream)
            finally:
                if tool is not None:
                    tool.close()
        self._reroot(path, full)

    def _trailer(self, path: Path, stream: Any) -> None:
        """After the tar archive: the rest of the compressed data, checked, and at most a little of it."""
        if self.incomplete is None and isinstance(stream, (Decompressed, SystemDecompressed)):
            try:
                if not stream.drain(TRAILER_BYTES):
                    self.problem(f"{path.name}: more than {format_bytes(TRAILER_BYTES)} of data after the end of the tar archive: ignored")
            except Truncated:
                self.incomplete = f"truncated after {self._count} members"
                self.problem(f"{path.name} is truncated: its compressed data ends early (the tar part looked complete)")
            except Corrupt as exc:
                self.problem(f"{path.name} is corrupt: {_reason(exc)}: facts read from it may be wrong")

    def _members(self, path: Path, stream: Any) -> dict[str, tuple[str, Any]]:
        """Read every member once; returns full name -> (kind, payload) of the entries kept."""
        exact, patterns = _wanted()
        logs = self._logs
        kept: dict[str, tuple[str, Any]] = {}
        side_total = kept_total = 0
        self._count = 0
        self._all: set[str] = set()
        archive: Any = None
        try:
            # The system decoder seeks forward only (tell/seek), enough for tarfile's "r:": a member's data is read in
            # the pieces asked for, where stream mode ("r|") copies everything through a 10 KiB buffer. Damage makes the
            # tool fail and the archive is read again by foretune's decoder in stream mode, whose reads ahead decide
            # where the damage is said to be (as before).
            if isinstance(stream, SystemDecompressed):
                forward: Any = stream  # read, tell and seek forward: what "r:" reads through
                archive = tarfile.open(fileobj=forward, mode="r:", tarinfo=_Info)  # noqa: SIM115 (the caller closes it)
            else:
                archive = tarfile.open(fileobj=stream, mode="r|", tarinfo=_Info)  # noqa: SIM115 (the caller closes it)
            for member in archive:
                self._count += 1
                self._last = member.name
                if self._progress is not None:
                    self._progress(self._position(), self._size)
                archive.members = []  # tarfile would keep every TarInfo otherwise
                if self._count > MAX_MEMBERS:
                    self.incomplete = f"stopped after {MAX_MEMBERS} members"
                    self.problem(f"{path.name} has more than {MAX_MEMBERS} members: the rest is ignored, facts may be missing")
                    break
                name = member.name
                if name.startswith("/") or ".." in name.split("/"):
                    self.problem(f"archive member {name[:200]!r} has an unsafe name: ignored")
                    continue
                name = posixpath.normpath(name)
                if name in (".", ""):
                    continue
                self._all.add(name)
                if member.issym():
                    kept[name] = ("sym", member.linkname)
                    continue
                if member.islnk():
                    kept[name] = ("hard", posixpath.normpath(member.linkname))
                    continue
                if member.isdir():
                    kept[name] = ("dir", None)
                    continue
                if not member.isfile():
                    continue
                inner = name.split("/", 1)[1] if "/" in name else ""
                if logs is not None and _tailed(name, inner) and member.size <= MAX_MEMBER_BYTES \
                        and kept_total + member.size <= MAX_KEPT_BYTES:
                    # a log sos cut to its --log-size: the log's own path is a symlink to it, which may come later
                    extracted = archive.extractfile(member)
                    data = extracted.read() if extracted else b""
                    kept_total += len(data)
                    kept[name] = ("tailed", (data, member.mtime))
                    continue
                wanted = any(rel in exact or _matches(rel, patterns) for rel in (name, inner) if rel)
                log_rel = next((rel for rel in (inner, name) if rel and logs.wants(rel)), None) if logs else None
                small_cmd = any(rel.startswith(("sos_commands/", "sos_strings/")) for rel in (name, inner) if rel) \
                    and member.size <= SIDE_CACHE_BYTES
                if log_rel is not None and logs is not None and not wanted and not small_cmd:
                    extracted = archive.extractfile(member)
                    if extracted is not None:
                        logs.read(log_rel, extracted, member.mtime)
                    continue
                if not wanted and not small_cmd:
                    continue
                if member.size > MAX_MEMBER_BYTES:
                    self.problem(f"archive member {name} is larger than {format_bytes(MAX_MEMBER_BYTES)}: skipped")
                    continue
                if wanted and kept_total + member.size > MAX_KEPT_BYTES:
                    self.problem(f"archive member {name}: more than {format_bytes(MAX_KEPT_BYTES)} of wanted files: skipped")
                    continue
                if not wanted and side_total + member.size > SIDE_CACHE_TOTAL:
                    continue
                extracted = archive.extractfile(member)
                data = extracted.read() if extracted else b""
                if log_rel is not None and logs is not None:
                    logs.read(log_rel, io.BytesIO(data), member.mtime)
                if wanted:
                    kept_total += len(data)
                    kept[name] = ("file", data)
                else:
                    side_total += len(data)
                    kept[name] = ("side", data)
            else:
                self._check_end(path, archive)
        except _Capped as exc:
            self._damaged(path, "corrupt", f"{exc}", archive)
        except Truncated as exc:
            self._damaged(path, "truncated", _reason(exc), archive)
        except Corrupt as exc:
            self._damaged(path, "corrupt", _reason(exc), archive)
        except (tarfile.TarError, EOFError, OSError, ValueError, UnicodeError) as exc:
            pending = getattr(stream, "error", None)  # the decompressor found damage before tar saw any data
            if isinstance(pending, (Truncated, Corrupt)):
                self._damaged(path, "truncated" if isinstance(pending, Truncated) else "corrupt", _reason(pending), archive)
                return kept
            reason = _reason(exc)
            end = getattr(archive, "foretune_end", None) if archive is not None else None
            truncated = "unexpected end of data" in reason or isinstance(exc, EOFError) or type(end).__name__ == "TruncatedHeaderError"
            self._damaged(path, "truncated" if truncated else "corrupt", reason, archive)
        return kept

    def _check_end(self, path: Path, archive: Any) -> None:
        """The member list ended: properly (two zero blocks), or early for a reason tar keeps quiet about."""
        end = getattr(archive, "foretune_end", None)
        why = type(end).__name__  # tarfile's header errors are not public names
        if end is None or why == "EOFHeaderError":
            return
        if why in ("EmptyHeaderError", "TruncatedHeaderError"):
            self._damaged(path, "truncated", "the archive ends without its end-of-archive marker"
                          if why == "EmptyHeaderError" else "it ends inside a member header", archive)
        else:
            self._damaged(path, "corrupt", f"{_reason(end)} (bad header checksum?)", archive)

    def _damaged(self, path: Path, how: str, reason: str, archive: Any = None) -> None:
        self._after_last = archive is not None and getattr(archive, "foretune_end", None) is not None
        if self._count == 0 or (self._count == 1 and not self._all):
            if how in ("truncated", "corrupt") and ("compressed data" in reason or "data is corrupt" in reason):
                raise InputError(f"{path} is {how} before its first tar member: {reason}")
            raise InputError(f"{path} is not a readable tar archive: {reason}")
        self.incomplete = f"{how} after {self._count} members"
        self._damage = f"{how} after {self._count} member{'s' if self._count != 1 else ''}: {reason}"
        self._reason = reason
        self.garbled = how == "corrupt" and self._kind == "gz"

    # --- choosing the sosreport inside the archive -----------------------------------------
    def _reroot(self, path: Path, kept: dict[str, tuple[str, Any]]) -> None:
        prefix = self._prefix(path)
        strip = len(prefix) + 1 if prefix else 0
        stopped = self.incomplete is not None and (self._damage is not None or self.incomplete.startswith("stopped"))
        if stopped:  # (a compressed stream cut after the tar's end marker lost no member)
            last = posixpath.normpath(self._last) if self._last else ""
            if not prefix or last.startswith(prefix + "/"):
                self.cut_at = last[strip:] or None
            self._open = self._open_dirs(self.cut_at)
        if self._damage is not None:  # a stop after MAX_MEMBERS said so already
            inside = f", {'after' if self._after_last else 'in'} {self.cut_at}" if self.cut_at else ""
            self.damage = f"{self.incomplete}{inside} ({self._reason})"
        stray = sorted({n.split("/", 1)[0] for n in self._all if prefix and not n.startswith(prefix + "/") and n != prefix})
        if stray:
            shown = ", ".join(stray[:3]) + (", ..." if len(stray) > 3 else "")
            self.problem(f"{path.name}: {plural(len(stray), 'top-level member')} beside {prefix}/ ignored ({shown})")
        for name in self._all:
            if (not prefix or name.startswith(prefix + "/")) and name[strip:]:
                self._index(name[strip:])
        side: dict[str, bytes] = {}
        tailed: dict[str, tuple[bytes, float]] = {}
        for name, (kind, payload) in kept.items():
            if prefix and not name.startswith(prefix + "/"):
                continue
            rel = name[strip:]
            if kind == "sym":
                self.links[rel] = payload
            elif kind == "hard":
                target = payload[strip:] if prefix and payload.startswith(prefix + "/") else payload
                self.links[rel] = "/" + target
            elif kind == "dir":
                self.dirs.add(rel)
            elif kind == "file":
                self.files[rel] = payload
            elif kind == "tailed":
                tailed[rel] = payload
                self.files[rel] = payload[0]
            else:
                side[rel] = payload
        # keep the side-cached members that a symlink or the manifest names
        for rel, data in side.items():
            self.files.setdefault(rel, data)
        self._read_tailed(tailed)

    def _read_tailed(self, tailed: dict[str, tuple[bytes, float]]) -> None:
        """Each log whose path is a symlink to a tailed copy under sos_strings/ is read from that copy, under its own
        path, as the directory form reads it through the link."""
        if self._logs is None or not tailed:
            return
        for rel, target in sorted(self.links.items()):
            if not self._logs.wants(rel):
                continue
            resolved = posixpath.normpath(target.lstrip("/") if target.startswith("/")
                                          else posixpath.join(posixpath.dirname(rel), target))
            if resolved in tailed:
                data, mtime = tailed[resolved]
                self._logs.read(rel, io.BytesIO(data), mtime)

    def _prefix(self, path: Path) -> str:
        """The directory holding the sosreport: '' (members at the top) or one top-level folder."""
        top = {n.split("/", 1)[0] for n in self._all}
        if is_sosreport_root(top):
            return ""
        children: dict[str, set[str]] = {}
        for name in self._all:
            parts = name.split("/")
            if len(parts) >= 2:
                children.setdefault(parts[0], set()).add(parts[1])
        roots = sorted(d for d, names in children.items() if is_sosreport_root(names))
        if roots:
            if len(roots) > 1:
                self.problem(f"{path.name} holds {len(roots)} sosreports: reading {roots[0]}/ only")
            return roots[0]
        if self.incomplete is not None:  # sos writes etc/ before sos_commands/: a cut archive may lack the markers
            looks = sorted(d for d, names in children.items() if names & TOP_LEVEL)
            if looks or top & TOP_LEVEL:
                return looks[0] if looks and not top & TOP_LEVEL else ""
        if self._damage is not None:  # cut before sos wrote its markers: say what happened, not "not a sosreport"
            raise InputError(f"{path} is {self._damage}; no sos_commands/ or version.txt came before that point, "
                             "so too little is left to read it as a sosreport")
        raise InputError(f"{path} is not a sosreport: no sos_commands/ or version.txt inside")

    @staticmethod
    def _open_dirs(cut_at: str | None) -> frozenset[str]:
        """The directories a depth-first tar had not finished when it stopped: the ones holding the member being read
        (and that member, were it a directory). None: the damage came after the sosreport's last member."""
        if cut_at is None:
            return frozenset()
        parts = cut_at.split("/")
        return frozenset("/".join(parts[:i]) for i in range(len(parts) + 1))

    def maybe_lost(self, rel: str) -> bool:
        """Whether ``rel``, not in the archive as read, may be in the part the damage took. tar writes a directory's
        members together (sos archives its tree depth-first), so a directory left before the damage is whole: a path
        under it that was not read is absent. Only the directories still open at the damage may have lost members."""
        if self.incomplete is None:
            return False
        parts = rel.strip("/").split("/")
        for i in range(len(parts) - 1, 0, -1):
            parent = "/".join(parts[:i])
            if parent in self.dirs:  # the deepest directory the archive has on the way to rel
                return parent in self._open
        return "" in self._open

    def read_in_part(self, rel: str) -> bool:
        """Whether ``rel`` is the member the damage cut (its data may end early or be wrong)."""
        return self.cut_at is not None and rel == self.cut_at and not self._after_last

    def _index(self, rel: str) -> None:
        self.names.add(rel)
        parts = rel.split("/")
        for i in range(1, len(parts)):
            self.dirs.add("/".join(parts[:i]))

    def _readlink(self, rel: str) -> str | None:
        return self.links.get(rel)

    def _is_file(self, rel: str) -> bool:
        return rel in self.files

    def _data(self, rel: str) -> bytes | None:
        return self.files.get(rel)

    def _listdir(self, rel: str) -> list[str]:
        if self._children is None:
            self._children = {}
            for name in self.names | self.dirs:
                parent, _, child = name.rpartition("/")
                self._children.setdefault(parent, set()).add(child)
        return sorted(self._children.get(rel, ()))
