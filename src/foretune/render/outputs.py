"""Everything an admin applies, rendered from a plan: hiera fragment, installer command, drop-ins, sysctl, APPLY.md."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from foretune.knowledge import load_data
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix, Plan, Tunable
from foretune.render.snippets import SYSCTL_FILE, dropin_path, installer_option, yaml_scalar
from foretune.units import format_setting

if TYPE_CHECKING:
    from foretune.render.merge import Conflict


def changed(plan: Plan) -> list[Tunable]:
    """Tunables whose recommendation differs from what the installer gives."""
    return [t for t in plan.tunables.values() if t.differs]


def fixes_of(plan: Plan, kind: str, *, every: bool = False) -> list[tuple[Tunable, Fix]]:
    """Fixes of ``kind`` for changed tunables (``every``: for all tunables)."""
    tunables = plan.tunables.values() if every else changed(plan)
    return [(t, fix) for t in tunables for fix in t.fixes if fix.kind == kind and t.foretune.value is not None]


def hiera_values(plan: Plan, *, also: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """Changed hiera keys as a nested mapping (PostgreSQL entries under one hash).

    ``also``: flattened keys to include even when the installer would give the same value
    (keys an existing custom-hiera sets, which would otherwise keep their old value).
    """
    values: dict[str, Any] = {}
    for t, fix in fixes_of(plan, "hiera", every=True):
        if not (t.differs or fix.target in also):
            continue
        if fix.target.startswith(PG + "/"):
            values.setdefault(PG, {})[fix.target.split("/", 1)[1]] = fix.value
        else:
            values[fix.target] = fix.value
    return values


def _comment(t: Tunable) -> str:
    return f"# {t.title}: {t.foretune.reason} (installer: {format_setting(t.installer.value, t.unit, missing='not set')}) [{', '.join(t.foretune.citations)}]"


def hiera_fragment(plan: Plan) -> str:
    """custom-hiera.yaml fragment with only the keys that differ from the installer baseline, each explained."""
    lines = [f"# foretune plan for {plan.release.label}, {plan.input.role}, {plan.input.hosts} hosts, profile {plan.profile}",
             *(["# Values here win over --tuning: remove them before changing profiles."] if tuning_applies(plan) else []), "---"]
    pg: list[str] = []
    for t, fix in fixes_of(plan, "hiera"):
        if fix.target.startswith(PG + "/"):
            pg += ["  " + _comment(t), f"  {fix.target.split('/', 1)[1]}: {yaml_scalar(fix.value)}"]
        elif isinstance(fix.value, dict):
            lines += [_comment(t), f"{fix.target}:", *(f"  {k}: {yaml_scalar(v)}" for k, v in fix.value.items())]
        else:
            lines += [_comment(t), f"{fix.target}: {yaml_scalar(fix.value)}"]
    if pg:
        lines += [f"{PG}:", *pg]
    if not plan.release.features.custom_hiera:
        lines = [lines[0], f"# {plan.release.label} reads no custom-hiera.yaml: every change is a file edit (see APPLY.md)",
                 "---", "{}"]
    elif len(lines) == 3:
        lines.append("{}  # nothing differs from the installer baseline")
    return "\n".join(lines) + "\n"


def tuning_applies(plan: Plan) -> bool:
    """The installer takes --tuning here: a Katello server of a release with size profiles (Capsules have none)."""
    return plan.input.role == "server" and plan.release.features.size_profiles and plan.input.katello


def installer_program(plan: Plan) -> str:
    """The installer and, for a Capsule, its scenario (satellite-installer's capsule, foreman-installer's foreman-proxy-content)."""
    capsule = plan.input.role == "capsule"
    if plan.release.product == "satellite":
        return "satellite-installer" + (" --scenario capsule" if capsule else "")
    return "foreman-installer" + (" --scenario foreman-proxy-content" if capsule and plan.input.katello else "")


def installer_command(plan: Plan) -> str:
    """The installer command line: --tuning plus options for installer-managed keys.

    Keys of other modules (apache, postgresql, qpid, candlepin, ...) can only go to custom-hiera.
    """
    if not plan.release.features.custom_hiera:
        options = [f"{fix.target} {fix.value}" for _, fix in fixes_of(plan, "installer")]
        note = (f"# {plan.release.label} reads no custom-hiera.yaml: apply the file edits in APPLY.md after this run "
                "(a later installer run overwrites them; these options stay in the answers file)")
        if not options:
            return (f"# {plan.release.label}: no installer options to change; apply the file edits in APPLY.md "
                    "(a later installer run overwrites them)")
        return note + "\n" + " \\\n  ".join([installer_program(plan), *options])
    parts = [installer_program(plan)]
    if tuning_applies(plan):
        parts.append(f"--tuning {plan.profile}")
    for _, fix in fixes_of(plan, "hiera"):
        option = installer_option(fix.target)
        if option:
            parts.append(f"{option} {yaml_scalar(fix.value)}")
    return " \\\n  ".join(parts)


def dropins(plan: Plan) -> dict[str, str]:
    """systemd drop-in path -> content for every LimitNOFILE change."""
    return {dropin_path(fix.target): f"# foretune: {t.foretune.reason}\n[Service]\nLimitNOFILE={fix.value}\n"
            for t, fix in fixes_of(plan, "limit")}


def sysctl_file(plan: Plan) -> str | None:
    entries = fixes_of(plan, "sysctl")
    if not entries:
        return None
    return "".join(f"# {t.foretune.reason}\n{fix.target} = {fix.value}\n" for t, fix in entries)


def commands(plan: Plan) -> list[str]:
    return [str(fix.target) for _, fix in fixes_of(plan, "command")]


def file_edits(plan: Plan) -> list[tuple[str, str]]:
    return [(fix.target, str(fix.value)) for _, fix in fixes_of(plan, "file")]


def apply_md(plan: Plan) -> str:
    """Short instructions: what to apply in which order, and what restarts."""
    steps = [f"# Applying the foretune plan for {plan.release.label} ({plan.input.role}, {plan.input.hosts} hosts)", ""]
    if plan.problems:
        steps += ["Fix these first:", "", *(f"- **{p.severity}** {p.message}" for p in plan.problems), ""]
    n = 1
    steps.append("Order:")
    steps.append("")
    if not plan.release.features.custom_hiera:
        steps += _direct_edits(plan)
        return "\n".join(steps) + "\n"
    if hiera_values(plan):
        steps.append(f"{n}. Back up `/etc/foreman-installer/custom-hiera.yaml`, then merge `custom-hiera.yaml` into it "
                     "(`foretune render --merge-into /etc/foreman-installer/custom-hiera.yaml --write`).")
        n += 1
    steps.append(f"{n}. Run the installer (`installer.sh`); it restarts the services it reconfigures.")
    n += 1
    if dropins(plan):
        steps.append(f"{n}. Copy the drop-ins under `systemd/` to `/etc/systemd/system/`, run `systemctl daemon-reload` and "
                     f"restart {', '.join(sorted(p.split('/')[4].removesuffix('.service.d') for p in dropins(plan)))}.")
        n += 1
    if sysctl_file(plan):
        steps.append(f"{n}. Copy `sysctl.d/90-foretune.conf` to `{SYSCTL_FILE}` and run `sysctl --system`.")
        n += 1
    restarts = _restarts()
    for path, line in file_edits(plan):
        unit = restarts.get(path)
        after = f", then `systemctl restart {unit}`" if unit else " (read by the next hammer command)" if unit == "" else ""
        steps.append(f"{n}. In `{path}` set `{line}`{after}.")
        n += 1
    if commands(plan):
        steps.append(f"{n}. Run `os-commands.sh` (tuned profile, transparent huge pages, settings; the THP kernel argument "
                     "needs a reboot).")
        n += 1
    advice = fixes_of(plan, "advice")
    if advice:
        steps += ["", "Keep in mind:", "", *(f"- {fix.target}: {fix.value}" for _, fix in advice)]
    steps += ["", "Every value, its reason and citation: `foretune plan ... --format json`; one value: `foretune plan ... --explain TUNABLE`."]
    return "\n".join(steps) + "\n"


def _restarts() -> dict[str, str]:
    """The service to restart after a hand edit of each file ("" when a client reads the file)."""

    data = load_data("direct-edits.yaml")
    restarts: dict[str, str] = {str(e[key]): str(e["restart"]) for name, e in data.items() if not name.startswith("_")
                                for key in ("file", "capsule_file") if key in e}
    return {**restarts, **{str(path): str(unit) for path, unit in data["_restart_after_edit"].items()}}


def _direct_edits(plan: Plan) -> list[str]:
    """APPLY.md steps for releases whose installer reads no custom-hiera (Satellite 6.2): edit files, then restart."""
    restarts = _restarts()
    steps, n = [], 1
    if fixes_of(plan, "installer"):
        steps.append(f"{n}. Run the installer with the options in `installer.sh` (its answers file keeps them, so later "
                     "installer runs keep them too); it rewrites the files below, so edit them after it.")
        n += 1
    edits = file_edits(plan)
    agents = " on each agent"  # a file of the managed hosts, not of this server
    for path, line in edits:
        after = f", then restart {restarts[path]}{agents}" if path.endswith(agents) and restarts.get(path) else ""
        steps.append(f"{n}. In `{path}` set `{line}`{after}.")
        n += 1
    units = sorted({restarts[path] for path, _ in edits if restarts.get(path) and not path.endswith(agents)}
                   | {p.split("/")[4].removesuffix(".service.d") for p in dropins(plan)})
    if dropins(plan):
        steps.append(f"{n}. Copy the drop-ins under `systemd/` to `/etc/systemd/system/` and run `systemctl daemon-reload`.")
        n += 1
    if sysctl_file(plan):
        steps.append(f"{n}. Copy `sysctl.d/90-foretune.conf` to `{SYSCTL_FILE}` and run `sysctl --system`.")
        n += 1
    if units:
        steps.append(f"{n}. Restart {', '.join(units)} (`katello-service restart` restarts them all).")
        n += 1
    if commands(plan):
        steps.append(f"{n}. Run `os-commands.sh` (tuned profile, transparent huge pages, settings; the THP kernel argument needs a reboot).")
    steps += ["", f"{plan.release.label} reads no custom-hiera.yaml: these are edits of the files the installer writes, "
              "and the next installer run overwrites them. Repeat them after every installer run."]
    advice = fixes_of(plan, "advice")
    if advice:
        steps += ["", "Keep in mind:", "", *(f"- {fix.target}: {fix.value}" for _, fix in advice)]
    steps += ["", "Every value, its reason and citation: `foretune plan ... --format json`; one value: `foretune plan ... --explain TUNABLE`."]
    return steps


def merge_plan(plan: Plan, existing: str, remove: Iterable[str] = (), preferences: dict[str, str] | None = None,
               label: str = "custom-hiera.yaml") -> tuple[str, list[Conflict]]:
    """``existing`` with the plan's values merged in, and every site value that differs from the plan.

    A value the site already sets (directly, through an alias or a ``<<`` merge key) is kept unless
    ``preferences`` (flattened key or ``*`` -> ``site``/``foretune``) takes foretune's; a replaced value gets a
    comment line saying what it replaced, and that any comment next to it was written for the old value.
    """
    from foretune.knowledge.profiles import flatten  # start-up: only when merge_plan runs
    from foretune.render.merge import load_mapping, merge_values  # start-up: only when merge_plan runs

    remove = list(remove)
    current = load_mapping(existing, label)
    values = hiera_values(plan, also=set(flatten(current)) - set(remove))
    values = {key: ({k: v for k, v in value.items() if f"{key}/{k}" not in remove} if isinstance(value, dict) else value)
              for key, value in values.items() if key not in remove}
    reasons = {fix.target: f"{t.foretune.reason} [{', '.join(t.foretune.citations)}]" for t, fix in fixes_of(plan, "hiera", every=True)}
    comments = {fix.target.split("/", 1)[-1]: f"foretune: {t.foretune.reason} [{', '.join(t.foretune.citations)}]"
                for t, fix in fixes_of(plan, "hiera", every=True)}
    return merge_values(existing, values, reasons, preferences, comments, label, remove)


def merged_hiera(plan: Plan, existing: str) -> str:
    """``existing`` custom-hiera.yaml with the plan's values merged in: every key once, the PostgreSQL hash key by key.

    Site values are kept; each one that differs from the plan is listed in a comment at the top.
    """
    from foretune.knowledge.hiera_keys import stale_keys  # start-up: only when merged_hiera runs
    from foretune.render.merge import load_mapping, remove_keys  # start-up: only when merged_hiera runs

    current = load_mapping(existing, "custom-hiera.yaml")
    stale = [note.key for note in stale_keys(plan.release, current) if "/" not in note.key]
    existing = remove_keys(existing, stale)
    text, conflicts = merge_plan(plan, existing)
    if conflicts:
        text = "".join(f"# foretune: {conflict.line()}\n" for conflict in conflicts) + text
    if "[redacted]" in text:
        text = "# Values shown as [redacted] were removed from the source: restore them before applying.\n" + text
    return text


def bundle(plan: Plan, existing_hiera: str | None = None) -> dict[str, str]:
    """Relative path -> content of everything `plan --out DIR` writes.

    ``existing_hiera``: the source's custom-hiera.yaml; the bundle then holds it merged, not a fragment.
    """
    merge = existing_hiera and existing_hiera.strip() and plan.release.features.custom_hiera
    hiera = merged_hiera(plan, existing_hiera) if merge and existing_hiera else hiera_fragment(plan)
    files = {"custom-hiera.yaml": hiera,
             "installer.sh": "#!/bin/sh\nset -e\n" + installer_command(plan) + "\n",
             "APPLY.md": apply_md(plan)}
    for path, content in dropins(plan).items():
        files["systemd/" + path.removeprefix("/etc/systemd/system/")] = content
    sysctl = sysctl_file(plan)
    if sysctl:
        files["sysctl.d/90-foretune.conf"] = sysctl
    if commands(plan):
        files["os-commands.sh"] = "#!/bin/sh\nset -e\n" + "\n".join(commands(plan)) + "\n"
    return files
