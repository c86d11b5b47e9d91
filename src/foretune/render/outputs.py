"""Everything an admin applies, rendered from one change set (``foretune.changes``): custom-hiera, the installer
command, drop-ins, sysctl, os-commands.sh and APPLY.md."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from foretune.changes import build
from foretune.changes.build import installer_program
from foretune.changes.model import Blocked, Change, ChangeSet
from foretune.knowledge import load_data
from foretune.knowledge.precedence import dropin_unshadow_command, move_aside, unshadowed_line
from foretune.knowledge.profiles import PG
from foretune.plan.model import Fix, Plan, Tunable
from foretune.plan.refused import tuning_applies
from foretune.render.snippets import SYSCTL_FILE, yaml_scalar
from foretune.term import plural
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



def changes_of(plan: Plan, changes: ChangeSet | None = None, existing_hiera: str | None = None) -> ChangeSet:
    """``changes`` or, when None, the plan's own change set (against the site's custom-hiera.yaml when given)."""
    if changes is not None:
        return changes
    host = None
    if existing_hiera and existing_hiera.strip():
        from foretune.knowledge.profiles import flatten  # start-up: only when a site's custom-hiera is read
        from foretune.render.merge import load_mapping  # start-up: only when a site's custom-hiera is read

        host = build.Host(custom_hiera=flatten(load_mapping(existing_hiera, "custom-hiera.yaml")))
    return build.from_plan(plan, host)


def _reason(plan: Plan, change: Change) -> str:
    t = plan.tunables.get(change.tunable)
    if t is not None and t.foretune.reason == change.reason:
        return (f"{t.title}: {t.foretune.reason} (installer: {format_setting(t.installer.value, t.unit, missing='not set')}) "
                f"[{', '.join(change.citations)}]")
    reason = change.reason or (f"what {change.source} asks for" if change.source not in ("", "plan") else "")
    return f"{reason} [{', '.join(change.citations)}]" if change.citations else reason or change.tunable


OVERRIDE_NOTE = ("a key set in custom-hiera.yaml overrides the installer option for it (and the tuning profile): an "
                 "option on the installer command does not change it while the key is there")


def override_notes(plan: Plan, changes: ChangeSet | None = None) -> list[str]:
    """The custom-hiera keys of the source (plan --from) that override an installer option, one line each, after the
    rule itself: what every plan format says before the installer command (the answers file is below custom-hiera).
    A key the change set deletes is left out: it no longer overrides anything once the set is applied."""
    if not plan.release.features.custom_hiera:
        return []
    removed = {c.target for c in changes_of(plan, changes).changes if c.channel == "custom-hiera" and c.op == "remove"}
    lines = []
    for t in plan.tunables.values():
        if t.installer.origin != "custom-hiera.yaml":
            continue
        for fix in t.fixes:
            option = build.installer_option(fix.target) if fix.kind == "hiera" else None
            if option and fix.target not in removed:
                lines.append(f"custom-hiera.yaml sets {fix.target}: {format_setting(t.installer.value, t.unit)}, which "
                             f"overrides {option}: delete the key to let the installer option (or the profile) set it")
    return lines


def removal_notes(plan: Plan, changes: ChangeSet | None = None) -> list[str]:
    """One line per thing the change set takes away first (a custom-hiera key, an ALTER SYSTEM line, a drop-in's lines,
    a line of a file PostgreSQL includes): what ``--format hiera`` and ``--format installer`` say before their values,
    which do not take effect while it stays."""
    notes = []
    for c in changes_of(plan, changes).changes:
        if c.channel == "custom-hiera" and c.op == "remove":
            notes.append(f"remove first: {c.target} from {build.HIERA_FILE} ({c.reason})")
        elif c.channel == "alter-system" and c.op == "reset":
            notes.append(f"remove first: ALTER SYSTEM RESET {c.target}; ({c.reason})")
        elif c.channel == "dropin" and c.op == "remove":
            lines = " and ".join(line for line in str(c.site_value or "").split(" | ") if line) or "the lines that shadow the change"
            notes.append(f"remove first: {lines} from {c.file} ({c.reason})")
        elif c.channel == "file" and c.op == "remove":
            notes.append(f"remove first: the line {c.value} from {c.file} ({c.reason})")
    return notes


def _kept(cs: ChangeSet, blocked: Blocked) -> str:
    """The comment line for a change the set refuses: the site's value is kept, or, for a profile the installer's
    hardware check refuses, the profile the set moves to instead (an installer option, installer.sh, not hiera)."""
    profile = next((c for c in cs.changes if c.channel == "profile" and c.op == "set"), None)
    if blocked.change.target == "--tuning" and profile is not None:
        return (f"# foretune: --tuning {profile.value} (the installer applies it: installer.sh), not "
                f"{blocked.change.value}: {blocked.why}")
    return f"# foretune: kept {blocked.change.target}: {blocked.why}"


def hiera_fragment(plan: Plan, changes: ChangeSet | None = None) -> str:
    """custom-hiera.yaml fragment: the change set's custom-hiera values (what has no installer option), each explained.

    Values with an installer option go on the installer command instead: custom-hiera wins over the answers file, so
    a value set in both places would make every later installer flag for it silently ineffective.
    """
    cs = changes_of(plan, changes)
    profile = ("no tuning profile (Capsules have none)" if plan.input.role == "capsule" else
               f"no tuning profile ({plan.release.label} has none)" if not plan.release.features.size_profiles else
               f"profile {plan.profile}")
    lines = [f"# foretune plan for {plan.release.label}, {plan.input.role}, {plural(plan.input.hosts, 'host')}, {profile}",
             *(["# Values here win over --tuning: remove them before changing profiles."] if tuning_applies(plan) else []),
             *(["# Values with an installer option are on the installer command (installer.sh), not here: custom-hiera "
                "would win over them."] if build.installer_options(cs) else []),
             *(f"# {note}" for note in override_notes(plan, cs)),
             *(f"# {note}" for note in removal_notes(plan, cs)),
             *(_kept(cs, b) for b in cs.blocked if b.change.site_value is not None), "---"]
    header = len(lines)
    pg: list[str] = []
    for c in cs.changes:
        if c.channel != "custom-hiera" or c.op != "set":
            continue
        if c.target.startswith(PG + "/"):
            pg += ["  # " + _reason(plan, c), f"  {c.target.split('/', 1)[1]}: {yaml_scalar(c.value)}"]
        elif isinstance(c.value, dict):
            lines += ["# " + _reason(plan, c), f"{c.target}:", *(f"  {k}: {yaml_scalar(v)}" for k, v in c.value.items())]
        else:
            lines += ["# " + _reason(plan, c), f"{c.target}: {yaml_scalar(c.value)}"]
    if pg:
        lines += [f"{PG}:", *pg]
    if not plan.release.features.custom_hiera:
        lines = [lines[0], f"# {plan.release.label} reads no custom-hiera.yaml: every change is an installer option (installer.sh) "
                 "or a file edit (see APPLY.md)",
                 "---", "{}"]
    elif len(lines) == header:
        lines.append("{}  # nothing to set in custom-hiera.yaml")
    return "\n".join(lines) + "\n"


def installer_command(plan: Plan, changes: ChangeSet | None = None) -> str:
    """The installer command line: ``--tuning`` (the profile change) and the change set's installer options."""
    cs = changes_of(plan, changes)
    if not plan.release.features.custom_hiera:
        options = [f"{option} {yaml_scalar(value)}" for option, value in build.installer_options(cs)]
        if not options:
            return (f"# {plan.release.label}: no installer options to change; apply the file edits in APPLY.md "
                    "(a later installer run overwrites them)")
        note = (f"# {plan.release.label} reads no custom-hiera.yaml: apply the file edits in APPLY.md after this run "
                "(a later installer run overwrites them; these options stay in the answers file)")
        return note + "\n" + " \\\n  ".join([installer_program(plan), *options])
    parts = [installer_program(plan)]
    profile = build.profile_change(cs)
    if profile is not None:
        parts.append(f"--tuning {profile.value}")
    parts += [f"{option} {yaml_scalar(value)}" for option, value in build.installer_options(cs)]
    return " \\\n  ".join(parts)


def installer_text(plan: Plan, changes: ChangeSet | None = None) -> str:
    """``--format installer`` and installer.sh: the command, after what a custom-hiera key does to its options."""
    notes = [OVERRIDE_NOTE, *override_notes(plan, changes)] if plan.release.features.custom_hiera else []
    return "".join(f"# {note}\n" for note in (*notes, *removal_notes(plan, changes))) + installer_command(plan, changes)


def dropins(plan: Plan, changes: ChangeSet | None = None) -> dict[str, str]:
    """systemd drop-in path -> content for every drop-in the change set writes."""
    cs = changes_of(plan, changes)
    return {c.file: f"# foretune: {c.reason}\n[Service]\n{c.target.split(':', 1)[1]}={c.value}\n"
            for c in cs.changes if c.channel == "dropin" and c.op == "set"}


def sysctl_file(plan: Plan, changes: ChangeSet | None = None) -> str | None:
    entries = [c for c in changes_of(plan, changes).changes if c.channel == "sysctl"]
    if not entries:
        return None
    return "".join(f"# {c.reason}\n{c.target} = {c.value}\n" for c in entries)


def commands(plan: Plan, changes: ChangeSet | None = None) -> list[str]:
    """The shell commands of os-commands.sh: the tuned profile, then the one-off commands."""
    cs = changes_of(plan, changes)
    tuned = [line for c in cs.changes if c.channel == "tuned" for line in ("systemctl enable --now tuned", f"tuned-adm profile {c.value}")]
    return [*tuned, *cs.commands]


def file_edits(plan: Plan, changes: ChangeSet | None = None) -> list[tuple[str, str]]:
    """(file, line) of each line the set writes into a file (a line it takes out is in ``file_removals``)."""
    return [(c.target, str(c.value)) for c in changes_of(plan, changes).changes if c.channel == "file" and c.op == "set"]


def file_removals(plan: Plan, changes: ChangeSet | None = None) -> list[Change]:
    """The set's changes that take a line out of a file (one postgresql.conf includes that sets a value last)."""
    return [c for c in changes_of(plan, changes).changes if c.channel == "file" and c.op == "remove"]


def _shadow_filter(c: Change) -> str:
    """The shell command that writes the /etc drop-in hiding ``c.overrides[0]`` without its shadowing lines."""
    unit = c.target.split(":", 1)[0]
    pattern = "^Environment=.*FOREMAN_PUMA_" if unit.removesuffix(".service") == "foreman" else "^LimitNOFILE="
    return f"sed '/{pattern}/d' {c.overrides[0]} > {c.file}"


def _removal_step(c: Change) -> str:
    """An APPLY.md step that deletes ``c``'s line, with what puts it in force and the undo."""
    postgresql = "/pgsql/" in c.target or "/postgresql/" in c.target
    if postgresql and c.effect == "restart":
        after = f", then `systemctl restart {' '.join(c.units) or 'postgresql'}` (PostgreSQL reads it only when it starts)"
    elif postgresql:
        after = ", then `sudo -u postgres psql -c 'SELECT pg_reload_conf();'` (a reload is enough)"
    else:
        after = f", then `systemctl restart {' '.join(c.units)}`" if c.units else ""
    why = f": {c.reason}" if c.reason else ""
    again = " and restart again" if "restart" in after else " and reload again" if after else ""
    return f"In `{c.target}` delete the line `{c.value}`{after}{why}. Undo: put the line back{again}."


MASKS = ("[redacted]", "********")  # what foretune's and sos's redaction leave in place of a secret


def masked(text: str | None) -> bool:
    """``text`` (a source's custom-hiera.yaml) holds a secret masked by redaction: it must not be copied to a file
    an admin applies."""
    return bool(text) and any(mask in str(text) for mask in MASKS)


def apply_md(plan: Plan, changes: ChangeSet | None = None, merged: bool = False, secrets: bool = False,
             apply_command: str = "foretune apply --from live") -> str:
    """The steps in order: the profile change first, then what changes, the restart each needs, and how to undo it.

    ``merged``: the bundle's custom-hiera.yaml is the host's file with the changes merged in (else it holds only
    foretune's keys, to be merged into the host's); ``secrets``: the host's file was left out for its masked secrets."""
    cs = changes_of(plan, changes)
    steps = [f"# Applying the foretune plan for {plan.release.label} ({plan.input.role}, {plural(plan.input.hosts, 'host')})", ""]
    profile = build.profile_change(cs)
    if profile is not None and profile.site_value and profile.site_value != profile.value:
        steps += [f"First, the tuning profile: `{installer_program(plan)} --tuning {profile.value}` (now {profile.site_value}; "
                  f"`installer.sh` starts with it). Undo: run the installer with `--tuning {profile.site_value}`.", ""]
    first = [p for p in plan.problems if p.severity != "low"]  # a low problem is worth knowing, not a step before
    for title, problems in (("Fix these first:", first), ("Worth knowing:", [p for p in plan.problems if p not in first])):
        if problems:
            steps += [title, "", *(f"- **{p.severity}** {p.message}" for p in problems), ""]
    if cs.blocked:
        steps += ["Not applied (they could not take effect as they stand):", "",
                  *(f"- `{b.change.target}` {yaml_scalar(b.change.value)}: {b.why}" for b in cs.blocked), ""]
    if not plan.release.features.custom_hiera:
        edits = _direct_edits(plan, cs)
        steps += (["Order:", ""] if edits[0][:1].isdigit() else []) + edits
        return "\n".join(steps) + "\n"
    steps += ["Order:", ""]
    n = 1
    pg_restart: list[str] = []  # the settings reset that wait for PostgreSQL's restart: one step, after the installer
    pg_unit = next((c.units[0] for c in cs.changes if c.channel == "alter-system" and c.units), "postgresql")
    for c in cs.changes:
        if c.channel == "alter-system" and c.op == "reset" and c.effect != "restart":  # a reload is enough
            steps.append(f"{n}. `sudo -u postgres psql -c 'ALTER SYSTEM RESET {c.target};' -c 'SELECT pg_reload_conf();'`: "
                         f"{c.reason}. It takes effect on that reload (no restart); check with "
                         f"`sudo -u postgres psql -c 'SHOW {c.target};'`. Undo: `ALTER SYSTEM SET {c.target} = ...` with the "
                         "value it had, and a reload.")
            n += 1
        elif c.channel == "alter-system" and c.op == "reset":
            steps.append(f"{n}. `sudo -u postgres psql -c 'ALTER SYSTEM RESET {c.target};'`: {c.reason}. It takes effect "
                         "when PostgreSQL restarts (the restart step below). "
                         f"Undo: `ALTER SYSTEM SET {c.target} = ...` with the value it had.")
            pg_restart.append(c.target)
            n += 1
        elif c.channel == "dropin" and c.op == "remove" and c.overrides and not c.overrides[0].startswith("/etc/"):
            hidden = c.overrides[0]  # /run or /usr/lib: hidden by a drop-in of the same name in /etc
            steps.append(f"{n}. Create `{c.file}` as a copy of `{hidden}` without the lines that shadow the change "
                         f"(`{_shadow_filter(c)}`) and run `systemctl daemon-reload`: {c.reason}. `{hidden}` stays as it "
                         f"is. Undo: remove `{c.file}` and run `systemctl daemon-reload`.")
            n += 1
        elif c.channel == "dropin" and c.op == "remove":
            restart = (f" Restart {', '.join(c.units)} after the installer run (`systemctl restart {' '.join(c.units)}`): the "
                       "installer restarts it only when its own files change." if c.units else "")
            kept = move_aside(c.file).split()[-1]
            shadowing = [line for line in str(c.site_value or "").split(" | ") if line]
            line_edits = [(line, after) for line in shadowing if (after := unshadowed_line(line, c.target)) != line]
            lines = " and ".join(f"`{line}`" for line in shadowing) if shadowing else "the lines that shadow the change"
            command = f" (`{dropin_unshadow_command(c.file, line_edits)}`)" if line_edits else ""
            steps.append(f"{n}. Take {lines} out of `{c.file}`, keep its other settings (a file left with no setting "
                         f"goes), with a copy in `{kept}` first, and run `systemctl daemon-reload`{command}: {c.reason}."
                         f"{restart} `foretune apply` does the same, with a backup and a journal. Undo: "
                         f"`cp -p {kept} {c.file}` and run `systemctl daemon-reload`.")
            n += 1
    sets = [c for c in cs.changes if c.channel == "custom-hiera" and c.op == "set"]
    removed = [c for c in cs.changes if c.channel == "custom-hiera" and c.op == "remove"]
    if sets or removed:
        what = (["sets " + ", ".join(f"`{c.target}`" for c in sets)] if sets else []) + \
               (["removes " + ", ".join(f"`{c.target}` ({c.reason})" for c in removed)] if removed else [])
        if merged:
            steps.append(f"{n}. `custom-hiera.yaml` here is the source's `{build.HIERA_FILE}` with the changes merged in: "
                         f"it {'; it '.join(what)}. If the host's file is still the one the source holds (`diff` them), "
                         "back it up and copy this one over it; if it has changed since, apply the set on the host (this "
                         f"file and the other files of these steps) instead: `{apply_command}` shows it as a diff, `{apply_command} --write` writes it with a "
                         "backup and a journal (undo: `foretune apply --rollback last`), `foretune verify` then tells what "
                         "is in force. Undo: restore the backup.")
        else:
            why = (" (the source's copy has masked secrets, so it is not copied here)" if secrets else "")
            steps.append(f"{n}. Merge `custom-hiera.yaml` from here into `{build.HIERA_FILE}`{why}, keeping every key "
                         f"the file already has: it {'; it '.join(what)}. Never put it in the file's place: it holds only "
                         f"foretune's keys. On the host, `{apply_command}` shows the same set as a diff and "
                         f"`{apply_command} --write` merges it with a backup and a journal (undo: `foretune apply "
                         "--rollback last`); `foretune verify` then tells what is in force. Undo: restore the backup.")
        # what the merge lowers (a value a finding asks for below the site's), under its own step
        steps += [f"   - `{c.target}: {yaml_scalar(c.value)}` lowers the site's {yaml_scalar(c.site_value)}: {c.reason}"
                  for c in sets if build.lowers_site_value(c)]
        n += 1
    options = build.installer_options(cs)
    given = ", ".join(x for x in ([f"--tuning {profile.value}"] if profile is not None else []) +
                      ([plural(len(options), "option")] if options else []))
    lowered = [c for c in cs.changes if c.channel == "installer" and _below(c.value, c.site_value)]
    if installer_needed(cs):  # nothing for the installer: no run (an outage for no change)
        steps.append(f"{n}. Run the installer (`installer.sh`{': ' + given if given else ''}); it restarts the services it "
                     "reconfigures. Undo: run it again with the previous values.")
        # what the run lowers, under its own step
        steps += [f"   - `{c.target} {yaml_scalar(c.value)}` lowers the site's {yaml_scalar(c.site_value)}: {c.reason}"
                  for c in lowered]
        n += 1
    if pg_restart:
        shows = " ".join(f"-c 'SHOW {name};'" for name in pg_restart)
        steps.append(f"{n}. Restart PostgreSQL, which the installer does not do when postgresql.conf is unchanged: "
                     f"`systemctl restart {pg_unit}` (or `foreman-maintain service restart`); then check with "
                     f"`sudo -u postgres psql {shows}`.")
        n += 1
    drop = dropins(plan, cs)
    if drop:
        units = sorted({u for c in cs.changes if c.channel == "dropin" and c.op == "set" for u in c.units})
        steps.append(f"{n}. Copy the drop-ins under `systemd/` to `/etc/systemd/system/`, run `systemctl daemon-reload` and "
                     f"restart {', '.join(units)}. Undo: remove them, `systemctl daemon-reload`, restart the same.")
        n += 1
    if sysctl_file(plan, cs):
        steps.append(f"{n}. Copy `sysctl.d/90-foretune.conf` to `{SYSCTL_FILE}` and run `sysctl --system`. "
                     "Undo: remove the file and run `sysctl --system`.")
        n += 1
    for c in file_removals(plan, cs):
        steps.append(f"{n}. {_removal_step(c)}")
        n += 1
    restarts = _restarts()
    for path, line in file_edits(plan, cs):
        unit = restarts.get(path)
        after = f", then `systemctl restart {unit}`" if unit else " (read by the next hammer command)" if unit == "" else ""
        steps.append(f"{n}. In `{path}` set `{line}`{after}. Undo: put the old line back.")
        n += 1
    if commands(plan, cs):
        steps.append(f"{n}. Run `os-commands.sh` (tuned profile, transparent huge pages, settings; the THP kernel argument "
                     "needs a reboot). Undo: `tuned-adm profile` with the previous profile, "
                     "`grubby --update-kernel=ALL --remove-args=transparent_hugepage` and a reboot.")
        n += 1
    if n == 1:  # no step at all
        steps = ["Nothing to change: no step to take, no installer run."]
    if cs.advice:
        steps += ["", "Keep in mind:", "", *(f"- {what}: {advice}" for what, advice in cs.advice)]
    if n > 1:
        steps += ["", "Or apply this set as reviewed: `foretune apply --changes changes.json` shows it as a diff against the "
                  "host, `foretune apply --changes changes.json --write` writes its files and ALTER SYSTEM statements with "
                  "backups and a journal (undo: `foretune apply --rollback last`) and prints the installer command; "
                  "`foretune verify` then tells what is in force and what is pending."]
    steps += ["", "Every value, its reason and citation: `foretune plan ... --format json`; one value: `foretune plan ... --explain TUNABLE`."]
    return "\n".join(steps) + "\n"


def _why(change: Change) -> str:
    """A change's reason with its citations, for a comment; the finding that asked for it when it has no reason."""
    reason = change.reason or (f"fixes {change.source}" if change.source not in ("plan", "stale") else "foretune's value")
    return reason + (f" [{', '.join(change.citations)}]" if change.citations else "")


def installer_needed(cs: ChangeSet) -> bool:
    """The change set has something an installer run puts in force (a profile, an option, a custom-hiera change)."""
    return any(c.channel in ("profile", "installer", "custom-hiera") for c in cs.changes)


def _below(value: Any, site: Any) -> bool:
    """``value`` is a number below the number ``site`` (a site value a change lowers)."""
    numbers = (int, float)
    return (isinstance(value, numbers) and isinstance(site, numbers) and not isinstance(value, bool)
            and not isinstance(site, bool) and value < site)


def _restarts() -> dict[str, str]:
    """The service to restart after a hand edit of each file ("" when a client reads the file)."""

    data = load_data("direct-edits.yaml")
    restarts: dict[str, str] = {str(e[key]): str(e["restart"]) for name, e in data.items() if not name.startswith("_")
                                for key in ("file", "capsule_file") if key in e}
    return {**restarts, **{str(path): str(unit) for path, unit in data["_restart_after_edit"].items()}}


def _direct_edits(plan: Plan, cs: ChangeSet) -> list[str]:
    """APPLY.md steps for releases whose installer reads no custom-hiera (Satellite 6.2): edit files, then restart."""
    restarts = _restarts()
    steps, n = [], 1
    if build.installer_options(cs):
        steps.append(f"{n}. Run the installer with the options in `installer.sh` (its answers file keeps them, so later "
                     "installer runs keep them too); it rewrites the files below, so edit them after it. Undo: run it "
                     "again with the previous values.")
        n += 1
    edits = file_edits(plan, cs)
    for c in file_removals(plan, cs):
        steps.append(f"{n}. {_removal_step(c)}")
        n += 1
    agents = " on each agent"  # a file of the managed hosts, not of this server
    for path, line in edits:
        after = f", then restart {restarts[path]}{agents}" if path.endswith(agents) and restarts.get(path) else ""
        steps.append(f"{n}. In `{path}` set `{line}`{after}. Undo: put the old line back.")
        n += 1
    drop = dropins(plan, cs)
    units = sorted({restarts[path] for path, _ in edits if restarts.get(path) and not path.endswith(agents)}
                   | {p.split("/")[4].removesuffix(".service.d") for p in drop})
    if drop:
        steps.append(f"{n}. Copy the drop-ins under `systemd/` to `/etc/systemd/system/` and run `systemctl daemon-reload`. "
                     "Undo: remove them and run `systemctl daemon-reload`.")
        n += 1
    if sysctl_file(plan, cs):
        steps.append(f"{n}. Copy `sysctl.d/90-foretune.conf` to `{SYSCTL_FILE}` and run `sysctl --system`. Undo: remove the "
                     "file and run `sysctl --system`.")
        n += 1
    if units:
        steps.append(f"{n}. Restart {', '.join(units)} (`katello-service restart` restarts them all), and again after an undo.")
        n += 1
    if commands(plan, cs):
        steps.append(f"{n}. Run `os-commands.sh` (tuned profile, transparent huge pages, settings; the THP kernel argument "
                     "needs a reboot). Undo: `tuned-adm profile` with the previous profile, "
                     "`grubby --update-kernel=ALL --remove-args=transparent_hugepage` and a reboot.")
    steps += ["", f"{plan.release.label} reads no custom-hiera.yaml: these are edits of the files the installer writes, "
              "and the next installer run overwrites them. Keep a copy of each file before editing it (undo: copy it back), "
              "and repeat the edits after every installer run."]
    if n == 1:  # no step at all
        steps = ["Nothing to change: no step to take, no installer run."]
    if cs.advice:
        steps += ["", "Keep in mind:", "", *(f"- {what}: {advice}" for what, advice in cs.advice)]
    if n > 1:
        steps += ["", "Or apply this set as reviewed: `foretune apply --changes changes.json` shows it as a diff against the "
                  "host, `foretune apply --changes changes.json --write --run-installer` runs the installer first and then "
                  "makes the file edits on what it rendered, with backups and a journal (undo: `foretune apply --rollback "
                  "last`); `foretune verify` then tells what is in force and what waits for a restart."]
    steps += ["", "Every value, its reason and citation: `foretune plan ... --format json`; one value: `foretune plan ... --explain TUNABLE`."]
    return steps


def merge_plan(plan: Plan, existing: str, remove: Iterable[str] = (), preferences: dict[str, str] | None = None,
               label: str = "custom-hiera.yaml") -> tuple[str, list[Conflict]]:
    """``existing`` with the change set's custom-hiera values merged in, and every site value that differs.

    The change set is the plan's against ``existing``: values with an installer option go on the installer command,
    except where ``existing`` already sets the key (custom-hiera wins there, so the value is merged where it takes
    effect). A value the site already sets (directly, through an alias or a ``<<`` merge key) is kept unless
    ``preferences`` (flattened key or ``*`` -> ``site``/``foretune``) takes foretune's; a replaced value gets a
    comment line saying what it replaced, and that any comment next to it was written for the old value.
    """
    from foretune.knowledge.profiles import flatten  # start-up: only when merge_plan runs
    from foretune.render.merge import load_mapping, merge_values  # start-up: only when merge_plan runs

    remove = list(remove)
    current = flatten(load_mapping(existing, label))
    values = flatten(render_values(plan, current))
    values = {key: value for key, value in values.items() if key not in remove and key.split("/", 1)[0] not in remove}
    reasons = {fix.target: f"{t.foretune.reason} [{', '.join(t.foretune.citations)}]" for t, fix in fixes_of(plan, "hiera", every=True)}
    comments = {fix.target.split("/", 1)[-1]: f"foretune: {t.foretune.reason} [{', '.join(t.foretune.citations)}]"
                for t, fix in fixes_of(plan, "hiera", every=True)}
    entries = [f"{key.split('/', 1)[1]}: {reasons[key]}" for key in values if key.startswith(PG + "/") and key in reasons]
    if entries:  # a new PostgreSQL hash gets its entries' reasons above it
        comments.setdefault(PG, "foretune: " + "; ".join(entries))
    return merge_values(existing, build._nest(values), reasons, preferences, comments, label, remove)


def render_values(plan: Plan, current: dict[str, Any]) -> dict[str, Any]:
    """What ``render --merge-into`` writes into a custom-hiera.yaml whose flattened keys are ``current``: the change
    set's custom-hiera values, the installer values whose key the file already sets (custom-hiera wins there), and
    the plan's value of every other key the file sets (so each is compared)."""
    cs = build.from_plan(plan, build.Host(custom_hiera=current), refit_kept=False)  # render's --prefer decides
    values = {c.target: c.value for c in cs.changes if c.channel == "custom-hiera" and c.op == "set"}
    plan_values = {fix.target: fix.value for t, fix in fixes_of(plan, "hiera", every=True)}
    # a site key that shadows an installer option is never given foretune's value here: one channel per value
    # (the option, once the key is gone; render decides with --prefer whether the key goes or the option is left off)
    # (higher site values too: lowering one goes the same way, the key removed and the option passed)
    shadowing = build.from_plan(plan, build.Host(custom_hiera=current), lower_site=True)
    installer_keys = {c.target for c in shadowing.changes if c.tunable.startswith("unshadow:")}
    values.update({key: plan_values[key] for key in current
                   if key in plan_values and key not in values and key not in installer_keys})
    return build._nest(values)


def merged_hiera(plan: Plan, existing: str, changes: ChangeSet | None = None) -> str:
    """``existing`` custom-hiera.yaml with the change set applied: its custom-hiera values set (a site value is
    replaced only when the change set raises it; one set higher on purpose is kept), and the keys it removes gone
    (stale keys, keys that would shadow an installer option), each marked with a comment.
    """
    from foretune.render.merge import (
        merge_values,  # start-up: only when merged_hiera runs
        owned_comments,  # start-up: only when merged_hiera runs
        through_merge,  # start-up: only when merged_hiera runs
    )

    cs = changes_of(plan, changes, existing)
    sets = [c for c in cs.changes if c.channel == "custom-hiera" and c.op == "set"]
    preferences = {c.target: "foretune" for c in sets}
    reasons = {c.target: _why(c) for c in sets}
    comments = {c.target.split("/", 1)[-1]: f"foretune: {_why(c)}" for c in sets}
    entries = [f"{c.target.split('/', 1)[1]}: {reasons[c.target]}" for c in sets if c.target.startswith(PG + "/")]
    if entries:  # a new PostgreSQL hash gets its entries' reasons above it
        comments.setdefault(PG, "foretune: " + "; ".join(entries))
    # a pin a << merge key brings in is raised by an explicit key after it (the anchor and the << stay)
    given = {key: value for key, value, _ in cs.given
             if key in build.hiera_removals(cs) and through_merge(existing, "custom-hiera.yaml", key)}
    text, conflicts = merge_values(existing, build.hiera_values(cs), reasons, preferences, comments, "custom-hiera.yaml",
                                   build.hiera_removals(cs), asked="", given=given)
    said = owned_comments(existing, [key for key in build.hiera_removals(cs) if key not in given])[2]
    raised = {conflict.key: conflict for conflict in conflicts if conflict.key in given}
    notes = [(f"# foretune: set {c.target}: {raised[c.target].foretune} after the << that gives the site's {raised[c.target].site} ({c.reason})"
              + (f"; the site's comment there was written for {raised[c.target].site}: {' / '.join(raised[c.target].comments)}"
                 if raised[c.target].comments else "")
              if c.target in raised else
              f"# foretune: removed {c.target} ({c.reason})" + (f"; the site's comment went with it: {' / '.join(line.lstrip('#').strip() for line in said[c.target])}"
                                                                  if c.target in said else "")) + "\n"
             for c in cs.changes if c.channel == "custom-hiera" and c.op == "remove"]
    notes += [_kept(cs, b) + "\n" for b in cs.blocked if b.change.site_value is not None]
    text = "".join(notes) + text
    if "[redacted]" in text:
        text = "# Values shown as [redacted] were removed from the source: restore them before applying.\n" + text
    return text


def bundle(plan: Plan, existing_hiera: str | None = None, changes: ChangeSet | None = None,
           apply_command: str = "foretune apply --from live") -> dict[str, str]:
    """Relative path -> content of everything `plan --output-dir DIR` and `audit --output-dir DIR` write, all from one change set.

    ``existing_hiera``: the source's custom-hiera.yaml; the bundle then holds it merged, not a fragment.
    """
    cs = changes_of(plan, changes, existing_hiera)
    secrets = masked(existing_hiera)  # a masked secret is never written into a file an admin applies
    merge = bool(existing_hiera and existing_hiera.strip() and plan.release.features.custom_hiera and not secrets)
    hiera = merged_hiera(plan, existing_hiera, cs) if merge and existing_hiera else hiera_fragment(plan, cs)
    files = {"APPLY.md": apply_md(plan, cs, merged=merge, secrets=secrets, apply_command=apply_command)}
    if plan.release.features.custom_hiera:  # a release that reads no custom-hiera.yaml gets no file of that name
        files = {"custom-hiera.yaml": hiera, **files}
    if installer_needed(cs) or not plan.release.features.custom_hiera:
        files["installer.sh"] = "#!/bin/sh\nset -e\n" + installer_text(plan, cs) + "\n"
    for path, content in dropins(plan, cs).items():
        files["systemd/" + path.removeprefix("/etc/systemd/system/")] = content
    sysctl = sysctl_file(plan, cs)
    if sysctl:
        files["sysctl.d/90-foretune.conf"] = sysctl
    if commands(plan, cs):
        files["os-commands.sh"] = "#!/bin/sh\nset -e\n" + "\n".join(commands(plan, cs)) + "\n"
    files["changes.json"] = change_set_json(cs)
    return files


def written_kinds(plan: Plan, changes: ChangeSet | None = None) -> list[str]:
    """What :func:`bundle` writes besides APPLY.md and changes.json, named as What next names it, in APPLY.md's order,
    decided without rendering any file."""
    cs = changes_of(plan, changes)
    hiera = plan.release.features.custom_hiera
    return [name for name, written in (("custom-hiera.yaml", hiera), ("installer.sh", installer_needed(cs) or not hiera),
                                       ("drop-ins", bool(dropins(plan, cs))), ("sysctl", bool(sysctl_file(plan, cs))),
                                       ("commands", bool(commands(plan, cs)))) if written]


def change_set_json(cs: ChangeSet) -> str:
    """The change set as `foretune apply --changes FILE` reads it (the run journal's form of each change)."""
    import json  # start-up: only when a bundle is written

    from foretune.host.redact import redact_data  # start-up: only when a bundle is written

    def entry(change: Any) -> dict[str, Any]:
        data = change._asdict()
        for key in ("units", "overrides", "overridden_by", "citations"):
            data[key] = list(data[key])
        data["value"], data["site_value"] = redact_data(data["value"]), redact_data(data["site_value"])
        return {key: value for key, value in data.items() if value not in (None, "", [])}

    return json.dumps({"release": cs.release, "changes": [entry(c) for c in cs.changes]}, indent=1) + "\n"
