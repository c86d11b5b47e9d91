"""A sosreport laid out as a tree (directory or tarball): candidate paths, manifest, symlinks inside only."""

from __future__ import annotations

import fnmatch
import posixpath
from datetime import datetime

from foretune.errors import ParseError
from foretune.host.jsonfile import load_json
from foretune.host.sources.base import Raw, Source
from foretune.host.specs import Spec, sos_candidates, sos_patterns
from foretune.host.text import decode

MAX_HOPS = 40


class TreeSource(Source):
    """Subclasses provide ``_readlink``, ``_data``, ``_is_file`` and ``_listdir`` on archive-relative paths."""

    _manifest: dict[str, str] | None = None

    # --- storage primitives ------------------------------------------------------------
    def _readlink(self, rel: str) -> str | None:
        raise NotImplementedError

    def _data(self, rel: str) -> bytes | None:
        raise NotImplementedError

    def _is_file(self, rel: str) -> bool:
        raise NotImplementedError

    def _listdir(self, rel: str) -> list[str]:
        raise NotImplementedError

    def maybe_lost(self, rel: str) -> bool:
        """Whether ``rel``, not found, may be in a part of a damaged archive that could not be read (a tree: never)."""
        return False

    def read_in_part(self, rel: str) -> bool:
        """Whether ``rel`` is the member a damaged archive was cut in (a tree: never)."""
        return False

    def may_lose_matches(self, pattern: str) -> bool:
        """Whether a damaged archive may have lost matches of a glob pattern: its directory before the first wildcard
        may have lost members."""
        parts = pattern.split("/")
        fixed = next((i for i, part in enumerate(parts) if any(ch in part for ch in "*?[")), len(parts) - 1)
        return self.maybe_lost("/".join([*parts[:fixed], "\0"]))

    # --- resolution ---------------------------------------------------------------------
    def resolve(self, rel: str) -> str | None:
        """``rel`` with every symlink component resolved inside the archive; None if it escapes or loops."""
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        done: list[str] = []
        hops = 0
        while parts:
            part = parts.pop(0)
            if part == "..":
                if not done:
                    return None
                done.pop()
                continue
            candidate = "/".join([*done, part])
            target = self._readlink(candidate)
            if target is None:
                done.append(part)
                continue
            hops += 1
            if hops > MAX_HOPS:
                self.problem(f"{candidate}: too many levels of symbolic links: ignored")
                return None
            base = [] if target.startswith("/") else list(done)
            joined = posixpath.normpath("/".join([*base, *target.split("/")]).lstrip("/") or ".")
            if joined == ".." or joined.startswith("../"):
                self.problem(f"{candidate} is a symlink pointing outside the archive ({target}): ignored")
                return None
            parts = [p for p in joined.split("/") if p not in ("", ".")] + parts
            done = []
        return "/".join(done)

    def _text(self, rel: str, spec: Spec | None) -> Raw | None:
        real = self.resolve(rel)
        if real is None or not self._is_file(real):
            return None
        if self.read_in_part(real):  # the damage cut it: what it holds may end early
            self.unsure.append(spec.name if spec is not None else rel)
        data = self._data(real)
        if data is None:
            return None
        text, problem = decode(data, rel)
        if problem:
            self.problem(problem)
        if text is None:
            return None
        return self._remember(Raw(text, rel), spec)

    # --- manifest -----------------------------------------------------------------------
    def manifest(self) -> dict[str, str]:
        """``exec`` -> file path of every command in sos_reports/manifest.json (empty when absent)."""
        if self._manifest is not None:
            return self._manifest
        self._manifest = {}
        data = self._data("sos_reports/manifest.json") if self._is_file("sos_reports/manifest.json") else None
        if data:
            try:
                parsed = load_json(data.decode("utf-8", "replace"))
                plugins = parsed.get("components", {}).get("report", {}).get("plugins", {})
                for plugin in plugins.values():
                    for command in plugin.get("commands", []):
                        if command.get("exec") and command.get("filepath"):
                            self._manifest[str(command["exec"])] = str(command["filepath"]).lstrip("/")
            except ParseError as exc:
                self.problem(f"sos_reports/manifest.json: {exc}: using the usual file names")
            except (ValueError, AttributeError, TypeError):
                self.problem("sos_reports/manifest.json is not valid JSON: using the usual file names")
        return self._manifest

    # --- Source API ---------------------------------------------------------------------
    def read(self, spec: Spec) -> Raw | None:
        candidates: list[str] = []
        for prefix in spec.sos_exec:
            # the command itself first, then it with more options; never another command that only starts alike
            # (the foreman plugin's `systemctl list-units dynflow*` is listed before the systemd plugin's)
            candidates += [path for exe, path in self.manifest().items() if exe == prefix]
            candidates += [path for exe, path in self.manifest().items() if exe.startswith(prefix + " -")]
        candidates += sos_candidates(spec)
        for rel in dict.fromkeys(candidates):
            raw = self._text(rel, spec)
            if raw is not None:
                return raw
        lost = [rel for rel in dict.fromkeys(candidates) if self.maybe_lost(rel)]
        if lost:
            self.why[spec.name] = (f"lost to the damage: the archive is cut before it reaches where "
                                   f"{' or '.join(lost[:2])}{' (or another)' if len(lost) > 2 else ''} would be")
            self.unsure.append(spec.name)
            return None
        self.why[spec.name] = f"not in the sosreport (looked for {', '.join(candidates[:3])})" if candidates else "not collected by sos"
        return None

    def glob(self, spec: Spec) -> list[Raw]:
        found: list[Raw] = []
        for pattern in sos_patterns(spec):
            if self.may_lose_matches(pattern):
                self.unsure.append(spec.name)
            for rel in self._match(pattern):
                raw = self._text(rel, spec)
                if raw is not None:
                    found.append(raw)
        return found

    def glob_names(self, spec: Spec) -> list[str]:
        """Matching names only (symlinks included, even dangling ones)."""
        names: list[str] = []
        for pattern in sos_patterns(spec):
            if self.may_lose_matches(pattern):
                self.unsure.append(spec.name)
            names += self._match(pattern)
        return names

    def read_path(self, path: str) -> Raw | None:
        raw = self._text(path.lstrip("/"), None)
        if raw is None and self.maybe_lost(path.lstrip("/")):
            self.unsure.append(path)
        return raw

    def _match(self, pattern: str) -> list[str]:
        parts = pattern.split("/")
        current = [""]
        for index, part in enumerate(parts):
            nxt: list[str] = []
            for base in current:
                if any(ch in part for ch in "*?["):
                    real = self.resolve(base) if base else ""
                    if real is None:
                        continue
                    nxt += [f"{base}/{n}" if base else n for n in sorted(self._listdir(real)) if fnmatch.fnmatchcase(n, part)]
                else:
                    nxt.append(f"{base}/{part}" if base else part)
            current = nxt
            if index == len(parts) - 1:
                return [c for c in current if self._readlink(c) is not None or self._is_file(c) or self._is_file(self.resolve(c) or "")]
        return []

    def now(self) -> datetime | None:
        raw = self.read(Spec("sos_date", sos=("sos_commands/date/date", "sos_commands/general/date", "date"), sos_exec=("date",)))
        if raw is None:
            return None
        words = raw.text.split()
        if len(words) >= 6:
            try:
                return datetime.strptime(" ".join(words[1:4] + words[5:6]), "%b %d %H:%M:%S %Y")
            except ValueError:
                return None
        return None
