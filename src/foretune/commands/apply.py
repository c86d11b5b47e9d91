"""``foretune apply``: show the change set as a diff against the host; --write applies it with backups and a journal."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands._options import rule_names
from foretune.commands.plan import add_plan_arguments
from foretune.errors import InputError, UsageError
from foretune.term import plural

if TYPE_CHECKING:
    from foretune.changes.model import ChangeSet
    from foretune.env import Environment


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Show the change set (plan's recommendations, or the audit's fixes with --audit) as a diff "
                        "against this host or a tree (--root). Writes nothing unless --write: then each file is backed up "
                        "and the run recorded in a journal under /var/lib/foretune/runs, which --rollback RUN restores. "
                        "The installer runs only with --run-installer, after its own --noop run.",
                        "foretune apply --from live --write")
    where = parser.add_argument_group("where")
    where.add_argument("--root", metavar="DIR",
                       help="apply to the tree under DIR (a mounted image or a copy of a host) instead of this host; "
                            "without --from or --changes the change set is planned from that tree")
    where.add_argument("--dsn", metavar="CONNINFO",
                       help="the PostgreSQL server ALTER SYSTEM statements go to (libpq conninfo, password from PGPASSWORD); "
                            "default: this host's as the postgres account, or, with --root, the tree's postgresql.auto.conf")
    what = parser.add_argument_group("what")
    what.add_argument("--changes", metavar="FILE",
                      help="apply the change set in FILE (JSON: {\"release\": ..., \"changes\": [...]}, "
                           "as a run journal records it) instead of planning one")
    what.add_argument("--audit", action="store_true",
                      help="the change set that fixes the audit's findings on the source, instead of plan's recommendations")
    what.add_argument("--waivers", metavar="FILE",
                      help="with --audit: YAML list of {rule, reason, expires: YYYY-MM-DD} accepted findings, as `audit "
                           "--waivers` reads it; a waived finding's fixes are left out of the change set")
    what.add_argument("--select", type=rule_names, default=[], metavar="RULES",
                      help="with --audit: only the fixes of these rule ids or components (comma list), as `audit --select`")
    what.add_argument("--ignore", type=rule_names, default=[], metavar="RULES",
                      help="with --audit: not the fixes of these rule ids or components (comma list), as `audit --ignore`")
    what.add_argument("--prefer", choices=("site", "foretune"), default="site",
                      help="where the site already sets a value above foretune's (custom-hiera.yaml, a drop-in, "
                           "sysctl.d, an edited file): keep the site's (default; each is listed as not applied) or write "
                           "foretune's. A site value below foretune's is replaced, and each is listed (\"replaces the "
                           "site's ...\"). A value the plan itself keeps (work_mem above the guide's, which it calls more "
                           "than enough) is listed as kept either way")
    act = parser.add_argument_group("action")
    act.add_argument("--write", action="store_true", help="apply: back up, write, record the run (default: only show)")
    act.add_argument("--run-installer", action="store_true",
                     help="with --write: also run the installer command, first with --noop, then for real if that succeeded")
    act.add_argument("--rollback", metavar="RUN",
                     help="restore the files RUN changed from its backups, byte for byte, and undo its ALTER SYSTEM "
                          "statements ('last' for the last run)")
    act.add_argument("--force", action="store_true",
                     help="with --rollback: roll back the runs applied after RUN first, newest first, then RUN (by "
                          "default a run with later runs still applied is refused)")
    add_plan_arguments(parser)
    return parser


def _from_file(path: str) -> ChangeSet:
    import json  # start-up: only when a change set file is read
    import re  # start-up: only when a change set file is read

    from foretune.apply.journal import change_from_dict  # start-up: only for an `apply` run
    from foretune.changes.model import ChangeSet  # start-up: only for an `apply` run
    from foretune.safeio import read_bytes  # start-up: only for an `apply` run

    try:
        data = json.loads(read_bytes(path, 16 * 1024 * 1024))
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise InputError(f"{path}: not JSON ({str(exc).splitlines()[0][:80]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("changes"), list):
        raise InputError(f"{path}: expected a mapping with a list of changes")
    changes = tuple(change_from_dict(c, f"{path}: change {n + 1}") for n, c in enumerate(data["changes"]))
    for n, c in enumerate(changes):  # an installer option or profile goes on a command line: only its own shape
        if (c.channel == "installer" and not re.fullmatch(r"--[a-z0-9][a-z0-9-]*", c.target)) or \
                (c.channel in ("installer", "profile") and not re.fullmatch(r"[\w.:/-]*", str(c.value if c.value is not None else ""))):
            raise InputError(f"{path}: change {n + 1}: not an installer option and value: {c.target!r} {c.value!r}")
    for n, c in enumerate(changes):
        why = _unsafe(c)
        if why:
            raise InputError(f"{path}: change {n + 1}: {why}")
    tunables = [c.tunable for c in changes]
    twice = sorted({t for t in tunables if tunables.count(t) > 1})
    if twice:
        raise InputError(f"{path}: two changes for {twice[0]} (a change set holds one value per tunable)")
    places = [(c.channel, c.target) for c in changes if c.op == "set" and c.channel != "file"]  # a file: one per line
    again = sorted({target for channel, target in places if places.count((channel, target)) > 1})
    if again:
        raise InputError(f"{path}: two values for {again[0]} (a change set holds one value per tunable)")
    return ChangeSet(str(data.get("release", "")), changes)


def _unsafe(c: Any) -> str:
    """Why a change read from a file may not be written as it stands ("" when it may): every value one line, each
    channel's file where that channel writes (a tuned profile to /etc/tuned/active_profile, a drop-in in its unit's
    directory, a sysctl setting in /etc/sysctl.d), and names of their own shape."""
    import re  # start-up: only when a change set file is read

    from foretune.apply.edits import file_of  # start-up: only for an `apply` run

    values = list(c.value.values()) if isinstance(c.value, dict) else [c.value]
    if any(isinstance(v, str) and re.search(r"[\r\n\x00]", v) for v in values):
        return f"{c.tunable}: a value of more than one line: {str(c.value)[:60]!r}"
    where = file_of(c)
    if c.channel == "tuned" and (where != "/etc/tuned/active_profile" or not re.fullmatch(r"[\w.-]+", str(c.value or ""))):
        return f"{c.tunable}: a tuned profile is a name written to /etc/tuned/active_profile, not {c.value!r} in {where}"
    if c.channel == "dropin":
        unit, _, directive = c.target.partition(":")
        unit = unit if "." in unit else unit + ".service"
        if not re.fullmatch(r"[\w@.-]+\.service", unit) or not re.fullmatch(r"[\w.@-]+", directive) \
                or not re.fullmatch(rf"/etc/systemd/system/{re.escape(unit)}\.d/[\w.@-]+\.conf", where):
            return f"{c.tunable}: a drop-in is a [Service] setting in /etc/systemd/system/UNIT.d/NAME.conf, not {c.target} in {where}"
        if c.op == "set" and not re.fullmatch(r"[\w.:/=@ -]*", str(c.value)):
            return f"{c.tunable}: not a value for {directive}: {c.value!r}"
    if c.channel == "sysctl" and (not re.fullmatch(r"[a-z0-9_.-]+(/[a-z0-9_.-]+)*", c.target)
                                  or not re.fullmatch(r"/etc/sysctl\.d/[\w.-]+\.conf", where)):
        return f"{c.tunable}: a kernel setting goes to /etc/sysctl.d/NAME.conf, not {c.target} in {where}"
    if c.channel == "custom-hiera" and where != "/etc/foreman-installer/custom-hiera.yaml":
        return f"{c.tunable}: custom-hiera values go to /etc/foreman-installer/custom-hiera.yaml, not {where}"
    return ""


def change_set(args: argparse.Namespace, env: Environment) -> tuple[ChangeSet, str | None, str]:
    """The change set to apply, the installer program, and where it came from: the one seam between apply and
    the change-set builder (``foretune.changes.build``)."""
    if args.changes:
        return _from_file(args.changes), None, args.changes
    from foretune.commands.plan import plan_and_facts  # start-up: only for an `apply` run

    if not args.source:
        args.source = args.root or "live"
    plan: Any
    plan, facts = plan_and_facts(args, env, for_changes=True)
    broken = [p for p in getattr(facts, "problems", ()) if "answers.yaml: not valid YAML" in str(p)]
    if broken:  # the site values there are unknown, and the installer cannot run with that file either
        raise InputError(f"{broken[0]}: the installer cannot read it either; fix it before applying")
    if not args.root and args.source != "live":
        _refuse_other_host(args.source, facts)
    from foretune.changes import build  # start-up: only for an `apply` run

    program = build.installer_program(plan)
    facts = _box_given(facts, args.cpus, args.ram, env)
    if args.audit:
        return (_audit_change_set(facts, args.hosts, args.prefer == "foretune", args.waivers, env, args.select, args.ignore),
                program, args.source)
    from foretune.commands._measured import audit_lowers  # start-up: only for an `apply` run

    changes = build.from_plan(plan, facts, lower_site=args.prefer == "foretune")
    return audit_lowers(changes, facts, args.hosts, _audit_command(args)), program, args.source


def _box_given(facts: Any, cpus: int | None, ram: int | None, env: Environment) -> Any:
    """``facts`` with the CPUs and RAM given on the command line in place of the source's, as `plan --from` takes them:
    the audit whose fixes are applied (--audit) judges the box they describe. Said in one line, with what the source
    says."""
    if (cpus is None and ram is None) or facts is None:
        return facts
    from foretune.facts.model import Fact, FactSet, Provenance  # start-up: only for `apply --audit --cpus/--ram`
    from foretune.units import format_gib  # start-up: only for `apply --audit --cpus/--ram`

    given = FactSet(facts.source_kind, facts.source_label, dict(facts.facts), list(facts.problems))
    def shown(name: str, value: int) -> str:
        return f"{value} CPUs" if name == "cpu_logical" else f"{format_gib(value)} RAM"

    said = []
    for name, option, value in (("cpu_logical", "--cpus", cpus), ("ram_bytes", "--ram", ram)):
        if value is None:
            continue
        before = facts.value(name)
        given.add(Fact(name, value, (Provenance("option", f"{option} {value}"),)))
        said.append(f"{option}: {shown(name, value)} instead of the "
                    f"{shown(name, before) if isinstance(before, int) else 'unknown'} {facts.source_label} says")
    env.note("; ".join(said) + " (the change set is made for the box given)")
    return given


def _refuse_other_host(source: str, facts: Any) -> None:
    """Without --root, apply writes to this host: a change set planned from another host's source is refused (its
    diff and site values are that host's), unless the source names this host."""
    import socket  # start-up: only for `apply --from SOURCE` on this host

    theirs = str(facts.value("hostname") or "") if facts is not None else ""
    ours = socket.getfqdn() or socket.gethostname()
    if not theirs or theirs.split(".")[0].lower() != ours.split(".")[0].lower():
        raise UsageError(f"--from {source} describes {theirs or 'an unknown host'}, but without --root apply writes to this "
                         f"host ({ours}): plan from this host (--from live), or give --root DIR for a tree of that host")


def _audit_command(args: argparse.Namespace) -> str:
    """The same apply with --audit: the audit's change set, which may lower a site value a measured failure asks for."""
    from shlex import quote  # start-up: only when a site value is kept

    words = ["foretune apply", *(["--root", quote(args.root)] if args.root else []),
             *(["--from", quote(args.source)] if args.source not in (args.root, "live") else []),
             *(["--hosts", str(args.hosts)] if args.hosts else []), "--audit"]
    return f"`{' '.join(words)}` applies that set"


def _audit_change_set(facts: Any, hosts: int | None, lower_site: bool = False, waivers_file: str | None = None,
                      env: Environment | None = None, select: list[str] | None = None,
                      ignore: list[str] | None = None) -> ChangeSet:
    """The change set that fixes the failing, unwaived findings of the audit of ``facts`` (``waivers_file``: the
    findings accepted, as `audit --waivers` reads them; ``select``/``ignore``: the rules judged, as `audit` takes them)."""
    import datetime  # start-up: only for `apply --audit`
    from types import SimpleNamespace  # start-up: only for `apply --audit`

    from foretune.audit.context import build_context  # start-up: only for `apply --audit`
    from foretune.audit.judge import judge  # start-up: only for `apply --audit`
    from foretune.audit.runner import select_rules  # start-up: only for `apply --audit`
    from foretune.audit.waivers import load_waivers  # start-up: only for `apply --audit`
    from foretune.commands.audit import change_set  # start-up: only for `apply --audit`
    from foretune.rules.registry import all_rules  # start-up: only for `apply --audit`

    rules = select_rules(all_rules(), select or [], ignore or [])
    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    if ctx.plan is None:
        raise UsageError(f"no fixes to apply: {ctx.no_plan_reason}")
    # as `audit` judges them: a waived finding asks for nothing, and a profile move no counted finding asks for is
    # not made (the fixes are sized for the declared profile)
    ctx, findings, warnings = judge(rules, all_rules(), ctx, load_waivers(waivers_file) if waivers_file else [],
                                    datetime.date.today())
    for warning in warnings:
        if env is not None:
            env.warn(warning)
    report = SimpleNamespace(findings=findings)  # as `audit --output-dir` builds its set
    result: ChangeSet = change_set(report, ctx.fix_plan or ctx.plan, facts, lower_site)
    return result


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.apply.edits import edits, reload_settings  # start-up: only for an `apply` run
    from foretune.apply.host import Host  # start-up: only for an `apply` run
    from foretune.apply.journal import apply, rollback, run_installer  # start-up: only for an `apply` run
    from foretune.host.redact import redact_text  # start-up: only for an `apply` run
    from foretune.render.merge import show_diff, unified_diff  # start-up: only for an `apply` run

    if args.run_installer and not args.write:
        raise UsageError("--run-installer needs --write")
    if args.run_installer and args.root:
        raise UsageError("--run-installer runs the installer on this host: not with --root")
    if args.waivers and not args.audit:
        raise UsageError("--waivers goes with --audit (plan's recommendations are not findings to waive)")
    if (args.select or args.ignore) and not args.audit:
        raise UsageError(f"--{'select' if args.select else 'ignore'} goes with --audit (it picks the audit's rules whose "
                         "fixes are applied)")
    if args.select or args.ignore:  # an unknown rule or component: one line, before the source is read
        from foretune.audit.runner import select_rules  # start-up: only for `apply --audit --select/--ignore`
        from foretune.rules.registry import all_rules  # start-up: only for `apply --audit --select/--ignore`

        select_rules(all_rules(), args.select, args.ignore)
    if args.force and not args.rollback:
        raise UsageError("--force goes with --rollback")
    if args.rollback and (args.write or args.changes or args.audit):
        raise UsageError("--rollback restores a run: give it alone (with --root/--dsn)")
    host = Host(args.root, args.dsn, env.environ)
    if args.rollback:
        journal, notes = rollback(host, args.rollback, force=args.force)
        for note in notes:
            env.warn(note)
        restored = sum(1 for f in journal.get("files", []) if f.get("done"))
        undone = sum(1 for s in journal.get("statements", []) if s.get("done"))
        env.stdout.write(f"rolled back run {journal['run']} on {host.label}: {plural(restored, 'file')} restored"
                         + (f", {plural(undone, 'ALTER SYSTEM statement')} undone" if undone else "") + "\n")
        return 0
    if not args.changes:
        from foretune.changes.build import HIERA_FILE  # start-up: only for an `apply` run

        # the set is planned from the host's custom-hiera.yaml: a symbolic link there (absolute ones survive cp -a and
        # rsync) is refused in one line, never planned as if the file were absent (its stale keys and locks kept)
        host.path(HIERA_FILE)
    cs, program, source = change_set(args, env)
    if args.changes:
        _refuse_removed(args.changes, cs, host)
        _refuse_unfit(args.changes, cs, args.root, dict(env.environ))
    for blocked in cs.blocked:
        env.warn(redact_text(f"not applied: {blocked.change.tunable}: {blocked.why}"))
    found = edits(cs, host, prefer=args.prefer, program=program)
    if args.changes:
        _refuse_input(args.changes, host, [e.path for e in found.files])
    for skip in found.skipped:
        env.warn(redact_text(f"not applied: {skip.change.tunable}: {skip.why}"))
    for low in found.lowered:
        env.stdout.write(redact_text(f"{low.why}: {low.change.tunable}") + "\n")
    for high in (*found.raised, *found.unshadowed):
        env.stdout.write(redact_text(high.why) + "\n")
    kept = {skip.change.tunable for skip in found.skipped}
    for shadow in found.shadowed:  # the site's kept value is not in force either: said so, not only "kept"
        said = "the value kept is not in force either" if shadow.change.tunable in kept else "cannot take effect"
        env.warn(redact_text(f"{said}: {shadow.change.tunable}: {shadow.why}"))
    for edit in found.files:
        old = (edit.old or b"").decode("utf-8", "replace")
        label = str(host.path(edit.path))
        _said_comments(edit, old, label, env)
        if edit.new is None:  # the whole file goes: what it held is shown too
            env.stdout.write(f"remove {label}\n")
            diff = unified_diff(redact_text(old), "", label)
            if diff:
                show_diff(diff, env)
            continue
        diff = unified_diff(redact_text(old), redact_text(edit.new.decode("utf-8")), label)
        if diff:
            show_diff(diff, env)
    for statement in found.statements:
        env.stdout.write(f"{statement.sql};\n")
    if found.empty and found.installer:  # the files are in place; what the installer writes is not known to be
        env.stdout.write(f"nothing to change on {host.label}: the files are in place; the installer command below puts "
                         "the set's installer values in force\n")
    elif found.empty:
        env.stdout.write(f"nothing to change on {host.label}: the change set is in place\n")
    if found.installer:
        env.stdout.write(f"installer command: {redact_text(found.installer)}\n")
        edited = [e.path for e in found.files if any(c.channel == "file" and c.op == "set" for c in e.changes)]
        if edited and not _reads_custom_hiera(cs.release):  # Satellite 6.2: the installer renders these files itself
            env.stdout.write(redact_text(
                f"run the installer before these file edits: it rewrites the files it manages ({', '.join(edited)}) "
                "and drops the edits, so run it first, then `foretune apply --write` again (which writes them back); "
                "--write --run-installer does both in that order: the installer first, then the file edits") + "\n")
    from foretune.changes.build import (
        installer_option,  # start-up: only for an `apply` run
        lowers_site_value,  # start-up: only for an `apply` run
    )

    pins = {installer_option(c.target): c for c in cs.changes  # custom-hiera keys removed for the option that replaces them
            if c.tunable.startswith("unshadow:") and c.channel == "custom-hiera" and c.site_value is not None}
    restarts: dict[tuple[str, ...], list[str]] = {}  # one line per service to restart, naming what waits for it
    not_applied = {id(skip.change) for skip in found.skipped}
    options = {c.target for c in cs.changes if c.channel == "installer"}
    pinned = {pin.target for option, pin in pins.items() if option in options}  # said with the option that replaces it
    for c in cs.changes:  # what an admin must know before writing: a site value lowered, a restart the run needs
        if id(c) in not_applied:  # kept as the site has it: said once, by the "not applied" line
            continue
        removal = c.channel == "custom-hiera" and c.op == "remove" and c.site_value is not None and c.target not in pinned
        if removal:  # said once: the key and the site's value that go
            env.stdout.write(redact_text(f"removes the site's {c.target}: {c.site_value} from custom-hiera.yaml ({c.reason})") + "\n")
        pin = pins.get(c.target) if c.channel == "installer" else None
        if removal:
            pass
        elif pin is not None:  # custom-hiera.yaml's value goes, the option takes its place: said with the site's value
            said = "lowers" if lowers_site_value(c._replace(site_value=pin.site_value)) else "replaces"
            env.stdout.write(redact_text(f"{said} the site's {pin.site_value}: {c.target} {c.value} ({c.reason}); "
                                         f"{pin.target} goes from custom-hiera.yaml") + "\n")
        elif c.channel == "custom-hiera" and c.op == "remove" and c.site_value is not None and \
                not c.tunable.startswith("unshadow:") and c.target not in {h.change.target for h in found.raised}:
            env.stdout.write(redact_text(f"replaces the site's {c.site_value}: removes {c.target} from custom-hiera.yaml "
                                         f"({c.reason})") + "\n")
        elif lowers_site_value(c):
            env.stdout.write(redact_text(f"lowers the site's {c.site_value}: {c.target} {c.value} ({c.reason})") + "\n")
        elif c.op == "set" and c.site_value is not None and str(c.site_value) != str(c.value):  # raised: said too
            env.stdout.write(redact_text(f"replaces the site's {c.site_value}: {c.target} {c.value} ({c.reason})") + "\n")
        what = str(c.value).split("=")[0].strip() if c.channel == "file" and c.op == "remove" and c.value else c.target
        if c.effect == "restart" and c.units and what not in restarts.setdefault(c.units, []):
            restarts[c.units].append(what)
    for c in cs.changes:  # active_profile is read when tuned starts: tuned-adm puts the profile in force now
        if c.channel == "tuned" and c.op == "set" and any(a is c for a in found.applied):
            env.stdout.write(f"then: `systemctl enable --now tuned && tuned-adm profile {c.value}` (tuned reads "
                             "/etc/tuned/active_profile only when it starts; tuned-adm puts the profile in force now)\n")
    written = {id(c) for edit in found.files for c in edit.changes}  # a drop-in already in place needs no reload
    reloads = sorted({u for c in cs.changes if c.effect == "daemon-reload" and id(c) in written for u in c.units})
    if reloads:  # a drop-in written or removed is read by systemd only after daemon-reload, by the unit on its restart
        env.stdout.write(f"then: `systemctl daemon-reload && systemctl restart {' '.join(reloads)}` (systemd reads the "
                         "drop-ins only after daemon-reload, the service on its restart)\n")
    reload_pg = reload_settings(found.files)
    if reload_pg:  # written into PostgreSQL's files, not through psql: nothing has reloaded it
        env.stdout.write(f"then: `sudo -u postgres psql -c 'SELECT pg_reload_conf()'` on the host (PostgreSQL reads "
                         f"{', '.join(reload_pg)} from its files again on a reload; apply edits the files and reloads nothing)\n")
    for units, targets in restarts.items():
        env.stdout.write(f"needs a restart: {', '.join(targets)} take{'s' if len(targets) == 1 else ''} effect when "
                         f"{', '.join(units)} restarts, which the installer does not do when it changes nothing there: "
                         f"`systemctl restart {' '.join(units)}`\n")
    for command in getattr(cs, "commands", ()):  # what is not a value (THP, hammer settings): run by hand
        env.stdout.write(f"by hand: {redact_text(str(command))}\n")
    for what, advice in getattr(cs, "advice", ()):  # what to keep in mind (tuned turning THP back on)
        env.stdout.write(redact_text(f"keep in mind: {what}: {advice}") + "\n")
    if not args.write:
        if not found.empty:
            env.note("dry run: nothing written (add --write to apply, with backups and a journal)")
        return 0
    ran: tuple[int, int | None] | None = None
    if args.run_installer and found.installer and not _reads_custom_hiera(cs.release):
        # Satellite 6.2: the installer renders the files the set edits by hand, so it runs first and the edits are
        # made on what it wrote (else its run would drop them); the files are compared with the host again after it
        ran = _installer(found.installer, env)
        found = edits(cs, host, prefer=args.prefer, program=program)
        env.note("the installer ran (its --noop run first); the file edits are written after it, on the files it rendered")
    run_id = None
    if not found.empty or (args.run_installer and found.installer):  # the installer changes the host: a run too
        from shlex import quote  # start-up: only for `apply --write`

        run_id, journal = apply(host, found, cs.release, source=source,
                                by_hand=tuple(redact_text(str(c)) for c in getattr(cs, "commands", ())))
        env.note(f"applied run {run_id}: journal {host.path('/var/lib/foretune/runs')}/{run_id}/journal.json "
                 f"(undo: foretune apply --rollback {run_id}{' --root ' + quote(args.root) if args.root else ''})")
    if args.run_installer and found.installer:
        noop, real = ran if ran is not None else run_installer(found.installer, dict(env.environ))
        if run_id is not None:  # the journal says whether and how the installer ran
            from foretune.apply.journal import save  # start-up: only for `apply --run-installer`

            journal["installer"] = {**(journal.get("installer") or {}), "noop_status": noop, "status": real}
            save(host.path("/var/lib/foretune/runs") / run_id, journal)
        if ran is None:
            _installer_failed(noop, real)
            env.note("the installer ran (its --noop run first)")
    return 0


def _installer(command: str, env: Environment) -> tuple[int, int | None]:
    """Run the installer (its --noop run first); a failed run stops apply before anything is written."""
    from foretune.apply.journal import run_installer  # start-up: only for `apply --run-installer`

    noop, real = run_installer(command, dict(env.environ))
    _installer_failed(noop, real, " (no file edited)")
    return noop, real


def _installer_failed(noop: int, real: int | None, nothing: str = "") -> None:
    if noop != 0:
        raise InputError(f"the installer's --noop run failed (exit status {noop}): the installer was not run{nothing}")
    if real != 0:
        raise InputError(f"the installer failed (exit status {real}): see /var/log/foreman-installer/{nothing}")


def _said_comments(edit: Any, old: str, label: str, env: Environment) -> None:
    """The site's comments of custom-hiera.yaml that go with the keys the set removes, and the header that stays, named
    on stderr as render names them: nothing leaves the file unsaid."""
    removed = [c.target for c in edit.changes if c.channel == "custom-hiera" and c.op == "remove"]
    if not removed or not old.strip():
        return
    from foretune.host.redact import redact_text  # start-up: only when apply removes custom-hiera keys
    from foretune.render.merge import kept_header, owned_comments  # start-up: only when apply removes custom-hiera keys

    try:
        gone, header = owned_comments(old, removed)[2], kept_header(old, removed)
    except InputError:
        return
    for key, lines in gone.items():
        quoted = " / ".join(f'"{line.lstrip("#").strip()}"' for line in lines)
        env.warn(redact_text(f"{label}: {key}: the site's comment {quoted} goes with it"))
    for key, lines in header.items():
        quoted = " / ".join(f'"{line.lstrip("#").strip()}"' for line in lines)
        env.warn(redact_text(f"{label}: {key}: the comment {quoted} above it opens the file, so it stays as the file's header"))


def _refuse_removed(changes_file: str, cs: ChangeSet, host: Any) -> None:
    """Refuse, in one line, a change set file that sets a PostgreSQL setting the host's PostgreSQL (its data
    directory's PG_VERSION) no longer knows: it refuses to start with it (checkpoint_segments from 9.5)."""
    from foretune.apply.edits import _key_of, postgresql_file, setting_name  # start-up: only for `apply --changes`
    from foretune.knowledge.precedence import removed_settings  # start-up: only for `apply --changes`

    directory = host.pg_data_dir()
    data = host.read(f"{directory}/PG_VERSION") if directory else None
    version = data.decode("ascii", "replace").strip() if data else None
    if not version:  # the host's PostgreSQL is unknown: nothing to judge against
        return
    removed = removed_settings(version)
    for n, c in enumerate(cs.changes):
        if c.op != "set":
            continue
        if c.channel == "custom-hiera" and c.target == "postgresql::server::config_entries" and isinstance(c.value, dict):
            names = [str(k) for k in c.value]
        elif c.channel == "alter-system" or (c.channel == "custom-hiera" and c.target.startswith("postgresql::server::config_entries/")):
            names = [setting_name(c)]
        elif postgresql_file(c):
            names = [_key_of(str(c.value))]
        else:
            continue
        for name in names:
            if name in removed:
                raise InputError(f"{changes_file}: change {n + 1}: {c.tunable}: PostgreSQL {version} (the host's PG_VERSION) "
                                 f"no longer has {name} and refuses to start with it [{removed[name]}]: not applied; "
                                 "`foretune apply --audit` takes a stale one out")


def _refuse_unfit(changes_file: str, cs: ChangeSet, root: str | None, environ: dict[str, str]) -> None:
    """Refuse, in one line, a change set file whose installer command cannot run as given on the host: an installer
    option the release's installer no longer has (stale-hiera.yaml; the installer aborts on an unknown option), or a
    --tuning profile the installer's hardware check refuses on the host's CPUs and RAM."""
    from foretune.changes.build import installer_option  # start-up: only for `apply --changes`
    from foretune.errors import ForetuneError  # start-up: only for `apply --changes`
    from foretune.knowledge import hardware, load_data  # start-up: only for `apply --changes`
    from foretune.knowledge.model import SIZES  # start-up: only for `apply --changes`
    from foretune.knowledge.releases import resolve_release, version_key  # start-up: only for `apply --changes`
    from foretune.units import format_bytes  # start-up: only for `apply --changes`

    words = str(cs.release or "").split()
    try:
        release = resolve_release(words[0], words[1]) if len(words) >= 2 else None
    except (ForetuneError, ValueError, KeyError):
        release = None
    if release is None:  # a release foretune does not know: nothing to judge against
        return
    from foretune.facts import read_source  # start-up: only for `apply --changes`

    try:
        facts = read_source(root, environ=environ, tree=root is not None)
    except ForetuneError:
        facts = None
    try:
        host_release = resolve_release(str(facts.value("product")), str(facts.value("product_version")),
                                       foreman_version=facts.value("foreman_version")) \
            if facts is not None and facts.value("product") and facts.value("product_version") else None
    except (ForetuneError, ValueError, KeyError):
        host_release = None
    if host_release is not None and host_release.foreman_version != release.foreman_version:
        raise InputError(f"{changes_file}: a change set for {release.label}, but {root or 'this host'} runs "
                         f"{host_release.label}: its options and keys are that release's; plan one from this host "
                         f"(`foretune apply{' --root ' + root if root else ' --from live'}`): not applied")
    version = version_key(release.foreman_version)
    for n, c in enumerate(cs.changes):
        if c.channel != "installer" or c.op != "set":
            continue
        for entry in load_data("stale-hiera.yaml"):
            if version < version_key(entry["since"]) or ("before" in entry and version >= version_key(entry["before"])):
                continue
            pattern = str(entry["match"])
            option = installer_option(pattern.rstrip("*")) if "/" not in pattern else None
            if option and (c.target.startswith(option) if pattern.endswith("*") else c.target == option):
                raise InputError(f"{changes_file}: change {n + 1}: {c.target}: the installer of {release.label} has no "
                                 f"such option ({entry['reason']}) [{entry['citation']}]: not applied")
    profile = next(((n, c) for n, c in enumerate(cs.changes) if c.channel == "profile" and c.value in SIZES), None)
    if profile is None:
        return
    need = hardware.enforced(str(profile[1].value), release.foreman_version)
    if need is None:
        return
    if facts is None:
        return
    cpus, ram = facts.value("cpu_logical"), facts.value("ram_bytes")
    if not isinstance(cpus, int) or not isinstance(ram, int) or need.met_by(cpus, ram):
        return
    accepted = hardware.largest_accepted(cpus, ram, release.foreman_version, below=str(profile[1].value))
    raise InputError(f"{changes_file}: change {profile[0] + 1}: --tuning {profile[1].value}: the installer's hardware "
                     f"check refuses it on {root or 'this host'} ({cpus} CPUs, {format_bytes(ram)} RAM; it needs "
                     f"{need.cores} CPUs and {need.ram_gib:g} GiB) [{need.citation}]: not applied"
                     + (f"; the largest profile it accepts here: {accepted}" if accepted else ""))


def _refuse_input(changes_file: str, host: Any, paths: list[str]) -> None:
    """Never write over an input: the change set file must not be one of the files apply writes."""
    for path in paths:
        target = host.path(path)
        try:
            if os.path.samefile(target, changes_file):
                raise InputError(f"{target}: is the --changes input: refusing to write over it")
        except FileNotFoundError:
            continue


def _reads_custom_hiera(label: str) -> bool:
    """The release ``label`` names ("Satellite 6.2") has the installer read custom-hiera.yaml (True when unknown)."""
    from foretune.errors import ForetuneError  # start-up: only for an `apply` run with file edits
    from foretune.knowledge.releases import resolve_release  # start-up: only for an `apply` run with file edits

    words = str(label or "").split()
    try:
        release = resolve_release(words[0], words[1]) if len(words) >= 2 else None
    except (ForetuneError, ValueError, KeyError):  # a label foretune does not know: nothing to judge against
        return True
    return True if release is None else bool(release.features.custom_hiera)
