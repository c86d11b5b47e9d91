"""The typed fact model every consumer (planner, audit rules, reports) reads.

A :class:`Fact` is a value with provenance, or *unknown* with a reason. Consumers never
learn whether it came from a live host, a sosreport directory, a tarball or a snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Provenance:
    """Where a fact came from: the source kind, the file or command, and a short excerpt."""

    source: str  # "live", "sosreport", "snapshot"
    location: str  # path inside the host/archive, or the command line
    excerpt: str = ""
    # with no excerpt: what the file was read for and lacks ("no line sets pool; the Rails default 5 applies"), in foretune's
    # words, never quoted as the file's text
    note: str = ""

    def as_dict(self) -> dict[str, str]:
        out = {"source": self.source, "location": self.location, "excerpt": self.excerpt}
        return {**out, "note": self.note} if self.note else out


LOST = "lost to the damage"  # how an unknown reason starts when a damaged archive may hold the fact past its damage


@dataclass(frozen=True)
class Fact:
    """One logical fact: a value, or unknown with the reason why."""

    name: str
    value: Any = None
    provenance: tuple[Provenance, ...] = ()
    unknown_reason: str | None = None

    @property
    def known(self) -> bool:
        return self.unknown_reason is None

    @property
    def lost(self) -> bool:
        """Unknown because a damaged archive may hold it past the damage: not judged, never taken as unset."""
        return self.unknown_reason is not None and self.unknown_reason.startswith(LOST)

    @classmethod
    def unknown(cls, name: str, reason: str) -> Fact:
        return cls(name=name, unknown_reason=reason)


@dataclass
class FactSet(Mapping[str, Fact]):
    """All facts read from one source, by logical name."""

    source_kind: str
    source_label: str
    facts: dict[str, Fact] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # one line per unreadable input
    damage: str | None = None  # a damaged archive: the one line that says where, why and which facts it took
    partial: dict[str, str] = field(default_factory=dict)  # known facts the damage may have cut -> why
    garbled: bool = False  # read from a gzip stream found corrupt: every fact may hold damaged data

    def __getitem__(self, name: str) -> Fact:
        return self.facts.get(name) or Fact.unknown(name, "not collected")

    def __iter__(self) -> Iterator[str]:
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def value(self, name: str, default: Any = None) -> Any:
        """The fact's value, or ``default`` when it is unknown."""
        fact = self[name]
        return fact.value if fact.known else default

    def add(self, fact: Fact) -> None:
        self.facts[fact.name] = fact
