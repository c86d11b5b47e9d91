"""What every source offers the fact extractor: read a spec, glob a spec, remember what was read."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any, Protocol

from foretune.host.specs import Spec


@dataclass(frozen=True)
class Raw:
    """Text of one file or command output, and where it came from."""

    text: str
    location: str


class MemberReader(Protocol):
    """What a tarball's streaming pass hands the members it does not keep to (the log analyzers, for incidents)."""

    def wants(self, rel: str) -> bool:
        """Whether the member at ``rel`` (relative to the sosreport root) is one to read."""
        ...

    def read(self, rel: str, stream: IO[bytes], mtime: float) -> None:
        """Read one member (possibly compressed) as the pass goes; ``mtime`` is its last-written time."""
        ...


@dataclass
class Source:
    """Base class; subclasses implement :meth:`read` and :meth:`glob`."""

    kind: str
    label: str
    problems: list[str] = field(default_factory=list)
    why: dict[str, str] = field(default_factory=dict)  # spec name -> reason it could not be read
    log: dict[str, Raw] = field(default_factory=dict)  # location -> raw, everything read (for snapshots)
    sensitive: set[str] = field(default_factory=set)  # locations holding secrets
    log_scan: Any = field(default=None, repr=False)  # the logs' analysis (foretune.logs), once they were read
    # reads whose answer a cut archive may have changed: a spec or path not found, a glob (more may have matched)
    unsure: list[str] = field(default_factory=list, repr=False)

    def read(self, spec: Spec) -> Raw | None:
        raise NotImplementedError

    def glob(self, spec: Spec) -> list[Raw]:
        raise NotImplementedError

    def glob_names(self, spec: Spec) -> list[str]:
        """Names matching a glob spec, without reading them."""
        return []

    def read_path(self, path: str) -> Raw | None:
        """One absolute path (e.g. ``/proc/1234/limits``); None when absent."""
        raise NotImplementedError

    def now(self) -> datetime | None:
        """When the data was taken (sosreport date), or None."""
        return None

    def problem(self, line: str) -> None:
        from foretune.host.redact import redact_text  # start-up: compiling the patterns waits for a problem

        line = redact_text(line)
        if line not in self.problems:
            self.problems.append(line)

    def _remember(self, raw: Raw, spec: Spec | None) -> Raw:
        self.log[raw.location] = raw
        if spec is not None and spec.sensitive:
            self.sensitive.add(raw.location)
        return raw
