"""``foretune plan --explain TUNABLE``: the quote, the source and the arithmetic behind one value."""

from __future__ import annotations

from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import citation, load_data
from foretune.plan.model import Input, Plan, Setting, Tunable
from foretune.units import format_setting


def constant_entry(name: str) -> dict[str, Any] | None:
    """The planner constant or memory item called ``name`` (value, citation, quote, note), if ``name`` is one."""

    data = load_data("planner.yaml")
    if name.startswith("memory/"):
        entry = data["memory"].get(name.split("/", 1)[1].split(" ", 1)[0])
        return dict(entry) if isinstance(entry, dict) else None
    entry = data.get(name)
    return dict(entry) if isinstance(entry, dict) and "value" in entry else None


def _source(cid: str) -> list[str]:
    if cid == "box":
        return ["      source: this box and workload (given on the command line or read with --from)"]
    cit = citation(cid)
    lines = [f"      source: {cit.title} — {cit.where} [{cid}]"]
    lines += [f'      quote: "{q.text}" ({q.figure})' for q in cit.quotes]
    if cit.url:
        lines.append(f"      url: {cit.url}")
    return lines


def _input(inp: Input) -> list[str]:
    lines = [f"    {inp.name} = {inp.value}"]
    const = constant_entry(inp.name)
    if const and const.get("note"):
        lines.append(f"      note: {const['note']}")
    return lines + _source(inp.citation)


def _setting(label: str, setting: Setting, unit: str) -> list[str]:
    lines = [f"{label}: {format_setting(setting.value, unit, missing='not set')} — {setting.reason}"]
    for cid in setting.citations:
        lines += [line.replace("      ", "  ", 1) for line in _source(cid)]
    return lines


def render(plan: Plan, tid: str) -> str:
    """The explanation of tunable ``tid``; a one-line UsageError names the tunables when it is unknown."""
    tunable: Tunable | None = plan.tunables.get(tid)
    if tunable is None:
        raise UsageError(f"no tunable {tid!r} in this plan (choose from {', '.join(plan.tunables)})")
    t = tunable
    lines = [f"{t.id} ({t.title}) for {plan.release.label} {plan.input.role}, profile {plan.profile}", ""]
    lines += _setting("installer", t.installer, t.unit)
    lines.append("")
    lines += _setting("foretune", t.foretune, t.unit)
    if t.foretune.formula:
        lines += ["", f"arithmetic: {t.foretune.formula}"]
    if t.foretune.inputs:
        lines += ["", "inputs:"]
        for inp in t.foretune.inputs:
            lines += _input(inp)
    if not (t.foretune.formula or t.foretune.inputs):
        lines += ["", "no arithmetic: the value is a choice stated by the cited source"]
    if t.fixes:
        from foretune.render.snippets import render_fix  # start-up: only when render runs

        lines += ["", "apply:", *("  " + line for fix in t.fixes for line in render_fix(fix).splitlines())]
    return "\n".join(lines) + "\n"
