"""Raw texts recorded on a live host (a collector snapshot), read back through the specs as the live host was read."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

from foretune.host.sources.base import Raw, Source
from foretune.host.specs import Spec


class Replay(Source):
    """Serves each spec from ``raw`` (location -> text) the way :class:`LiveHost` chose it: first path, then command."""

    def __init__(self, raw: Mapping[str, str], unread: Mapping[str, str], label: str, problems: list[str],
                 logs: Mapping[str, Any] | None = None) -> None:
        super().__init__(kind="snapshot", label=label)
        self.raw = dict(raw)
        self.logs = logs  # the snapshot's ``logs`` section (foretune.logs.ship), or None
        self.why.update(unread)
        for line in problems:
            self.problem(line)

    def _get(self, location: str, spec: Spec | None) -> Raw | None:
        text = self.raw.get(location)
        return None if text is None else self._remember(Raw(text, location), spec)

    def read(self, spec: Spec) -> Raw | None:
        for location in [*spec.paths, *(" ".join(argv) for argv in spec.commands)]:
            raw = self._get(location, spec)
            if raw is not None:
                return raw
        self.why.setdefault(spec.name, "not in the snapshot")
        return None

    def glob(self, spec: Spec) -> list[Raw]:
        return [raw for name in self.glob_names(spec) if (raw := self._get(name, spec)) is not None]

    def glob_names(self, spec: Spec) -> list[str]:
        names: list[str] = []
        for pattern in spec.paths:
            depth = pattern.count("/")
            names += sorted(k for k in self.raw if k.count("/") == depth and fnmatch.fnmatchcase(k, pattern))
        return names

    def read_path(self, path: str) -> Raw | None:
        return self._get(path, None)
