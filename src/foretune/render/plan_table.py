"""The plan as a readable terminal table, wrapped to the terminal's width."""

from __future__ import annotations

from typing import TYPE_CHECKING

from foretune.plan.model import Plan, Tunable
from foretune.term import plural, render_to_text
from foretune.units import format_gib, format_setting

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.table import Table


WIDE = 120  # narrower terminals get one block per tunable instead of a table


ORIGIN_MARKS = {"answers file": " (a)", "custom-hiera.yaml": " (h)"}


def _installer(t: Tunable) -> str:
    """The installer's value, marked when the answers file or custom-hiera.yaml sets it on the box."""
    return format_setting(t.installer.value, t.unit) + ORIGIN_MARKS.get(t.installer.origin or "", "")


def _epoch(epoch: str) -> str:
    if epoch == "none":
        return "no installer --tuning profiles"
    if epoch == "tuning.yaml":
        return "installer tuning: single tuning.yaml"
    return f"installer tuning epoch {epoch}"


def _range(low: int, high: int) -> str:
    return f"{low / 1024**3:.1f}-{high / 1024**3:.1f} GiB"


def render(plan: Plan, *, color: bool = False, width: int | None = None) -> str:
    """The plan as terminal text; ``width`` wraps every line (``None``: no wrapping)."""
    from rich.console import Group
    from rich.padding import Padding
    from rich.text import Text

    inp = plan.input
    parts: list[RenderableType] = [Text(line) for line in (
        f"{plan.release.label} {inp.role}: {plural(inp.hosts, 'host')}, {plural(inp.cpus, 'CPU')}, {format_gib(inp.ram_bytes)} RAM",
        f"generation: {plan.release.generation} ({_epoch(plan.release.epoch)})",
        f"profile: {plan.profile} — {plan.profile_reason}",
        f"hardware: {plan.hardware.message}",
        f"largest profile this hardware supports: {plan.largest_supported_profile or 'none (below default)'}",
        "",
    )]
    parts += [_tunables(plan) if width is None or width >= WIDE else _tunables_stacked(plan), Text(""), Text("* = foretune recommends a change")]
    if any(t.installer.origin for t in plan.tunables.values()):
        parts.append(Text("(a) = set in the answers file, (h) = set in custom-hiera.yaml: in force on the box, above the tuning profile"))
    parts.append(Text(""))
    parts += [Text("PostgreSQL connection budget:", style="heading"), _connections(plan), Text("")]
    parts += [Text("Memory budget (never swap): planning figure, range the sources give", style="heading"), _memory(plan), Text("")]
    if plan.problems:
        parts.append(Text("Problems:", style="heading"))
        grid = _grid()
        for p in plan.problems:
            grid.add_row(Text(p.severity.upper(), style=f"sev.{p.severity}"), f"{p.message} [{', '.join(p.citations)}]")
        parts.append(Padding(grid, (0, 0, 0, 2)))
    else:
        parts.append(Text("Problems: none"))
    return render_to_text(Group(*parts), color=color, width=width)


def _grid() -> Table:
    """Two columns: a fixed label and text that wraps under itself."""
    from rich.table import Table

    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(ratio=1)
    return grid


def _tunables(plan: Plan) -> RenderableType:
    from rich.table import Table
    from rich.text import Text

    table = Table(box=None, padding=(0, 2, 0, 0), pad_edge=False, show_edge=False, header_style="heading")
    table.add_column("tunable", no_wrap=True, overflow="fold")
    table.add_column("installer", justify="right", overflow="fold")
    table.add_column("", width=1, no_wrap=True, min_width=1)
    table.add_column("foretune", justify="right", overflow="fold")
    table.add_column("reason [citations]", ratio=1)
    for t in plan.tunables.values():
        mark = Text("*", style="changed") if t.differs else Text("")
        table.add_row(t.id, _installer(t), mark,
                      Text(format_setting(t.foretune.value, t.unit), style="changed" if t.differs else ""),
                      f"{t.foretune.reason} [{', '.join(t.foretune.citations)}]")
    return table


def _tunables_stacked(plan: Plan) -> RenderableType:
    from rich.console import Group
    from rich.padding import Padding
    from rich.text import Text

    blocks: list[RenderableType] = []
    for t in plan.tunables.values():
        change = Text.assemble(
            f"installer {_installer(t)}, foretune ",
            (format_setting(t.foretune.value, t.unit), "changed" if t.differs else ""), (" *" if t.differs else "", "changed"))
        blocks += [Text(t.id, style="heading", overflow="fold"),
                   Padding(Group(change, Text(f"{t.foretune.reason} [{', '.join(t.foretune.citations)}]")), (0, 0, 0, 2))]
    return Group(*blocks)


def _connections(plan: Plan) -> RenderableType:
    from rich.padding import Padding

    grid = _grid()
    total = 0
    for consumer, n in plan.connection_budget:
        grid.add_row(str(n), consumer)
        total += n
    t = plan.tunables.get("postgresql.max_connections")
    grid.add_row(str(total), "total" + (f"; max_connections installer {t.installer.value}, foretune {t.foretune.value}" if t else ""))
    if plan.installer_connection_budget and t:
        grid.add_row(str(sum(n for _, n in plan.installer_connection_budget)),
                     "with the installer's own values (Puma, pool, Sidekiq, Pulp as installed)")
    return Padding(grid, (0, 0, 0, 2))


def _memory(plan: Plan) -> RenderableType:
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(justify="right", no_wrap=True)
    grid.add_column(ratio=1)
    for m in plan.memory:
        grid.add_row(format_gib(m.bytes), _range(m.low_bytes, m.high_bytes), f"{m.component} ({m.reason}) [{', '.join(m.citations)}]")
    mem_total = sum(m.bytes for m in plan.memory)
    over = Text("  OVER", style="over") if mem_total > plan.input.ram_bytes else ""
    grid.add_row(format_gib(mem_total), _range(sum(m.low_bytes for m in plan.memory), sum(m.high_bytes for m in plan.memory)),
                 Text.assemble(f"total of {format_gib(plan.input.ram_bytes)} RAM", over))
    return Padding(grid, (0, 0, 0, 2))
