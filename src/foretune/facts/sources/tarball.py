"""A sosreport tarball read in one streaming pass, never extracted to disk.

Only members the specs may need are kept in memory (exact candidates, glob patterns, small
command outputs that a symlink may point to). Symlinks are resolved after the pass, inside
the archive only. Unsafe names, oversized members and a truncated archive become problems.
"""

from __future__ import annotations

import fnmatch
import posixpath
import tarfile
from pathlib import Path
from typing import IO, Any

from foretune.errors import InputError
from foretune.facts.sources.sosreport import is_sosreport_root
from foretune.facts.sources.tree import TreeSource
from foretune.facts.specs import SPECS, sos_candidates, sos_patterns
from foretune.logs.kinds import kind_of

SUFFIXES = (".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")
MAX_MEMBER_BYTES = 64 * 1024 * 1024
SIDE_CACHE_BYTES = 256 * 1024  # small sos_commands outputs kept in case a symlink or the manifest names them
TOP_LEVEL = {"etc", "proc", "sys", "var", "usr", "sos_commands", "sos_reports", "sos_logs", "sos_strings", "version.txt",
             "installed-rpms", "date", "hostname"}


def _wanted() -> tuple[set[str], list[str]]:
    exact: set[str] = {"sos_reports/manifest.json", "version.txt"}
    patterns: list[str] = []
    for spec in SPECS:
        if spec.glob:
            patterns += sos_patterns(spec)
        else:
            exact.update(sos_candidates(spec))
    exact.update({"date", "sos_commands/date/date", "sos_commands/general/date"})
    return exact, patterns


def _matches(rel: str, patterns: list[str]) -> bool:
    parts = rel.split("/")
    for pattern in patterns:
        pparts = pattern.split("/")
        if len(pparts) == len(parts) and all(fnmatch.fnmatchcase(a, b) for a, b in zip(parts, pparts)):
            return True
    return False


class SosreportTarball(TreeSource):
    def __init__(self, path: Path, log_options: Any = None) -> None:
        super().__init__(kind="sosreport", label=str(path))
        self._log_options = log_options
        self.files: dict[str, bytes] = {}
        self.links: dict[str, str] = {}
        self.dirs: set[str] = set()
        self.names: set[str] = set()
        self._children: dict[str, set[str]] | None = None
        self._scan(path)

    def _scan(self, path: Path) -> None:
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}") from None
        if size == 0:
            raise InputError(f"{path} is empty: not a sosreport archive")
        exact, patterns = _wanted()
        side: dict[str, bytes] = {}
        prefix: str | None = None
        scan = self._new_scan()
        count = 0
        try:
            with path.open("rb") as handle, tarfile.open(fileobj=handle, mode="r|*") as archive:
                for member in archive:
                    count += 1
                    name = member.name
                    if name.startswith("/") or ".." in name.split("/"):
                        self.problem(f"archive member {name!r} has an unsafe name: ignored")
                        continue
                    name = posixpath.normpath(name)
                    first = name.split("/", 1)[0]
                    if prefix is None:
                        prefix = "" if first in TOP_LEVEL else first
                    rel = name[len(prefix) + 1:] if prefix and name.startswith(prefix + "/") else ("" if name == prefix else name)
                    if not rel:
                        continue
                    self._index(rel)
                    if member.issym():
                        self.links[rel] = member.linkname
                        continue
                    if member.islnk():
                        self.links[rel] = "/" + member.linkname.split("/", 1)[-1] if prefix else "/" + member.linkname
                        continue
                    if member.isdir():
                        self.dirs.add(rel)
                        continue
                    if not member.isfile():
                        continue
                    log_kind = kind_of(rel)
                    if log_kind is not None and rel not in exact and not _matches(rel, patterns):
                        extracted = archive.extractfile(member)
                        if extracted is not None:
                            self._read_log(scan, rel, log_kind, extracted)
                        continue
                    wanted = rel in exact or _matches(rel, patterns)
                    small_cmd = rel.startswith(("sos_commands/", "sos_strings/")) and member.size <= SIDE_CACHE_BYTES
                    if not wanted and not small_cmd:
                        continue
                    if member.size > MAX_MEMBER_BYTES:
                        self.problem(f"archive member {rel} is larger than {MAX_MEMBER_BYTES // 1048576} MiB: skipped")
                        continue
                    extracted = archive.extractfile(member)
                    data = extracted.read() if extracted else b""
                    if log_kind is not None:
                        import io

                        self._read_log(scan, rel, log_kind, io.BytesIO(data))
                    if wanted:
                        self.files[rel] = data
                    else:
                        side[rel] = data
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if count == 0:
                raise InputError(f"{path} is not a readable tar archive: {reason}") from None
            self.problem(f"{path.name} is truncated or corrupt after {count} members ({reason}): facts after that point are missing")
        top = {rel.split("/", 1)[0] for rel in self.names}
        if not is_sosreport_root(top):
            raise InputError(f"{path} is not a sosreport: no sos_commands/ or version.txt inside")
        # keep the side-cached members that a symlink or the manifest names
        self.files.update(side)
        self.log_scan = scan

    def _new_scan(self) -> Any:
        from foretune.logs.scan import Options, Scan

        return Scan(self._log_options or Options())

    def _read_log(self, scan: Any, rel: str, kind: str, stream: IO[bytes]) -> None:
        """Stream one log member through the analyzers (decompressing .gz/.xz/.bz2 members)."""
        import io

        from foretune.logs.reader import wrap

        buffered: Any = stream if isinstance(stream, io.BufferedReader) else io.BufferedReader(stream)
        scan.read_stream(rel, kind, wrap(buffered, buffered.peek(6)[:6]))

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
