"""``foretune plan --explain TUNABLE``: the quote, the source and the arithmetic behind one value."""

from __future__ import annotations

import re
from typing import Any

from foretune.errors import UsageError
from foretune.knowledge import citation, load_data
from foretune.knowledge.model import SIZES
from foretune.knowledge.releases import version_key
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


TUNING_DIR = "config/foreman.hiera/tuning/"  # where foreman-installer keeps its --tuning profiles


def _url(cid: str, plan: Plan | None) -> str:
    """The citation's address; a foreman-installer tuning file is linked at the tag of the release planned, and a
    puppet-foreman file at the module release that tag pins (when the cited text was already in it).

    foreman-installer tags each Foreman release x.y as x.y.0; the size file is the profile's (common.yaml for default).
    """
    cit = citation(cid)
    if plan is not None and cit.repo == "theforeman/puppet-foreman" and cit.path and re.fullmatch(r"[\d.]+", cit.ref):
        # the puppet-foreman the release's Puppetfile.lock pins, when the cited file was already so there
        pinned = load_data("releases.yaml").get("module_pins", {}).get("puppet-foreman", {}).get(plan.release.foreman_version)
        if pinned and version_key(pinned) >= version_key(cit.ref):
            return f"https://github.com/{cit.repo}/blob/{pinned}/{cit.path}"
        return cit.url
    tuning_file = cit.path.startswith(TUNING_DIR + "sizes/") or cit.path == TUNING_DIR.rstrip("/") + ".yaml"
    if plan is None or cit.repo != "theforeman/foreman-installer" or not tuning_file:
        return cit.url
    fv = plan.release.foreman_version
    if version_key(fv) < version_key(".".join(cit.ref.split(".")[:2])):
        return cit.url
    if not cit.path.startswith(TUNING_DIR):  # 1.14 to 1.23: the single tuning.yaml of that tag
        return f"https://github.com/{cit.repo}/blob/{fv}.0/{cit.path}"
    size = plan.profile if plan.profile in SIZES and plan.profile not in ("default", "development") else ""
    path = f"{TUNING_DIR}sizes/{size}.yaml" if size else f"{TUNING_DIR}common.yaml"
    return f"https://github.com/{cit.repo}/blob/{fv}.0/{path}"


def _source(cid: str, keys: tuple[str, ...] = (), plan: Plan | None = None, quote: str = "") -> list[str]:
    """Where ``cid`` says it, and of its quotes only the ones that carry the number: ``quote`` (the constant's own
    sentence) when given, else those that carry ``keys`` (a setting's name or value); none when none does."""
    if cid == "box":
        return ["      source: this box and workload (given on the command line or read with --from)"]
    cit = citation(cid)
    lines = [f"      source: {cit.title} — {cit.where} [{cid}]"]
    wanted = [k.lower() for k in keys if k]

    def carries(text: str) -> bool:  # a number only as a whole number: 10 is not in "1000000"
        return any(re.search(rf"(?<![\d.]){re.escape(k)}(?![\d.])", text) if k[0].isdigit() else k in text for k in wanted)

    quotes = [q for q in cit.quotes if q.text == quote] if quote else []
    quotes = quotes or [q for q in cit.quotes if carries(f"{q.text} {q.figure}".lower())]
    lines += [f'      quote: "{q.text}" ({q.figure})' for q in quotes]
    url = _url(cid, plan)
    if url:
        lines.append(f"      url: {url}")
    return lines


def _keys(name: str, value: Any = None) -> tuple[str, ...]:
    """Words that mark the quote carrying a setting: its name (with spaces for underscores, singular) and its value."""
    base = name.rsplit(".", 1)[-1].split(" ", 1)[0].split("/")[-1]
    bases = {base, base.removeprefix("pg_")}
    # a constant's name ends with what it is of the setting: pg_shared_buffers_min_gib is about shared_buffers
    bases |= {re.sub(r"(?:_(?:min|max|gib|mib|fraction|step|per|host|hosts|factor|default))+$", "", b) for b in set(bases)}
    words = {w for b in bases for w in (b, b.replace("_", " "), b.replace("_", "-"), b.rstrip("s"), b.replace("_", " ").rstrip("s"),
                                         b.replace("_", ""))}  # start_timeout as Apache writes it: StartTimeout
    if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value) not in ("0", "1"):
        words |= {str(value), re.sub(r"(\d)([A-Za-z])", r"\1 \2", str(value))}  # 8MB as the guides write it too: 8 MB
    return tuple(sorted(w for w in words if len(w) > 2))


# words of an input's name that say where it comes from, not what it is ("guide workers low": "workers")
_GENERIC = frozenset({"guide", "guides", "low", "high", "installer", "foretune", "value", "the", "per", "brief"})


def _input_keys(name: str, value: Any) -> tuple[str, ...]:
    """Words that mark the quote carrying an input: a setting's own name (``max_connections``) as it is, else the
    words of its name that say what it is ("max" alone would take a quote about "a maximum of 25%")."""
    if re.fullmatch(r"[a-z]+(?:_[a-z]+)+", name):
        return _keys(name, value)
    words = {w.rstrip("s") for w in re.split(r"[\s._/]+", name.lower()) if len(w) > 2 and w not in _GENERIC}
    return tuple(sorted(words)) if words else _keys(name, value)


def _input(inp: Input, plan: Plan | None = None) -> list[str]:
    lines = [f"    {inp.name} = {inp.value}"]
    const = constant_entry(inp.name)
    if const and const.get("note"):
        lines.append(f"      note: {const['note']}")
    return lines + _source(inp.citation, _input_keys(inp.name, inp.value), plan, str((const or {}).get("quote", "")))


def _setting(label: str, setting: Setting, unit: str, keys: tuple[str, ...] = (), plan: Plan | None = None) -> list[str]:
    lines = [f"{label}: {format_setting(setting.value, unit, missing='not set')} — {setting.reason}"]
    for cid in setting.citations:
        lines += [line.replace("      ", "  ", 1) for line in _source(cid, keys, plan)]
    return lines


def render(plan: Plan, tid: str) -> str:
    """The explanation of tunable ``tid``; a one-line UsageError names the tunables when it is unknown."""
    tunable: Tunable | None = plan.tunables.get(tid)
    if tunable is None:
        raise UsageError(f"no tunable {tid!r} in this plan (choose from {', '.join(plan.tunables)})")
    t = tunable
    lines = [f"{t.id} ({t.title}) for {plan.release.label} {plan.input.role}, profile {plan.profile}", ""]
    lines += _setting("installer", t.installer, t.unit, _keys(t.id, t.installer.value), plan)
    lines.append("")
    lines += _setting("foretune", t.foretune, t.unit, _keys(t.id, t.foretune.value), plan)
    if t.foretune.formula:
        lines += ["", f"arithmetic: {t.foretune.formula}"]
    if t.foretune.inputs:
        lines += ["", "inputs:"]
        for inp in t.foretune.inputs:
            lines += _input(inp, plan)
    if not (t.foretune.formula or t.foretune.inputs):
        lines += ["", "no arithmetic: the value is a choice stated by the cited source"]
    if t.fixes and not t.differs:
        lines += ["", "apply: nothing to change (the installer already gives this value)"]
    elif t.fixes:
        from foretune.changes.build import from_plan  # start-up: only when render runs
        from foretune.render.snippets import render_change, render_fix  # start-up: only when render runs

        change = from_plan(plan).for_tunable(t.id)
        if change is not None and change.channel == "installer" and change.op == "set":
            # the channel every other output uses: custom-hiera.yaml would win over every later installer flag
            lines += ["", "apply (on the installer command; not in custom-hiera.yaml, which would win over it):",
                      "  " + render_change(change)]
        else:
            lines += ["", "apply:", *("  " + line for fix in t.fixes for line in render_fix(fix).splitlines())]
    return "\n".join(lines) + "\n"
