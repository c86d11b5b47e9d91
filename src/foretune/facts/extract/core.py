"""The extractor: reads specs through a source, runs parsers, records facts with provenance."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from foretune.facts.model import Fact, FactSet, Provenance
from foretune.facts.parsers import ParseError
from foretune.host.redact import redact_text
from foretune.host.sources.base import Raw, Source
from foretune.host.specs import BY_NAME

T = TypeVar("T")
EXCERPT_LINES = 4
EXCERPT_CHARS = 240
EXCERPT_SCAN = 4096


def excerpt(text: str, pattern: str | None = None, *, redacted: bool = False) -> str:
    """The lines of ``text`` matching ``pattern`` (or its first lines), short and redacted.

    The whole text is redacted before lines are picked, so a secret on a line of its own (a YAML
    value on the next line, a block scalar) is masked too. ``redacted``: ``text`` already is.

    >>> excerpt("a = 1\\nb = 2\\npassword = x\\n", r"^(b|password)")
    'b = 2 | password = [redacted]'
    >>> excerpt("token:\\n  abc123\\npool: 5\\n")
    'token: | [redacted] | pool: 5'
    """
    if not redacted:
        text = redact_text(text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if pattern is not None:
        rx = re.compile(pattern, re.IGNORECASE | re.MULTILINE)
        lines = [ln for ln in lines if rx.search(ln[:EXCERPT_SCAN])]
    else:
        lines = [ln for ln in lines if not ln.startswith("#")]
    short = " | ".join(ln[:EXCERPT_SCAN] for ln in lines[:EXCERPT_LINES])
    return short if len(short) <= EXCERPT_CHARS else short[:EXCERPT_CHARS - 1] + "…"


class Extractor:
    def __init__(self, source: Source) -> None:
        self.src = source
        self.facts = FactSet(source_kind=source.kind, source_label=source.label)
        self._cache: dict[str, Raw | None] = {}
        self.used: list[str] = []  # facts read by the extraction steps, in order
        self._globs: dict[str, list[Raw]] = {}
        self._redacted: dict[str, tuple[Raw, str]] = {}  # location -> (raw, its redacted text)

    # --- reading --------------------------------------------------------------------------
    def raw(self, spec_name: str) -> Raw | None:
        if spec_name not in self._cache:
            self._cache[spec_name] = self.src.read(BY_NAME[spec_name])
        found = self._cache[spec_name]
        if spec_name in self.src.unsure:
            self.src.unsure.append(spec_name)  # a damaged archive lost or cut it: each fact reading it may be partial
        return found

    def raws(self, spec_name: str) -> list[Raw]:
        if spec_name not in self._globs:
            self._globs[spec_name] = self.src.glob(BY_NAME[spec_name])
        if spec_name in self.src.unsure:
            self.src.unsure.append(spec_name)  # a damaged archive may have lost more matches
        return self._globs[spec_name]

    def why(self, spec_name: str) -> str:
        return self.src.why.get(spec_name, "not available in this source")

    def parse(self, raw: Raw | None, parser: Callable[[str], T]) -> T | None:
        """``parser(raw.text)``; a ParseError becomes one problem line and None."""
        if raw is None:
            return None
        if not raw.text.strip():
            return None
        try:
            return parser(raw.text)
        except ParseError as exc:
            self.src.problem(f"{raw.location}: {exc}")
            return None

    # --- recording ------------------------------------------------------------------------
    def redacted(self, raw: Raw) -> str:
        """``raw.text`` redacted (computed once per raw)."""
        cached = self._redacted.get(raw.location)
        if cached is None or cached[0] is not raw:
            cached = self._redacted[raw.location] = (raw, redact_text(raw.text))
        return cached[1]

    def prov(self, raw: Raw, pattern: str | None = None, text: str | None = None) -> Provenance:
        shown = excerpt(self.redacted(raw), pattern, redacted=True) if text is None else redact_text(text)
        return Provenance(self.src.kind, redact_text(raw.location), shown)

    def note(self, location: str, text: str) -> Provenance:
        return Provenance(self.src.kind, redact_text(location), redact_text(text))

    def absent(self, location: str, text: str) -> Provenance:
        """What ``location`` was read for and lacks, as a note: no excerpt (the file has no such line to quote)."""
        return Provenance(self.src.kind, redact_text(location), "", redact_text(text))

    def known(self, name: str, value: Any, *provenance: Provenance) -> None:
        self.facts.add(Fact(name=name, value=value, provenance=tuple(provenance)))

    def unknown(self, name: str, reason: str) -> None:
        if name not in self.facts.facts:
            self.facts.add(Fact.unknown(name, reason))

    def has(self, name: str) -> bool:
        self.used.append(name)
        return self.facts[name].known

    def value(self, name: str, default: Any = None) -> Any:
        self.used.append(name)  # a fact built from a partial one may be partial too
        return self.facts.value(name, default)
