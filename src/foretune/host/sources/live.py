"""This host, live: files under /etc, /proc and /sys, commands, and SQL through psql."""

from __future__ import annotations

import glob as globmod
import os
import shutil
import subprocess
from collections.abc import Mapping
from datetime import datetime

from foretune.host.redact import redact_text
from foretune.host.sources.base import Raw, Source
from foretune.host.specs import Spec
from foretune.host.text import decode
from foretune.safeio import read_bytes
from foretune.units import format_bytes

MAX_FILE_BYTES = 16 * 1024 * 1024
COMMAND_TIMEOUT = 20.0


class LiveHost(Source):
    def __init__(self, environ: Mapping[str, str] | None = None, root: str = "/") -> None:
        super().__init__(kind="live", label="this host")
        self.environ = dict(os.environ if environ is None else environ)
        self.root = root
        self.is_root = os.geteuid() == 0

    def _file(self, path: str, spec: Spec | None) -> Raw | None:
        real = os.path.join(self.root, path.lstrip("/"))
        try:
            data = read_bytes(real, MAX_FILE_BYTES)
        except FileNotFoundError:
            return None
        except PermissionError:
            note = "needs root" if not self.is_root else "permission denied"
            if spec is not None:
                self.why[spec.name] = f"{path}: {note}"
            self.problem(f"{path}: {note}, skipped")
            return None
        except OSError as exc:
            if spec is not None:
                self.why[spec.name] = f"{path}: {exc.strerror}"
            return None
        if len(data) > MAX_FILE_BYTES:
            self.problem(f"{path} is larger than {format_bytes(MAX_FILE_BYTES)}: skipped")
            return None
        text, problem = decode(data, path)
        if problem:
            self.problem(problem)
        return None if text is None else self._remember(Raw(text, path), spec)

    def run(self, argv: tuple[str, ...] | list[str], spec: Spec | None = None) -> Raw | None:
        """Run a read-only command; None (with a reason) when absent, failing or timing out."""
        argv = list(argv)
        exe = shutil.which(argv[0], path=self.environ.get("PATH"))
        label = redact_text(" ".join(argv))
        if not exe:
            if spec is not None:
                self.why.setdefault(spec.name, f"{argv[0]} is not installed")
            return None
        env = {**self.environ, "LC_ALL": "C", "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0"}
        try:
            done = subprocess.run([exe, *argv[1:]], capture_output=True, timeout=COMMAND_TIMEOUT, env=env, check=False)
        except subprocess.TimeoutExpired:
            self.problem(f"{label}: timed out after {COMMAND_TIMEOUT:.0f}s")
            return None
        except OSError as exc:
            if spec is not None:
                self.why[spec.name] = f"{label}: {exc.strerror}"
            return None
        if done.returncode != 0 and not done.stdout.strip():
            message = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[-1]
            if spec is not None:
                self.why[spec.name] = f"{label}: {message[:120]}"
            return None
        text, problem = decode(done.stdout, label)
        if problem:
            self.problem(problem)
        return None if text is None else self._remember(Raw(text, label), spec)

    def read(self, spec: Spec) -> Raw | None:
        for path in spec.paths:
            raw = self._file(path, spec)
            if raw is not None:
                return raw
        for argv in spec.commands:
            raw = self.run(argv, spec)
            if raw is not None:
                return raw
        if spec.name not in self.why:
            if spec.paths:
                self.why[spec.name] = f"{spec.paths[0]} not present" + (" (needs root?)" if spec.needs_root and not self.is_root else "")
            else:
                self.why[spec.name] = "not available on a live host"
        return None

    def glob(self, spec: Spec) -> list[Raw]:
        found = []
        for name in self.glob_names(spec):
            raw = self._file(name, spec)
            if raw is not None:
                found.append(raw)
        return found

    def glob_names(self, spec: Spec) -> list[str]:
        names: list[str] = []
        for pattern in spec.paths:
            matches = sorted(globmod.glob(os.path.join(self.root, pattern.lstrip("/"))))
            names += ["/" + os.path.relpath(m, self.root) for m in matches]
        return names

    def read_path(self, path: str) -> Raw | None:
        return self._file(path, None)

    def now(self) -> datetime | None:
        return datetime.now()


class CachedLiveHost(LiveHost):
    """A live host that reads each spec and path once (``collect`` reads everything first, then extracts)."""

    def __init__(self, environ: Mapping[str, str] | None = None, root: str = "/") -> None:
        super().__init__(environ, root=root)
        self._reads: dict[str, Raw | None] = {}
        self._globs: dict[str, list[Raw]] = {}
        self._paths: dict[str, Raw | None] = {}

    def read(self, spec: Spec) -> Raw | None:
        if spec.name not in self._reads:
            self._reads[spec.name] = super().read(spec)
        return self._reads[spec.name]

    def glob(self, spec: Spec) -> list[Raw]:
        if spec.name not in self._globs:
            self._globs[spec.name] = super().glob(spec)
        return self._globs[spec.name]

    def read_path(self, path: str) -> Raw | None:
        if path not in self._paths:
            self._paths[path] = super().read_path(path)
        return self._paths[path]
