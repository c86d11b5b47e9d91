"""The plan as a readable terminal table, wrapped to the terminal's width.

The layout is built once (lines and grids of styled cells). A terminal gets it through rich, which
wraps and colours it; plain unwrapped text (a pipe or a file) is joined here without importing rich,
and is the same text rich would print (``tests/plan/test_plan_table.py`` compares both).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, Union

from foretune.knowledge import citation
from foretune.plan.model import Plan, Tunable
from foretune.plan.refused import tuning_applies
from foretune.render.outputs import override_notes
from foretune.render.plan_summary import NO_ABOUT, About, identity, verdict, what_next
from foretune.term import NO_WRAP_WIDTH, clean_line, guard_text, plural, render_to_text
from foretune.units import format_gib, format_gib_range, format_setting

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.text import Text


WIDE = 120  # narrower terminals get one block per tunable instead of a table
ORIGIN_MARKS = {"answers file": " (a)", "custom-hiera.yaml": " (h)"}
# what rich's Text drops (rich.control.strip_control_codes); the stream guard escapes the rest
_RICH_STRIPPED = {0x07: None, 0x08: None, 0x0B: None, 0x0C: None, 0x0D: None}

Cell = Union[str, "tuple[tuple[str, str], ...]"]  # text, or (text, style) segments


class Grid(NamedTuple):
    """Rows of cells in columns two spaces apart; ``right`` columns are right-justified."""

    rows: list[list[Cell]]
    right: tuple[bool, ...]
    indent: int = 2
    header: list[str] | None = None
    fixed: Mapping[int, int] = MappingProxyType({})  # column -> width


Block = Union[tuple[str, str], Grid]  # a line (text, style) or a grid


def _installer(t: Tunable) -> str:
    """The installer's value, marked when the answers file or custom-hiera.yaml sets it on the box."""
    return format_setting(t.installer.value, t.unit) + ORIGIN_MARKS.get(t.installer.origin or "", "")


def _services(plan: Plan) -> str:
    """What runs on the box and how the installer tunes it, in words an admin knows (no planner terms)."""
    f, inp = plan.release.features, plan.input
    parts = [] if inp.role == "capsule" else ["Passenger" if f.passenger else "Puma"]
    parts.append(f"Apache {f.mpm} MPM")
    if inp.katello:
        parts.append(("Pulp 2 and pulpcore" if f.pulpcore else "Pulp 2") if f.pulp2 else "pulpcore")
    if inp.role == "capsule" and plan.release.features.size_profiles:
        tuning = "installer --tuning size profiles are for servers, none on a Capsule"
    elif plan.release.epoch == "none":
        tuning = "no installer tuning profiles"
    elif plan.release.epoch == "tuning.yaml":
        tuning = "installer tuning from tuning.yaml, no size profiles"
    elif not inp.katello and plan.release.features.size_profiles:
        tuning = "no --tuning size profiles without Katello (the installer's tuning/common.yaml only)"
    else:
        tuning = "installer --tuning size profiles"
    return f"services: {', '.join(parts)}; {tuning}"


def render(plan: Plan, *, color: bool = False, width: int | None = None, changed_only: bool = False,
           about: About = NO_ABOUT) -> str:
    """The plan as terminal text; ``width`` wraps every line (``None``: no wrapping); ``changed_only`` shows only the
    tunables foretune changes (a line says how many are left out); ``about``: the header's who and when, and the
    command What next gives."""
    left_out = 0
    if changed_only:
        changed = {name: t for name, t in plan.tunables.items() if t.differs}
        left_out = len(plan.tunables) - len(changed)
        plan = plan._replace(tunables=MappingProxyType(changed))
    blocks = layout(plan, left_out, about)
    if not color and width is None:
        text = _plain(blocks)
        if text is not None:
            return text
    return _rich(plan, blocks, color=color, width=width)


def layout(plan: Plan, left_out: int = 0, about: About = NO_ABOUT) -> list[Block]:
    """What the table shows, in order, independent of how it is drawn (``about``: who and when, the command to run)."""
    inp = plan.input
    blocks: list[Block] = [(line, "") for line in (
        *(f"{name.lower()}: {clean_line(value)}" for name, value in identity(plan, about) if name != "Product"),
        f"{plan.release.label} {inp.role}: {plural(inp.hosts, 'host')}, {plural(inp.cpus, 'CPU')}, {format_gib(inp.ram_bytes)} RAM",
        _services(plan),
        f"profile: {plan.profile} — {plan.profile_reason}",
        f"hardware: {plan.hardware.message}",
        *([f"largest profile this hardware supports: {plan.largest_supported_profile or 'none (below default)'}"]
          if tuning_applies(plan) else []),
        "",
    )]
    blocks += [(f"verdict: {verdict(plan)}", "heading"), ("", "")]
    blocks += [_tunables(plan), ("", ""), ("* = foretune recommends a change", "")]
    changed = sum(1 for t in plan.tunables.values() if t.differs)
    if left_out:
        blocks.append((f"{plural(left_out, 'tunable')} the installer already sets as recommended left out (--changed-only)", ""))
    elif changed < len(plan.tunables):  # where to find the short table: the changed rows alone
        blocks.append((f"--changed-only shows the {plural(changed, 'changed value')} alone", ""))
    if any(t.installer.origin for t in plan.tunables.values()):
        blocks.append(("(a) = set in the answers file, (h) = set in custom-hiera.yaml: in force on the box, above the tuning profile", ""))
        blocks += [(note, "") for note in override_notes(plan)]
    blocks.append(("", ""))
    if plan.connection_budget:
        blocks += [("PostgreSQL connection budget:", "heading"), _connections(plan), ("", "")]
    else:
        blocks += [("PostgreSQL connection budget: none (no service on this box uses PostgreSQL)", "heading"), ("", "")]
    blocks += [("Memory budget (never swap): planning figure, range the sources give", "heading"), _memory(plan), ("", "")]
    if plan.problems:
        blocks.append(("Problems:", "heading"))
        blocks.append(Grid([[((p.severity.upper(), f"sev.{p.severity}"),), f"{p.message} [{', '.join(p.citations)}]"]
                            for p in plan.problems], (True, False)))
    else:
        blocks.append(("Problems: none", ""))
    blocks += [("", ""), ("What next:", "heading"),
               Grid([[f"{n}.", step.replace("`", "")] for n, step in enumerate(what_next(plan, about.command), 1)], (True, False))]
    cited = dict.fromkeys(cid for t in plan.tunables.values() for cid in t.foretune.citations)
    cited.update(dict.fromkeys(cid for p in plan.problems for cid in p.citations))
    if plan.input.product == "orcharhino":  # its Foreman base is read from ATIX's own words, named here
        cited.update(dict.fromkeys(plan.release.citations[:1]))
    if cited:  # the ids in brackets above, each with its title
        blocks += [("", ""), ("Sources:", "heading"), Grid([[cid, citation(cid).title] for cid in cited], (False, False))]
    return blocks


def _tunables(plan: Plan) -> Grid:
    rows: list[list[Cell]] = []
    for t in plan.tunables.values():
        style = "changed" if t.differs else ""
        rows.append([t.id, _installer(t), (("*" if t.differs else "", style),),
                     ((format_setting(t.foretune.value, t.unit), style),),
                     f"{t.foretune.reason} [{', '.join(t.foretune.citations)}]"])
    return Grid(rows, (False, True, False, True, False), indent=0,
                header=["tunable", "installer", "", "foretune", "reason [citations]"], fixed={2: 1})


def _connections(plan: Plan) -> Grid:
    rows: list[list[Cell]] = [[str(n), consumer] for consumer, n in plan.connection_budget]
    t = plan.tunables.get("postgresql.max_connections")
    rows.append([str(sum(n for _, n in plan.connection_budget)),
                 "total" + (f"; max_connections installer {t.installer.value}, foretune {t.foretune.value}" if t else "")])
    if plan.installer_connection_budget and t:
        rows.append([str(sum(n for _, n in plan.installer_connection_budget)),
                     "with the installer's own values (Puma, pool, Sidekiq, Pulp as installed)"])
    return Grid(rows, (True, False))


def _memory(plan: Plan) -> Grid:
    rows: list[list[Cell]] = [[format_gib(m.bytes), format_gib_range(m.low_bytes, m.high_bytes), f"{m.component} ({m.reason}) [{', '.join(m.citations)}]"]
                              for m in plan.memory]
    total = sum(m.bytes for m in plan.memory)
    over = ("  OVER", "over") if total > plan.input.ram_bytes else ("", "")
    rows.append([format_gib(total), format_gib_range(sum(m.low_bytes for m in plan.memory), sum(m.high_bytes for m in plan.memory)),
                 ((f"total of {format_gib(plan.input.ram_bytes)} RAM", ""), over)])
    return Grid(rows, (True, True, False))


# --- plain text (no rich) ---------------------------------------------------------------------------

def _text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else "".join(text for text, _ in cell)


def _plain(blocks: list[Block]) -> str | None:
    """The blocks as rich prints them unwrapped and uncoloured; ``None`` when only rich measures them right
    (text other than printable ASCII in a grid, a tab, or a line that may reach the console's width)."""
    lines: list[str] = []
    for block in blocks:
        if not isinstance(block, Grid):
            lines.append(block[0])
            continue
        rows = ([list(block.header)] if block.header else []) + [[_text(c) for c in row] for row in block.rows]
        rows = [[c.translate(_RICH_STRIPPED) for c in row] for row in rows]
        if not all(c.isascii() and c.isprintable() for row in rows for c in row):
            return None
        widths = [block.fixed.get(i, max(len(row[i]) for row in rows)) for i in range(len(block.right))]
        pad = " " * block.indent
        lines += [(pad + "  ".join(c.rjust(w) if right else c.ljust(w) for c, w, right in zip(row, widths, block.right))).rstrip(" ")
                  for row in rows]
    if any(len(line) * 2 >= NO_WRAP_WIDTH or "\t" in line for line in lines):
        return None
    return guard_text("\n".join(line.translate(_RICH_STRIPPED).rstrip(" ") for line in lines) + "\n")


# --- rich ---------------------------------------------------------------------------------------------

def _rich(plan: Plan, blocks: list[Block], *, color: bool, width: int | None) -> str:
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.padding import Padding  # start-up: rich, only when this is drawn
    from rich.table import Table  # start-up: rich, only when this is drawn

    parts: list[RenderableType] = []
    for block in blocks:
        if not isinstance(block, Grid):
            parts.append(_rich_text(block[0], block[1]))
            continue
        if block.header is not None:
            if width is not None and width < WIDE:
                parts.append(_tunables_stacked(plan))
                continue
            table = Table(box=None, padding=(0, 2, 0, 0), pad_edge=False, show_edge=False, header_style="heading")
            for i, (name, right) in enumerate(zip(block.header, block.right)):
                if i in block.fixed:
                    table.add_column(name, width=block.fixed[i], no_wrap=True, min_width=block.fixed[i])
                elif i == len(block.right) - 1:
                    table.add_column(name, ratio=1)
                else:
                    table.add_column(name, justify="right" if right else "left", overflow="fold", no_wrap=i == 0)
        else:
            table = Table.grid(padding=(0, 2, 0, 0))
            for i, right in enumerate(block.right):
                last = i == len(block.right) - 1
                table.add_column(justify="right" if right else "left", no_wrap=not last, ratio=1 if last else None)
        for row in block.rows:
            table.add_row(*(_rich_cell(c) for c in row))
        parts.append(Padding(table, (0, 0, 0, block.indent)) if block.indent else table)
    return render_to_text(Group(*parts), color=color, width=width)


def _rich_text(text: str, style: str) -> Text:
    from rich.text import Text  # start-up: rich, only when this is drawn

    return Text(text, style=style)


def _rich_cell(cell: Cell) -> str | Text:
    if isinstance(cell, str):
        return cell
    from rich.text import Text  # start-up: rich, only when this is drawn

    return Text.assemble(*cell)


def _tunables_stacked(plan: Plan) -> RenderableType:
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.padding import Padding  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    blocks: list[RenderableType] = []
    for t in plan.tunables.values():
        change = Text.assemble(
            f"installer {_installer(t)}, foretune ",
            (format_setting(t.foretune.value, t.unit), "changed" if t.differs else ""), (" *" if t.differs else "", "changed"))
        blocks += [Text(t.id, style="heading", overflow="fold"),
                   Padding(Group(change, Text(f"{t.foretune.reason} [{', '.join(t.foretune.citations)}]")), (0, 0, 0, 2))]
    return Group(*blocks)
