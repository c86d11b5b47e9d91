"""``foretune render``: merge a plan into an existing custom-hiera.yaml (diff first; --write to apply)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands.plan import add_plan_arguments
from foretune.errors import InputError, UsageError

if TYPE_CHECKING:
    from pathlib import Path

    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Merge foretune's recommendation into an existing custom-hiera.yaml, keeping its comments, "
                        "order and unrelated keys. Prints a diff; writes only with --write, after a timestamped backup. "
                        "Values with an installer option are not merged: they are printed as the installer command "
                        "(custom-hiera would win over them). Warns about stale keys and keys that lock out later "
                        "--tuning changes. A removed key takes the comment lines directly above it, except those that open the file "
                        "(its header, before any ---), which stay.",
                        "foretune render --from live --merge-into /etc/foreman-installer/custom-hiera.yaml")
    target = parser.add_argument_group("target")
    target.add_argument("--merge-into", metavar="FILE", required=True, help="the custom-hiera.yaml to update")
    target.add_argument("--write", action="store_true", help="write the merged file (a backup is kept next to it)")
    target.add_argument("--remove-stale", action="store_true",
                        help="also remove the keys that are inert on this release (the ones audit reports as stale); keys "
                        "the release refuses (checkpoint_segments on PostgreSQL 12) are removed in any case")
    target.add_argument("--prefer", choices=["site", "foretune"], default="site",
                        help="whose value wins where the file already sets a key to another value (after anchors and "
                        "<< merge keys): 'site' (the default) keeps the file's value, 'foretune' writes the recommendation "
                        "with a comment naming the value it replaced. Every such key is listed as a conflict either way")
    target.add_argument("--prefer-key", metavar="KEY=WHO", action="append", default=[],
                        help="the same for one key, overriding --prefer: a hiera key or a PostgreSQL entry name, "
                        "e.g. --prefer-key work_mem=foretune or --prefer-key foreman::foreman_service_puma_workers=site "
                        "(repeatable)")
    add_plan_arguments(parser)
    return parser


def _through_streams(path: Path) -> bool:
    """``path`` or a link on its way names /dev or /proc (``/dev/stdout`` -> ``/proc/self/fd/1`` -> a file)."""
    here = os.path.abspath(path)
    for _ in range(40):
        if here.startswith(("/dev/", "/proc/")):
            return True
        if not os.path.islink(here):
            return False
        here = os.path.normpath(os.path.join(os.path.dirname(here), os.readlink(here)))
    return True


def _below(ours: object, site: object) -> bool:
    """foretune's value is a lower number than the site's."""
    try:
        return float(str(ours)) < float(str(site))
    except ValueError:
        return False


def _unchanged(path: str, differing: int, stale: list[str]) -> str:
    """The line for a file the merge leaves as it is: "already matches" only when no site value differs from foretune's
    and no stale key stays in it; else what it keeps, so a kept value never reads as foretune's.

    >>> _unchanged("c.yaml", 0, [])
    'c.yaml: already matches the recommendation\\n'
    >>> _unchanged("c.yaml", 2, ["qpid::open_file_limit"])
    "c.yaml: nothing to change as asked; it keeps 2 site values that differ from foretune's (listed above); 1 stale key (qpid::open_file_limit: add --remove-stale)\\n"
    """
    from foretune.term import plural  # start-up: only for a `render` run, not --help

    if not differing and not stale:
        return f"{path}: already matches the recommendation\n"
    keeps = ([f"{plural(differing, 'site value')} that differ{'s' if differing == 1 else ''} from foretune's (listed above)"]
             if differing else []) + ([f"{plural(len(stale), 'stale key')} ({', '.join(stale)}: add --remove-stale)"] if stale else [])
    return f"{path}: nothing to change as asked; it keeps " + "; ".join(keeps) + "\n"


def run(args: argparse.Namespace, env: Environment) -> int:
    from pathlib import Path  # start-up: only for a `render` run, not --help

    from foretune.commands.plan import (
        note_assumed,  # start-up: only for a `render` run, not --help
        plan_and_facts,  # start-up: only for a `render` run, not --help
    )
    from foretune.host.redact import redact_text  # start-up: only for a `render` run, not --help
    from foretune.knowledge.hiera_keys import locking_keys, stale_keys  # start-up: only for a `render` run, not --help
    from foretune.plan.measured import hold_when_short, measured_shortage  # start-up: only for a `render` run
    from foretune.plan.model import Plan  # start-up: only for a `render` run, not --help
    from foretune.plan.refused import tuning_applies  # start-up: only for a `render` run, not --help
    from foretune.render import outputs  # start-up: only for a `render` run, not --help
    from foretune.render.files import write_text  # start-up: only for a `render` run, not --help
    from foretune.render.merge import (  # start-up: only for a `render` run, not --help
        PG,
        load_mapping,
        round_trip,
        show_diff,
        unified_diff,
        value_comments,
    )
    from foretune.safeio import read_text  # start-up: only for a `render` run, not --help

    plan, facts = plan_and_facts(args, env, for_changes=True)
    assert isinstance(plan, Plan)
    short = measured_shortage(facts)  # a box short of memory now (render --from): no work_mem raise, as every set has it

    def make_plan(inp: Any) -> Plan:
        from foretune.plan import make_plan as planned  # start-up: only for a `render` run, not --help

        return hold_when_short(planned(inp), short)  # type: ignore[no-any-return]

    plan = hold_when_short(plan, short)
    if not plan.release.features.custom_hiera:

        raise UsageError(f"{plan.release.label} reads no custom-hiera.yaml: apply the file edits that "
                         "`foretune plan ... --output-dir DIR` lists in APPLY.md")
    note_assumed(args, env)
    path = Path(args.merge_into)
    if path.is_dir():
        raise InputError(f"{path}: is a directory, expected custom-hiera.yaml")
    if not path.exists() and not path.is_symlink():  # the installer ships the file: a missing one may be a mistyped path
        env.warn(f"{path}: does not exist: the merge starts from an empty file"
                 + (" and creates it" if args.write else " (--write would create it)"))
    try:
        old = read_text(path) if path.exists() or path.is_symlink() else ""
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror}") from None
    if args.write and path.exists():  # /dev/null (or a link to it) reads as empty; /dev/stdout is whatever fd 1 is
        from foretune.safeio import kind  # start-up: only for a `render --write` run

        if not path.is_file():
            raise InputError(f"{path}: is {kind(path.stat().st_mode)}, not a custom-hiera.yaml file: refusing to merge into it")
        if _through_streams(path):
            raise InputError(f"{path}: is a stream, not a custom-hiera.yaml file: refusing to merge into it")
    current = load_mapping(old, str(path))
    round_trip(old, str(path))  # a file the merge cannot load is refused before any other word on it
    from foretune.plan.facts_input import hiera_configured  # start-up: only for a `render` run, not --help

    site = hiera_configured(current)
    if site:  # the plan starts from the file's values, as `plan --from` starts from the box's custom-hiera
        plan = make_plan(plan.input._replace(configured={**plan.input.configured, **site}))
    stale = stale_keys(plan.release, current)
    for note in stale:  # a key the release refuses goes in any case; an inert one when asked
        action = "removed" if args.remove_stale or note.refused else "remove it (or add --remove-stale)"
        env.warn(f"{path}: stale key {note.key}: {note.reason} [{note.citation}] — {action}")
    remove = [note.key for note in stale if args.remove_stale or note.refused]
    from foretune.changes import build  # start-up: only for a `render` run, not --help
    from foretune.knowledge.profiles import flatten  # start-up: only for a `render` run, not --help
    from foretune.render.merge import parse_preferences  # start-up: only for a `render` run, not --help

    recommended = flatten(outputs.hiera_values(plan, also=set(flatten(current))))
    # lower_site: a site key over an installer option is found whether its value is below or above foretune's; the
    # preference below decides whether it goes (the option passed, saying what it lowers) or stays (the option left off)
    changes = build.from_plan(plan, build.Host(custom_hiera=flatten(current)), lower_site=True)
    # site keys that would win over an installer option: either the key goes (the option then takes effect) or the
    # site's value stays and the option is left off the command (it could not take effect); never both channels
    shadowing = {c.target: c for c in changes.changes if c.tunable.startswith("unshadow:")}
    preferences = parse_preferences(args.prefer, args.prefer_key, [*recommended, *shadowing])
    dropped: list[str] = []  # keys whose installer option is left off the command
    kept: list[str] = []  # of them, those whose site value differs from foretune's
    why = {fix.target: f" — {t.foretune.reason} [{', '.join(t.foretune.citations)}]"
           for t, fix in outputs.fixes_of(plan, "hiera", every=True)}
    said = value_comments(old)
    for key, removal in shadowing.items():
        option = build.installer_option(key)
        given = next((c for c in changes.changes if c.channel == "installer" and c.target == option), None)
        shown = f"{option} {given.value}" if given is not None else str(option)
        tail = why.get(key, "") + (f" (the site's comment: {' / '.join(said[key])})" if said.get(key) else "")
        lowers = given is not None and _below(given.value, removal.site_value)
        if given is not None and str(given.value) == str(removal.site_value):
            dropped.append(key)  # the site already gives foretune's value: nothing to move, no option to pass
        elif preferences.get(key, preferences["*"]) == "foretune":
            remove.append(key)
            env.warn(redact_text(f"{path}: {key}: removed the site's {removal.site_value}, which would win over {shown}"
                                 + (f" (this lowers the site's {removal.site_value}, as asked)" if lowers else "") + tail))
        else:
            dropped.append(key)
            kept.append(key)
            env.warn(redact_text(f"{path}: {key}: kept the site's {removal.site_value}; {shown} is left off the "
                                 f"installer command: custom-hiera's value wins over it" + tail))
    from foretune.render.merge import same_value  # start-up: only for a `render` run, not --help

    # the file's PostgreSQL values that stay (the site's side of a conflict): the values derived from them follow them
    # (work_mem from a kept max_connections); the conflicts themselves are against foretune's own plan
    kept_hiera = [key for key, value in flatten(current).items() if key.startswith(PG + "/") and key in recommended
                  and not same_value(value, recommended[key]) and preferences.get(key, preferences["*"]) == "site"]
    if kept:  # what depends on a kept site value is derived from it (threads_min and the pool from a kept threads_max)
        before = {c.target: c.value for c in changes.changes if c.channel == "installer"}
        plan = make_plan(plan.input._replace(kept=frozenset(kept)))
        changes = build.from_plan(plan, build.Host(custom_hiera=flatten(current)), lower_site=True)
        after = {c.target: c.value for c in changes.changes if c.channel == "installer"}
        follow = [f"{option} {after[option]} (was {value})" if option in after else f"{option} left off (was {value}: "
                  "the installer's own value is now foretune's)" for option, value in before.items()
                  if str(after.get(option)) != str(value) and option not in map(build.installer_option, kept)]
        if follow:
            env.note(redact_text(f"{path}: with the site's {', '.join(kept)} kept, the values that depend on "
                                 f"{'it' if len(kept) == 1 else 'them'} follow: " + ", ".join(follow)))
    first = plan  # the conflicts are against this plan: foretune's own values, with the kept installer keys as they are
    if kept_hiera:
        plan = make_plan(plan.input._replace(kept=frozenset([*kept, *kept_hiera])))
    if dropped:
        options_of = {build.installer_option(key) for key in dropped}
        changes = changes._replace(changes=tuple(c for c in changes.changes if not (
            c.target in dropped or (c.channel == "installer" and c.target in options_of))))
    new, conflicts = outputs.merge_plan(first, old, remove, preferences, str(path))
    kept_pg = [c.key for c in conflicts if c.key.startswith(PG + "/") and c.taken == "site"]
    if len(kept_pg) > 1:  # each kept PostgreSQL value is compared with foretune's value given the others kept
        # (the work_mem conflict's reason counts the max_connections the site keeps)
        for key in kept_pg:
            others = make_plan(plan.input._replace(kept=frozenset([*kept, *(k for k in kept_pg if k != key)])))
            own = {c.key: c for c in outputs.merge_plan(others, old, remove, preferences, str(path))[1]}
            conflicts = [own[key] if c.key == key and key in own else c for c in conflicts
                         if c.key != key or key in own]
    if plan is not first:  # the file as written: what it adds is derived from the values it keeps
        new = outputs.merge_plan(plan, old, remove, preferences, str(path))[0]
    from foretune.render.merge import kept_header, owned_comments  # start-up: only for a `render` run, not --help

    for key, gone_with in owned_comments(old, remove)[2].items():  # nothing leaves the file unsaid
        quoted = " / ".join(f'"{line.lstrip("#").strip()}"' for line in gone_with)
        env.warn(redact_text(f"{path}: {key}: the site's comment {quoted} went with it"))
    for key, header in kept_header(old, remove).items():
        quoted = " / ".join(f'"{line.lstrip("#").strip()}"' for line in header)
        env.warn(redact_text(f"{path}: {key}: the comment {quoted} above it opens the file, so it stays as the file's header"))
    for conflict in conflicts:  # on stderr, so the diff on stdout still applies with patch
        env.warn(redact_text(f"{path}: {conflict.line()}"))
    budget = sum(n for _, n in plan.connection_budget)
    for conflict in conflicts:  # a kept max_connections below what the services of this plan open
        if conflict.key == f"{PG}/max_connections" and conflict.taken == "site" and isinstance(conflict.site, int) \
                and conflict.site < budget:
            # plan figures and fixed words only (masking would take "--prefer-key max_connections=..." for a secret)
            print(f"foretune: warning: {redact_text(str(path))}: with the site's max_connections {conflict.site} kept, the services as planned (and the "
                     f"installer command below) open up to {budget} connections ({', '.join(f'{what} {n}' for what, n in plan.connection_budget)}): "
                     "PostgreSQL refuses the rest (\"too many clients\"); take foretune's with --prefer-key "
                     "max_connections=foretune, or run fewer Puma workers or a smaller pool", file=env.stderr)
    if any(conflict.taken == "site" for conflict in conflicts) or kept:
        # fixed text, no input in it: printed as it is (the secret masking would take "--prefer-key NAME=..." for a key)
        print("foretune: site values are kept where they differ; add --prefer foretune to take foretune's, or "
              "--prefer-key NAME=foretune for one key", file=env.stderr)
    options = build.installer_options(changes)
    if options or build.profile_change(changes):
        env.note("values with an installer option are not merged (custom-hiera would win over every later installer "
                 "flag for them); run: " + outputs.installer_command(plan, changes).replace(" \\\n  ", " "))
    locking = [note.key for note in locking_keys(plan.release, load_mapping(new, str(path)))]
    had = {note.key for note in locking_keys(plan.release, load_mapping(old, str(path)))} if old.strip() else set()
    theirs, added = [k for k in locking if k in had], [k for k in locking if k not in had]
    if theirs and tuning_applies(plan):  # one line for all of them (a Capsule takes no --tuning)
        one = len(theirs) == 1
        env.warn(f"{path}: {len(theirs)} {'key is' if one else 'keys are'} also set by the tuning profiles and "
                 f"{'locks' if one else 'lock'} out later --tuning changes: {', '.join(theirs)}")
    if added and tuning_applies(plan):  # foretune's own: say so, and what a later profile change needs
        one = len(added) == 1
        env.warn(f"{path}: foretune adds {len(added)} {'key' if one else 'keys'} the tuning profiles also set: "
                 f"{', '.join(added)}; remove {'it' if one else 'them'} before a later --tuning change, which "
                 f"{'it' if one else 'they'} would otherwise lock out")
    diff = unified_diff(old, new, str(path))
    shown = unified_diff(redact_text(old), redact_text(new), str(path))  # the file keeps its secrets, the screen never sees them
    if diff and shown:
        show_diff(shown, env)
    else:
        env.stdout.write("(only secret values differ)\n" if diff else _unchanged(str(path), len(conflicts) + len(kept),
                                                                                  [n.key for n in stale if n.key not in remove]))
    if diff and args.write:
        saved = write_text(path, new, backup=True)
        env.note(f"wrote {path}" + (f" (backup: {saved})" if saved else ""))
    elif diff:
        env.note("dry run: nothing written (add --write to apply)")
    return 0
