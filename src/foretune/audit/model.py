"""Findings and the audit report: what every output format renders."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from foretune.plan.model import Fix
from foretune.rules.base import Evidence, Severity, Status
from foretune.term import plural


@dataclass(frozen=True)
class Finding:
    rule_id: str
    title: str
    component: str
    severity: Severity
    status: Status
    message: str
    current: Any = None
    recommended: Any = None
    evidence: tuple[Evidence, ...] = ()
    fixes: tuple[str, ...] = ()  # rendered snippets
    fix_records: tuple[Fix, ...] = field(default=(), compare=False, repr=False)  # the rule's fixes, for the change set
    citations: tuple[tuple[str, str, str], ...] = ()  # (id, title, where)
    waived: str | None = None  # waiver reason
    waived_until: str | None = None  # the waiver's expiry date (YYYY-MM-DD); None: it never expires
    unit: str = ""  # "bytes": current and recommended are byte counts
    basis: str = ""  # a failure's evidence basis: measured | config | assumed (rules.base.Basis), which capped its severity
    # (tunable, value) each fix puts in force: "foreman::db_pool" 20, "httpd.service:LimitNOFILE" 640000, "profile" large
    recommends: tuple[tuple[str, Any], ...] = ()
    symptoms: tuple[Finding, ...] = ()  # failing findings of the same root cause, joined under this one (audit.combine)

    @property
    def counts(self) -> bool:
        """A failure that is not waived."""
        return self.status in (Status.FAIL, Status.ERROR) and self.waived is None


@dataclass
class Report:
    source: str
    source_kind: str
    release: str | None
    role: str | None
    hosts: int | None
    profile: str | None
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # source problems and context notes
    hosts_basis: str | None = None  # where the host figure came from ("--hosts", counted in FILE, assumed ...)
    profile_basis: str | None = None  # why this profile (declared, hardware, host count)
    hostname: str | None = None
    collected_at: str | None = None  # when the data was taken (sosreport date)
    ram_bytes: int | None = None
    memory_budget: tuple[tuple[str, int], ...] = ()  # (component, bytes) in force, as memory-budget-over-ram counts them
    # (component, bytes) of the plan the box needs (the profile the audit asks for): their sum is memory-budget-over-ram's
    # recommended value
    plan_memory: tuple[tuple[str, int], ...] = ()
    plan_profile: str | None = None
    connection_budget: tuple[tuple[str, int], ...] = ()  # (consumer, connections) from the plan
    max_connections: int | None = None  # PostgreSQL max_connections in force
    available_bytes: int | None = None  # measured MemAvailable
    swap_used_bytes: int | None = None  # measured swap in use (SwapTotal - SwapFree)
    damaged: str | None = None  # a damaged archive: the audit is incomplete (the damage, one line)

    def judged_nothing(self) -> bool:
        """No rule could pass or fail: every one was skipped (a damaged archive of which too little was read)."""
        return not any(f.status in (Status.PASS, Status.FAIL) for f in self.findings)

    def context_lines(self) -> list[str]:
        """The header's account of the host figure and the profile used, and why."""
        hosts = "unknown" if self.hosts is None else str(self.hosts)
        lines = [f"host figure: {hosts}" + (f" ({self.hosts_basis})" if self.hosts_basis else "")]
        if self.profile:
            lines.append(f"profile: {self.profile}" + (f" ({self.profile_basis})" if self.profile_basis else ""))
        return lines

    def count(self, status: Status) -> int:
        return sum(1 for f in self.findings if f.status == status)

    def failing(self) -> list[Finding]:
        return [f for f in self.findings if f.counts]

    def worst(self) -> Severity | None:
        failing = self.failing()
        return max((f.severity for f in failing), default=None)

    def summary(self) -> str:
        fails = self.failing()
        by_sev = {s: sum(1 for f in fails if f.severity == s) for s in Severity}
        parts = [f"{n} {s.label}" for s, n in sorted(by_sev.items(), reverse=True) if n]
        waived = sum(1 for f in self.findings if f.waived)

        return (plural(len(fails), "finding") + (f" ({', '.join(parts)})" if parts else "")
                + f", {self.count(Status.PASS)} passed, {self.count(Status.SKIP)} skipped"
                + (f", {waived} waived" if waived else ""))


def redacted(report: Report) -> Report:
    """The report with secrets masked in every text it carries (the last gate before any output format)."""
    from foretune.host.redact import redact_data, redact_text  # start-up: patterns compile only for a report
    from foretune.rules.base import Evidence  # start-up: only when redacted runs

    def clean(f: Finding) -> Finding:
        return dataclasses.replace(
            f, message=redact_text(f.message), current=redact_data(f.current), recommended=redact_data(f.recommended),
            evidence=tuple(Evidence(e.fact, redact_text(e.location), redact_text(e.excerpt), redact_text(e.note))
                           for e in f.evidence),
            fixes=tuple(redact_text(x) for x in f.fixes), recommends=redact_data(f.recommends), waived=redact_text(f.waived) if f.waived else f.waived,
            symptoms=tuple(clean(s) for s in f.symptoms))

    return dataclasses.replace(report, source=redact_text(report.source), findings=[clean(f) for f in report.findings],
                               notes=[redact_text(n) for n in report.notes],
                               hostname=redact_text(report.hostname) if report.hostname else report.hostname,
                               collected_at=redact_text(report.collected_at) if report.collected_at else report.collected_at,
                               hosts_basis=redact_text(report.hosts_basis) if report.hosts_basis else report.hosts_basis,
                               memory_budget=tuple((redact_text(n), b) for n, b in report.memory_budget),
                               plan_memory=tuple((redact_text(n), b) for n, b in report.plan_memory),
                               connection_budget=tuple((redact_text(n), c) for n, c in report.connection_budget))
