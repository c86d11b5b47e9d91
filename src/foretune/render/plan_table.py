"""The plan as a readable terminal table."""

from __future__ import annotations

from foretune.plan.model import Plan
from foretune.units import format_gib, format_setting

SEVERITY_COLOR = {"critical": "31;1", "high": "31", "medium": "33", "low": "36", "info": "37"}


def _epoch(epoch: str) -> str:
    if epoch == "none":
        return "no installer --tuning profiles"
    if epoch == "tuning.yaml":
        return "installer tuning: single tuning.yaml"
    return f"installer tuning epoch {epoch}"


def _range(low: int, high: int) -> str:
    return f"{low / 1024**3:.1f}-{high / 1024**3:.1f} GiB"


def render(plan: Plan, *, color: bool = False) -> str:
    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if color else text

    inp = plan.input
    lines = [
        f"{plan.release.label} {inp.role}: {inp.hosts} hosts, {inp.cpus} CPUs, {format_gib(inp.ram_bytes)} RAM",
        f"generation: {plan.release.generation} ({_epoch(plan.release.epoch)})",
        f"profile: {plan.profile} — {plan.profile_reason}",
        f"hardware: {plan.hardware.message}",
        f"largest profile this hardware supports: {plan.largest_supported_profile or 'none (below default)'}",
        "",
    ]
    marks = {"answers file": " (a)", "custom-hiera.yaml": " (h)"}
    rows = [(t.id, format_setting(t.installer.value, t.unit) + marks.get(t.installer.origin, ""), format_setting(t.foretune.value, t.unit),
             t.foretune.reason, ", ".join(t.foretune.citations), t.differs) for t in plan.tunables.values()]
    widths = [max(len(str(r[i])) for r in [("tunable", "installer", "foretune"), *rows]) for i in range(3)]
    lines.append(f"{'tunable':<{widths[0]}}  {'installer':>{widths[1]}}  {'foretune':>{widths[2]}}  reason [citations]")
    for tid, inst, rec, reason, cites, differs in rows:
        mark = paint("*", "33;1") if differs else " "
        lines.append(f"{tid:<{widths[0]}}  {inst:>{widths[1]}} {mark}{rec:>{widths[2]}}  {reason} [{cites}]")
    lines += ["", "* = foretune recommends a change"]
    if any(t.installer.origin for t in plan.tunables.values()):
        lines.append("(a) = set in the answers file, (h) = set in custom-hiera.yaml: in force on the box, above the tuning profile")
    lines += ["", "PostgreSQL connection budget:"]
    total = 0
    for consumer, n in plan.connection_budget:
        lines.append(f"  {n:>6}  {consumer}")
        total += n
    t = plan.tunables.get("postgresql.max_connections")
    lines.append(f"  {total:>6}  total" + (f"; max_connections installer {t.installer.value}, foretune {t.foretune.value}" if t else ""))
    if plan.installer_connection_budget and t:
        lines.append(f"  {sum(n for _, n in plan.installer_connection_budget):>6}  with the installer's own values "
                     f"(Puma, pool, Sidekiq, Pulp as installed)")
    mem_total = sum(m.bytes for m in plan.memory)
    lines += ["", "Memory budget (never swap): planning figure, range the sources give"]
    lines += [f"  {format_gib(m.bytes):>10}  {_range(m.low_bytes, m.high_bytes):>15}  {m.component} ({m.reason}) [{', '.join(m.citations)}]"
              for m in plan.memory]
    lines.append(f"  {format_gib(mem_total):>10}  {_range(sum(m.low_bytes for m in plan.memory), sum(m.high_bytes for m in plan.memory)):>15}"
                 f"  total of {format_gib(inp.ram_bytes)} RAM"
                 + ("" if mem_total <= inp.ram_bytes else "  " + paint("OVER", "31;1")))
    lines.append("")
    if plan.problems:
        lines.append("Problems:")
        for p in plan.problems:
            lines.append(f"  {paint(p.severity.upper(), SEVERITY_COLOR.get(p.severity, '0'))}  {p.message} [{', '.join(p.citations)}]")
    else:
        lines.append("Problems: none")
    return "\n".join(lines) + "\n"
