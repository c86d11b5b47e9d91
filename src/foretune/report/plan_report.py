"""The plan as Markdown (for a ticket) and as one self-contained HTML page: who and what, the verdict, the
changes first, the budgets, the problems, and what next, like the audit report."""

from __future__ import annotations

from foretune import __version__
from foretune.knowledge import citation
from foretune.plan.model import Plan, Tunable
from foretune.render.outputs import dropins, installer_program, sysctl_file
from foretune.report.markdown import text, with_code
from foretune.report.markdown_html import to_html
from foretune.report.page import page
from foretune.term import plural
from foretune.units import format_gib, format_gib_range, format_setting

SEVERITIES = ("critical", "high", "medium", "low", "info")


def _cites(ids: tuple[str, ...]) -> str:
    """Citation ids as their short titles."""
    return "; ".join(text(citation(cid).title) for cid in ids)


def _row(t: Tunable) -> str:
    return (f"| `{t.id}` | {text(format_setting(t.installer.value, t.unit))} | {text(format_setting(t.foretune.value, t.unit))} | "
            f"{text(t.foretune.reason)} | {_cites(t.foretune.citations)} |")


def verdict(plan: Plan) -> str:
    """One line: how many values change and the plan's problems, worst first.

    The wording follows the audit's verdict, so both reports read alike."""
    changed = sum(1 for t in plan.tunables.values() if t.differs)
    counts = [f"{sum(1 for p in plan.problems if p.severity == s)} {s}" for s in SEVERITIES
              if any(p.severity == s for p in plan.problems)]
    problems = f"{plural(len(plan.problems), 'problem')} ({', '.join(counts)})" if plan.problems else "no problems"
    return f"{plural(changed, 'value')} to change from the installer's, {problems}"


def what_next(plan: Plan) -> list[str]:
    """Apply, restart, check again."""
    steps = ["Write everything to apply: the same `foretune plan` options with `--output-dir plan/`, then follow "
             "plan/APPLY.md (custom-hiera.yaml, installer.sh, drop-ins, sysctl and commands, in order)."]
    if plan.release.features.custom_hiera:
        steps.append(f"Run `{installer_program(plan)}` after merging custom-hiera.yaml: it restarts the services it "
                     "reconfigures.")
    else:
        steps.append(f"{plan.release.label} reads no custom-hiera.yaml: APPLY.md lists the file edits and the services to "
                     "restart; the next installer run overwrites them.")
    units = sorted({path.split("/")[4].removesuffix(".service.d") for path in dropins(plan)})
    if units:
        steps.append(f"After the systemd drop-ins: `systemctl daemon-reload`, then restart {', '.join(units)}.")
    if sysctl_file(plan):
        steps.append("After the sysctl file: `sysctl --system` (no restart needed).")
    if plan.problems:
        steps.append("Settle the problems above first: they say where the plan does not fit this box.")
    steps.append("Check the result with `foretune audit live` on the box (or on a new sosreport): the changed values should "
                 "no longer show as findings.")
    return steps


def markdown(plan: Plan, *, generated: str = "", version: str = __version__) -> str:
    inp = plan.input
    lines = [f"# foretune plan: {text(plan.release.label)} {text(inp.role)}, {plural(inp.hosts, 'host')}", "",
             f"- Box: {plural(inp.cpus, 'CPU')}, {format_gib(inp.ram_bytes)} RAM",
             f"- Product: {text(plan.release.label)}, {text(inp.role)}",
             f"- Profile: {text(plan.profile)} ({text(plan.profile_reason)})",
             f"- Hardware: {text(plan.hardware.message)}",
             f"- Generated: {text(generated + ' by ' if generated else '')}foretune {text(version)}", "",
             f"## Verdict: {text(verdict(plan))}", ""]
    for s in SEVERITIES:
        found = [p for p in plan.problems if p.severity == s]
        lines += [f"- **{s}**: {text(p.message)}" for p in found]
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
    lines += ["", "## What next", "", *(f"{n}. {with_code(step)}" for n, step in enumerate(what_next(plan), 1))]
    return "\n".join(lines) + "\n"


def html(plan: Plan, *, generated: str = "", version: str = __version__, paper: str | None = None) -> str:
    title = f"foretune plan: {plan.release.label} {plan.input.role}, {plural(plan.input.hosts, 'host')}"
    return page(title, to_html(markdown(plan, generated=generated, version=version), {}), paper=paper)
