"""The plan as Markdown (for a ticket) and as one self-contained HTML page: who and what, the verdict, the
changes first, the budgets, the problems, and what next, like the audit report."""

from __future__ import annotations

from foretune.changes.build import HIERA_FILE
from foretune.changes.model import ChangeSet
from foretune.knowledge import citation
from foretune.plan.model import Plan, Tunable
from foretune.render.outputs import OVERRIDE_NOTE, changes_of, hiera_fragment, installer_command, override_notes
from foretune.render.plan_summary import NO_ABOUT, SEVERITIES, About, identity, verdict, what_next
from foretune.report.markdown import text, with_code
from foretune.report.markdown_html import to_html
from foretune.report.page import page
from foretune.term import plural
from foretune.units import format_gib, format_gib_range, format_setting


def _cites(ids: tuple[str, ...]) -> str:
    """Citation ids as their short titles."""
    return "; ".join(text(citation(cid).title) for cid in ids)


def _row(t: Tunable) -> str:
    return (f"| `{t.id}` | {text(format_setting(t.installer.value, t.unit))} | {text(format_setting(t.foretune.value, t.unit))} | "
            f"{text(t.foretune.reason)} | {_cites(t.foretune.citations)} |")


def markdown(plan: Plan, *, about: About = NO_ABOUT, changes: ChangeSet | None = None) -> str:
    """``about``: who and when (the host and collection date of --from, the generation time and version) and the
    command What next gives; ``changes``: the change set the other formats write (the plan's own when None)."""
    inp = plan.input
    fields = identity(plan, about)
    lines = [f"# foretune plan: {text(plan.release.label)} {text(inp.role)}, {plural(inp.hosts, 'host')}", "",
             *(f"- {name}: {text(value)}" for name, value in fields if name != "Generated"),
             f"- Box: {plural(inp.cpus, 'CPU')}, {format_gib(inp.ram_bytes)} RAM",
             f"- Profile: {text(plan.profile)} ({text(plan.profile_reason)})",
             f"- Hardware: {text(plan.hardware.message)}",
             *(f"- {name}: {text(value)}" for name, value in fields if name == "Generated"), "",
             f"## Verdict: {text(verdict(plan))}", ""]
    for s in SEVERITIES:
        found = [p for p in plan.problems if p.severity == s]
        lines += [f"- **{s}**: {with_code(p.message)}" for p in found]
    changed = [t for t in plan.tunables.values() if t.differs]
    same = [t for t in plan.tunables.values() if not t.differs]
    header = ["| tunable | installer | foretune | reason | sources |", "|---|---|---|---|---|"]
    lines += ["", f"## What foretune changes ({len(changed)})", ""]
    lines += [*header, *(_row(t) for t in changed)] if changed else ["Nothing: the installer's values fit."]
    if same:
        lines += ["", f"## Kept as the installer sets them ({len(same)})", "", *header, *(_row(t) for t in same)]
    lines += ["", "## PostgreSQL connection budget", "", "| connections | consumer |", "|---|---|"]
    lines += [f"| {n} | {text(consumer)} |" for consumer, n in plan.connection_budget]
    lines.append(f"| {sum(n for _, n in plan.connection_budget)} | total |")
    lines += ["", "## Memory budget (never swap)", "", "| planned | range | component |", "|---|---|---|"]
    lines += [f"| {format_gib(m.bytes)} | {format_gib_range(m.low_bytes, m.high_bytes)} | {text(m.component)} ({text(m.reason)}) |"
              for m in plan.memory]
    total = sum(m.bytes for m in plan.memory)
    lines.append(f"| {format_gib(total)} | | total, of {format_gib(inp.ram_bytes)} RAM{' (over)' if total > inp.ram_bytes else ''} |")
    lines += ["", "## To apply", ""]
    notes = override_notes(plan, changes)
    lines += [f"> {text(note)}." for note in ([OVERRIDE_NOTE, *notes] if plan.release.features.custom_hiera else [])]
    removals = [c for c in changes_of(plan, changes).changes if c.channel == "custom-hiera" and c.op == "remove"]
    if removals:  # the fragment below only adds: the keys the set deletes are said here, each with why
        lines += ["", f"Delete these keys from `{HIERA_FILE}` first (a/b: the key b under a):", "",
                  *(f"- `{c.target}`: {text(c.reason)}" for c in removals)]
    if plan.release.features.custom_hiera:
        lines += ["", f"Merge into `{HIERA_FILE}` (keep every key the file has):", "", "```yaml",
                  hiera_fragment(plan, changes).rstrip("\n"), "```"]
    lines += ["", "Then run:" if plan.release.features.custom_hiera else "Run:", "", "```sh",
              installer_command(plan, changes), "```"]
    lines += ["", "## What next", "", *(f"{n}. {with_code(step)}" for n, step in enumerate(what_next(plan, about.command), 1))]
    return "\n".join(lines) + "\n"


def html(plan: Plan, *, about: About = NO_ABOUT, paper: str | None = None, changes: ChangeSet | None = None) -> str:
    title = f"foretune plan: {plan.release.label} {plan.input.role}, {plural(plan.input.hosts, 'host')}"
    body = to_html(markdown(plan, about=about, changes=changes), {})
    return page(title, body, paper=paper, copy=True)
