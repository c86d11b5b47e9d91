"""What a rule is: metadata, gating by generation and role, and the outcome it returns.

A rule lives in ``foretune/rules/<component>/<rule_id with underscores>.py`` and defines one
subclass of :class:`Rule` named in the module-level ``RULE`` variable; its documentation is the
sibling ``<same name>.md``. Rules read facts only through :class:`Context`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from foretune.facts.model import FactSet
    from foretune.knowledge.model import Release
    from foretune.plan.choose import HostFigure
    from foretune.plan.model import Fix, Plan


class Severity(enum.IntEnum):
    INFO = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4

    @property
    def label(self) -> str:
        return self.name.lower()


class Basis(str, enum.Enum):
    """What a finding rests on; the runner caps its severity by it (see ``Basis.cap``).

    measured: the source shows the failure or the state (a log line, a kernel counter, a saturated pool, a
    benchmark, MemAvailable); config: a setting judged against the guide, nothing measured; assumed: the verdict
    rests on a context foretune assumed (a host count neither given with --hosts nor counted in the source).
    """

    MEASURED = "measured"
    CONFIG = "config"
    ASSUMED = "assumed"

    @property
    def cap(self) -> Severity:
        """The highest severity this basis supports: measured failure critical, config medium, assumed low."""
        return {Basis.MEASURED: Severity.CRITICAL, Basis.CONFIG: Severity.MEDIUM, Basis.ASSUMED: Severity.LOW}[self]


class Status(str, enum.Enum):
    PASS = "pass"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"


@dataclass(frozen=True)
class Evidence:
    fact: str
    location: str
    excerpt: str = ""  # text of the file, verbatim (whitespace aside)
    # with no excerpt: what the file was read for and lacks ("no line sets effective_cache_size; ..."), said by
    # foretune, never quoted as the file's text
    note: str = ""


@dataclass(frozen=True)
class Outcome:
    """The result of one rule on one source."""

    status: Status
    message: str
    current: Any = None
    recommended: Any = None
    evidence: tuple[Evidence, ...] = ()
    fixes: tuple[Fix, ...] = ()
    severity: Severity | None = None  # overrides the rule's default (e.g. worse at scale)
    observed: bool = False  # the source itself shows the failure (a log line, a saturated pool): basis measured
    basis: Basis | None = None  # overrides the rule's basis (e.g. a config rule that quotes a measurement)
    citations: tuple[str, ...] = ()  # overrides the rule's citations (the section for this release)


@dataclass
class Context:
    """Everything a rule may read. ``plan`` is None when version or hardware are unknown."""

    facts: FactSet
    release: Release | None
    role: str | None
    hosts: int | None
    plan: Plan | None = None
    bench: list[dict[str, Any]] = field(default_factory=list)  # foretune-bench/1 documents
    no_plan_reason: str = "plan unavailable: product version, CPUs or RAM unknown"
    host_figure: HostFigure | None = None
    profile_reason: str = ""
    # the plan at the profile this audit asks for (a counted host figure beyond the declared profile's range, as far
    # as the installer's hardware check accepts it); None: no profile change, ``plan`` stands
    fix_plan: Plan | None = None
    # the host count was lost to the damage: the same facts judged at the fewest and at the most hosts the profiles
    # size for; a rule whose verdict or fix differs between them depends on the count it cannot know (see the runner)
    host_variants: tuple[Context, ...] = ()

    @property
    def hosts_assumed(self) -> bool:
        return self.host_figure is not None and self.host_figure.assumed

    @property
    def fix_profile(self) -> str | None:
        """The profile the recommended values are those of (:attr:`tunables`)."""
        plan = self.fix_plan or self.plan
        return plan.profile if plan is not None else None

    @property
    def tunables(self) -> Mapping[str, Any]:
        """The tunables every recommended value and fix of this audit comes from: those of the plan at the profile
        the audit asks for (``fix_plan``), else the plan's; the change set is built from the same plan, so a
        finding and the outputs give one value per tunable."""
        plan = self.fix_plan or self.plan
        return plan.tunables if plan is not None else {}

    def hiera_fix(self, target: str, value: Any) -> Fix:
        """A custom-hiera fix; on releases without custom-hiera (Satellite 6.2) the edit of the file it ends up in."""
        from foretune.plan.model import Fix  # start-up: plan code loads only for a fix

        fix = Fix("hiera", target, value)
        if self.release is None or self.release.features.custom_hiera:
            return fix
        from foretune.plan.direct_edits import direct_edit  # start-up: plan code loads only for a fix

        return direct_edit(fix, capsule=self.role == "capsule")

    def hosts_evidence(self) -> tuple[Evidence, ...]:
        """Where the host figure the rules use comes from: ``--hosts`` on the command line (then the source's own count
        after it, which it overrides), else the source's count."""
        counted = self.evidence("managed_hosts") if self.facts["managed_hosts"].known else ()
        if self.host_figure is not None and self.host_figure.source == "--hosts":
            given = Evidence("managed_hosts", "command line", f"--hosts {self.hosts}")
            return (given, *(e for e in counted if e != given))
        return counted

    def bench_results(self, kind: str) -> list[dict[str, Any]]:
        """Every result of the given bench documents ("storage" or "db") passed with --bench."""
        return [r for doc in self.bench if doc.get("kind") == kind for r in doc.get("results", [])]

    def evidence(self, *names: str, about: str | tuple[str, ...] = (), whole: bool = False) -> tuple[Evidence, ...]:
        """Provenance of the named facts, as evidence lines.

        ``about``: keep only excerpts containing one of these words (a mount point, a directive), when any does; when
        none does, the others except systemd unit blocks (each is about its own unit only).
        ``whole``: keep each such excerpt whole, not only its ``' | '``-joined lines about the words (a psql row
        separates its columns with ``' | '`` too: the table's name without its sizes proves nothing).
        """
        out = [Evidence(name, prov.location, prov.excerpt, prov.note) for name in names for prov in self.facts[name].provenance]
        words = {w.lower() for w in ((about,) if isinstance(about, str) else about)}
        if not words:
            return tuple(x for e in out for x in _unit_lines(e))

        def tokens(text: str) -> set[str]:
            return {t.strip(":,;()[]\"'").lower() for t in re.split(r"[\s=]+", text) if t}

        narrowed = [e for e in out if words & (tokens(e.excerpt) | tokens(e.note) | set(e.location.lower().split("/")))]
        # a process's limits belong to the unit whose block names it as MainPID
        pids = {f"proc/{p}/limits" for e in narrowed for p in re.findall(r"^MainPID=(\d+)$", e.excerpt, re.M)}
        narrowed = [e for e in out if e in narrowed or e.location in pids]

        def lines_about(e: Evidence) -> tuple[Evidence, ...]:
            """Keep only the excerpt's lines about the words (an excerpt may join several lines with ' | ')."""
            sep = " | " if " | " in e.excerpt else "\n"
            parts = e.excerpt.split(sep)
            if "Id=" in e.excerpt and "\n" in e.excerpt:
                return _unit_lines(e)
            if whole or len(parts) < 2:
                return (e,)
            kept = [p for p in parts if words & tokens(p)]
            return (Evidence(e.fact, e.location, sep.join(kept)) if kept else e,)

        if narrowed:
            return tuple(x for e in narrowed for x in lines_about(e))
        # nothing names the words: the fact's other lines, but never a systemd unit's block, which is about its own
        # unit only (another unit's LimitNOFILE proves nothing about this one)
        return tuple(x for e in out if not ("Id=" in e.excerpt and "\n" in e.excerpt) for x in _unit_lines(e))


def _unit_lines(e: Evidence) -> tuple[Evidence, ...]:
    """A unit's lines of systemctl show (``Id=`` first), each its own line of the file and not adjacent there: one
    evidence line each, so every excerpt is text of the file it names. Any other evidence as it is."""
    if "Id=" not in e.excerpt or "\n" not in e.excerpt:
        return (e,)
    return tuple(Evidence(e.fact, e.location, line) for line in e.excerpt.split("\n") if line.strip())


class Rule:
    """Base class; subclasses set the class attributes and implement :meth:`check`."""

    id: ClassVar[str]  # kebab-case, e.g. "thp-enabled"
    title: ClassVar[str]
    component: ClassVar[str]  # os | hardware | storage | apache | passenger | puma | postgresql | dynflow |
    #                           pulp | candlepin | qpid | mqtt | mongodb | redis | foreman | installer | hammer | capacity
    severity: ClassVar[Severity]
    # the foretune release that added the rule (ansible-lint's version_added), for the changelog and the docs
    version_added: ClassVar[str]
    # applying the fix could hurt (data deleted, a table locked, downtime, memory or behaviour an admin relies
    # on): the doc's "Fix safety" section says when (ruff's unsafe fixes)
    unsafe_fix: ClassVar[bool] = False
    roles: ClassVar[frozenset[str]] = frozenset({"server", "capsule"})
    needs: ClassVar[tuple[str, ...]] = ()  # fact names; unknown -> SKIP "fact unknown: <reason>"
    citations: ClassVar[tuple[str, ...]] = ()  # ids in knowledge/data/citations*.yaml
    unit: ClassVar[str] = ""  # "bytes" when current/recommended are byte counts (reports show them in GiB/MiB)
    uses_hosts: ClassVar[bool] = False  # the verdict depends on the managed-host count
    # the profile's own value is hygiene (low) unless the rule weighs demand in force against it
    demand_based: ClassVar[bool] = False
    # what a failure rests on: measured state, a setting (config) or an assumed context; the runner caps the
    # severity by it (Basis.cap), so no rule reaches high on configuration alone
    basis: ClassVar[Basis] = Basis.CONFIG
    # log incidents (kind, services; empty = any service) that show this limit already failing: the finding
    # then quotes the line and is critical
    failing_when: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()
    # how many times those incidents must occur to make the finding critical: one line of a transient wait (a single
    # pool timeout) is evidence to watch, not a sizing
    failing_min: ClassVar[int] = 1
    # rules whose failure is the root cause of this one's: when one of them fails quoting the same evidence (the log
    # lines its failing_when found), this finding is listed under it as a symptom instead of standing alone
    symptom_of: ClassVar[tuple[str, ...]] = ()
    # per root cause, the facts whose evidence lines a symptom must share with it to join it (a root not named: any of
    # its lines); a Puma backlog joins the pool's finding only when it quotes database.yml, not for the Puma lines both
    # quote anyway
    symptom_facts: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()  # (root rule id, facts) pairs
    # rules whose failure in the same report is a separate problem though it looks like this one (PostgreSQL's server
    # limit and the Rails pool both end in connection errors): (rule id, why) pairs; audit.combine keeps them apart and
    # the report says why beside this finding
    distinct_from: ClassVar[tuple[tuple[str, str], ...]] = ()

    def applies(self, ctx: Context) -> str | None:
        """Return a skip reason when the rule does not apply (generation, role), else None."""
        return None

    def check(self, ctx: Context) -> Outcome:
        raise NotImplementedError

    # helpers -------------------------------------------------------------------------------
    def passed(self, message: str, **kw: Any) -> Outcome:
        return Outcome(Status.PASS, message, **kw)

    def failed(self, message: str, **kw: Any) -> Outcome:
        return Outcome(Status.FAIL, message, **kw)

    def skipped(self, reason: str) -> Outcome:
        return Outcome(Status.SKIP, reason)


class PlanRule(Rule):
    """A rule that compares a configured value with the plan's recommendation for one tunable."""

    tunable: ClassVar[str]

    def applies(self, ctx: Context) -> str | None:
        if ctx.plan is None:
            return ctx.no_plan_reason
        if self.tunable not in ctx.plan.tunables:
            return self.not_planned(ctx)
        return None

    def not_planned(self, ctx: Context) -> str:
        """Why the plan has no value for the tunable: by default the release has no such setting for this role (its
        product and version, as an admin knows them, not foretune's generation name)."""
        assert ctx.plan is not None
        return f"not applicable to {ctx.plan.release.label} {ctx.plan.input.role}s"

    def recommendation(self, ctx: Context) -> Any:
        """The tunable as the audit recommends it (:attr:`Context.tunables`)."""
        assert ctx.plan is not None
        return ctx.tunables.get(self.tunable) or ctx.plan.tunables[self.tunable]
