"""PostgreSQL's built-in default of a setting for the server version in force: the one place rules read it.

The version is the ``postgresql_version`` fact; when it is unknown the newest default applies and the
messages say so. Defaults and their citations live in ``module-defaults.yaml`` (postgresql_by_version).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from foretune.knowledge import load_data, postgresql_default
from foretune.knowledge.releases import version_key
from foretune.rules.base import Context, Evidence, Rule


def major(version: str) -> str:
    """PostgreSQL's major release of ``version``: two numbers before 10, one from 10 on.

    >>> major("9.2.23"), major("12.18"), major("9.4")
    ('9.2', '12', '9.4')
    """
    parts = version.split(".")
    return ".".join(parts[:2]) if version_key(version)[:1] < (10,) else parts[0]


@dataclass(frozen=True)
class PgDefault:
    """A default in force: its value, the release it holds from, its citation and the server version it was picked for."""

    setting: str
    value: Any
    since: str
    citation: str
    version: str | None  # the PostgreSQL version in force; None when unknown

    @property
    def origin(self) -> str:
        """Where the value comes from, for messages: ``PostgreSQL 9.2's default``."""
        if self.version is None:
            return "PostgreSQL's newest default, server version unknown"
        if version_key(self.version) < version_key(self.since):
            return f"PostgreSQL {major(self.version)} predates the defaults foretune knows: {self.since}'s default"
        return f"PostgreSQL {major(self.version)}'s default"

    @property
    def shown(self) -> str:
        """``1MB (unset: PostgreSQL 9.2's default)``."""
        return f"{self.value} (unset: {self.origin})"

    def evidence(self, ctx: Context) -> tuple[Evidence, ...]:
        """The default with its citation, then where the server version comes from (when known)."""
        line = Evidence("postgresql default", f"citation {self.citation}",
                        f"{self.setting} = {self.value} from PostgreSQL {self.since} on ({self.origin})")
        return (line, *(ctx.evidence("postgresql_version") if self.version is not None else ()))


def setting_evidence(ctx: Context, setting: str, default: PgDefault | None) -> tuple[Evidence, ...]:
    """What shows the value in force: the lines that set ``setting``; when none does (``default``), each file read
    saying it has no such line, then the default's citation (never the file's other lines: they prove nothing here)."""
    if default is None:
        return ctx.evidence("postgresql", about=setting)
    return (*absent(ctx, setting, f"PostgreSQL's default {default.value} applies"), *default.evidence(ctx))


def absent(ctx: Context, setting: str, then: str) -> tuple[Evidence, ...]:
    """Each PostgreSQL file read, with a note of the line it lacks, never a quote of its other lines: ``no line sets
    work_mem; PostgreSQL's default 4MB applies``."""
    return tuple(Evidence(e.fact, e.location, note=f"no line sets {setting}; {then}") for e in ctx.evidence("postgresql"))


def cited(rule: Rule, default: PgDefault | None) -> dict[str, tuple[str, ...]]:
    """The ``citations`` keyword of an outcome: the rule's citations with, of PostgreSQL's default history, only the
    step that applied, or none of that history when the setting is configured (the default played no part)."""
    history = default_citations()
    kept = tuple(c for c in rule.citations if c not in history)
    return {"citations": (*kept, default.citation) if default is not None else kept}


def default_citations() -> frozenset[str]:
    """Every citation of PostgreSQL's default history, and pg-conf-defaults (the newest values, PostgreSQL 15)."""
    steps = load_data("module-defaults.yaml")["postgresql_by_version"].values()
    return frozenset({"pg-conf-defaults", *(str(step["citation"]) for history in steps for step in history)})


def pg_default(ctx: Context, setting: str) -> PgDefault:
    """PostgreSQL's default for ``setting`` on the server version in force (the newest when it is unknown)."""
    version = ctx.facts.value("postgresql_version")
    version = str(version) if version else None
    step = postgresql_default(setting, version)
    return PgDefault(setting, step["value"], str(step["since"]), str(step["citation"]), version)
