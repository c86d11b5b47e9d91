"""``foretune audit``: check a live server, sosreport or snapshot and report findings with fixes."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format, positive, rule_names
from foretune.env import ExitStatus
from foretune.errors import InputError, UsageError
from foretune.term import plural

if TYPE_CHECKING:
    from foretune.audit.waivers import Waiver
    from foretune.env import Environment

SEVERITIES = ("info", "low", "medium", "high", "critical")


def host_command(args: argparse.Namespace) -> str:
    """The apply command that gives, on the host, the change set this audit wrote: its --hosts, and the rules it
    judged (--select, --ignore) and the findings it accepted (--waivers), which decide which fixes are in the set."""
    from shlex import quote  # start-up: only for `audit --output-dir`

    words = ["foretune apply --from live", *(["--hosts", str(args.hosts)] if args.hosts else []), "--audit",
             *(["--select", quote(",".join(args.select))] if args.select else []),
             *(["--ignore", quote(",".join(args.ignore))] if args.ignore else []),
             *(["--waivers", quote(args.waivers)] if args.waivers else [])]
    return " ".join(words)


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Check a live server (default), a sosreport directory or tarball, or a snapshot against "
                        "the rule catalogue: findings with evidence, severity, the exact fix and citations. Exit 0 when "
                        "nothing reaches --fail-on, 1 when something does, 2 for usage or input errors, 3 for an "
                        "internal error (a bug; `foretune --debug audit ...` shows the traceback).",
                        "foretune audit sosreport-sat.example.com-2026-11-20.tar.xz --hosts 12000 --format html --output audit.html")
    parser.add_argument("source", nargs="?", metavar="SOURCE", help="sosreport directory or tarball, or snapshot; default (or `live`): this host")
    parser.add_argument("--hosts", type=positive, help="managed hosts, when the source does not say")
    add_output(parser, ("text", "json", "html", "markdown", "hiera"), "text",
               help="report format: text (default), json, html, markdown, or hiera (the custom-hiera.yaml that fixes the "
                    "findings, merged into the source's own when it has one); --output's extension picks one")
    parser.add_argument("--select", type=rule_names, default=[], metavar="RULES", help="only these rule ids or components (comma list)")
    parser.add_argument("--ignore", type=rule_names, default=[], metavar="RULES", help="skip these rule ids or components (comma list)")
    parser.add_argument("--fail-on", choices=SEVERITIES, default="high",
                        help="lowest severity that makes the exit status 1 (default: high)")
    parser.add_argument("--waivers", metavar="FILE", help="YAML list of {rule, reason, expires: YYYY-MM-DD} accepted findings")
    parser.add_argument("--bench", action="append", default=[], metavar="FILE",
                        help="results of `foretune bench ... --json` to judge (repeatable)")
    parser.add_argument("--verbose", action="store_true", help="text format: list passed and skipped rules too")
    parser.add_argument("--output-dir", metavar="DIR", help="also write one coherent set of fixes into DIR (custom-hiera.yaml, "
                        "installer.sh, systemd drop-ins, sysctl.d, APPLY.md): the files `plan --from SOURCE --output-dir DIR` "
                        "writes, neither re-applying what the source has in force; the audit's set holds only the fixes "
                        "of its findings (and their advice), plan's also moves a value the audit accepts to the plan's "
                        "(a Puma worker count within the guide's range)")
    parser.add_argument("--out", dest="output_dir", help=argparse.SUPPRESS)  # short name, as in plan
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    import dataclasses  # start-up: only for an `audit` run, not --help
    import datetime  # start-up: only for an `audit` run, not --help

    from foretune.audit.combine import (  # start-up: only for an `audit` run, not --help
        fix_once,
        profile_consequences,
    )
    from foretune.audit.context import build_context  # start-up: only for an `audit` run, not --help
    from foretune.audit.judge import judge  # start-up: only for an `audit` run, not --help
    from foretune.audit.model import Report, redacted  # start-up: only for an `audit` run, not --help
    from foretune.audit.runner import select_rules  # start-up: only for an `audit` run, not --help
    from foretune.facts import read_source  # start-up: only for an `audit` run, not --help
    from foretune.logs.base import SAMPLE_MARK  # start-up: only for an `audit` run, not --help
    from foretune.rules.base import Severity, Status  # start-up: only for an `audit` run, not --help
    from foretune.rules.capacity.memory_over_ram import running_memory  # start-up: only for an `audit` run, not --help
    from foretune.rules.postgresql.max_connections_below_budget import (
        running_budget_parts,  # start-up: only for an `audit` run, not --help
    )
    from foretune.rules.registry import all_rules  # start-up: only for an `audit` run, not --help

    rules = select_rules(all_rules(), args.select, args.ignore)
    waivers: list[Waiver] = []
    if args.waivers:
        from foretune.audit.waivers import load_waivers  # start-up: only for an `audit` run, not --help

        waivers = load_waivers(args.waivers)
    bench: list[dict[str, Any]] = []
    if args.bench:
        from foretune.bench.results import load as load_bench  # start-up: only for an `audit` run, not --help

        bench = [load_bench(path) for path in args.bench]
    source = None if args.source in (None, "live") else args.source
    with env.read_progress(source) as progress:
        facts = read_source(source, hosts=args.hosts, progress=progress)
    if not facts.value("product"):
        if source is not None:  # a damaged archive says so first; on this host the warnings would only bury the line
            for problem in facts.problems:
                env.warn(problem)
        raise InputError(
            "no Foreman, Satellite, orcharhino or Capsule on this host (none of their packages is installed): nothing "
            "to audit; run `sos report` on the server or Capsule and audit that: foretune audit sosreport-HOST.tar.xz"
            if source is None else
            f"no Foreman, Satellite, orcharhino or Capsule packages in {facts.source_label}: nothing to audit; is it a "
            "sosreport of the server or Capsule (`sos report` run there)?")
    for problem in facts.problems:
        env.warn(problem)
    ctx, notes = build_context(facts, hosts=args.hosts, bench=bench)
    notes = [p for p in facts.problems if SAMPLE_MARK in p] + notes  # what the audit saw of a long production.log
    # a damaged archive: the report itself says the verdict may miss problems, not only a warning on stderr
    if facts.damage:
        notes = [f"the archive is damaged, so this audit is incomplete (rules that need what it lost were not judged; "
                 f"the verdict may miss problems): {facts.damage}", *notes]
    # waivers after combine (a waived root cause takes its symptoms); a profile move no counted finding asks for
    # (waived, not selected) is not made, and the findings are sized for the declared profile
    ctx, findings, warnings = judge(rules, all_rules(), ctx, waivers, datetime.date.today())
    for warning in warnings:
        env.warn(warning)
    pg_max = str((facts.value("postgresql") or {}).get("max_connections", ""))
    report = Report(source=facts.source_label, source_kind=facts.source_kind,
                    release=ctx.release.label if ctx.release else None, role=ctx.role, hosts=ctx.hosts,
                    profile=ctx.plan.profile if ctx.plan else None, findings=findings, notes=notes,
                    hostname=facts.value("hostname"), collected_at=facts.value("collected_at"),
                    ram_bytes=facts.value("ram_bytes"),
                    memory_budget=tuple((m.component, m.bytes) for m in running_memory(ctx)) if ctx.plan else (),
                    plan_memory=tuple((m.component, m.bytes) for m in (ctx.fix_plan or ctx.plan).memory) if ctx.plan else (),
                    plan_profile=ctx.fix_profile if ctx.plan and ctx.release and ctx.release.features.size_profiles
                    and ctx.role == "server" else None,
                    connection_budget=tuple(running_budget_parts(ctx)) if ctx.plan and ctx.role == "server" else (),
                    max_connections=int(pg_max) if pg_max.isdigit() else None,
                    available_bytes=(facts.value("memory_pressure") or {}).get("available_bytes"),
                    swap_used_bytes=(facts.value("swap") or {}).get("used_bytes"),
                    hosts_basis=ctx.host_figure.reason if ctx.host_figure else None,
                    profile_basis=ctx.profile_reason or None, damaged=facts.damage)
    report = redacted(report)
    fmt = output_format(args)
    if (args.output_dir or fmt == "hiera") and ctx.plan is None:
        raise UsageError(f"no fixes to write: {ctx.no_plan_reason}")
    if ctx.plan is not None:  # one change set: the fix lines, --format hiera and --output-dir all read it
        fixed = ctx.fix_plan or ctx.plan  # the plan at the profile the audit asks for: the findings' values are its
        changes = change_set(report, fixed, facts)
        report = dataclasses.replace(report, findings=_fix_lines(report.findings, changes, fixed,
                                                                 facts.value("custom_hiera") or {}))
        report = dataclasses.replace(report, findings=_tomcat_as_set(report.findings, changes, fixed))
        # a profile too small for the hosts: the values the profile change writes are its consequences, one finding
        report = dataclasses.replace(report, findings=profile_consequences(report.findings, (g[0] for g in changes.given)))
        fixed = _problems_as_judged(fixed, report.findings)
    report = dataclasses.replace(report, findings=fix_once(report.findings))  # the fix lines as printed, each once
    if args.output_dir or fmt == "hiera":
        from foretune.commands.plan import existing_hiera  # start-up: only for an `audit` run, not --help
        from foretune.render import outputs  # start-up: only for an `audit` run, not --help

        existing = existing_hiera(facts)
        if args.output_dir:
            from foretune.render.files import write_bundle  # start-up: only for an `audit` run, not --help

            for path in write_bundle(outputs.bundle(fixed, existing, changes, host_command(args)), args.output_dir, env.warn):
                env.note(f"wrote {path}")
    if fmt == "hiera":  # a release that reads no custom-hiera.yaml: the fragment that says so
        text = outputs.bundle(fixed, existing, changes).get("custom-hiera.yaml") or outputs.hiera_fragment(fixed, changes)
        if outputs.masked(existing) and fixed.release.features.custom_hiera:
            env.warn("the source's custom-hiera.yaml has masked secrets, so this prints only foretune's keys, not the "
                     "site's file merged: merge them into that file, never put this output in its place")
    else:
        text = render(report, fmt, color=env.color and not args.output, verbose=args.verbose,
                      width=None if args.output else env.width, generated=_generated(env), paper=_paper(env))
    emit(args, env, text, report.summary())
    errors = [f for f in report.findings if f.status == Status.ERROR]
    if errors:  # a rule crashed: the report stands, but the exit status must not read as "findings"
        env.warn(f"{plural(len(errors), 'rule')} failed with an internal error ({', '.join(f.rule_id for f in errors)}): exit status 3")
        return ExitStatus.INTERNAL
    threshold = Severity[args.fail_on.upper()]
    failing = [f for f in report.failing() if f.severity >= threshold]
    if not failing and report.damaged and report.judged_nothing():  # too little read to judge: an input error, not a pass
        env.warn(f"{facts.source_label}: the archive is damaged and nothing could be judged: exit status 2")
        return ExitStatus.USAGE
    return ExitStatus.FINDINGS if failing else ExitStatus.OK


def change_set(report: Any, plan: Any, facts: Any, lower_site: bool = False) -> Any:
    """The one change set that fixes the report's failing, unwaived findings (``foretune.changes.build.from_audit``)."""
    from foretune.changes.build import from_audit  # start-up: loaded with the outputs only
    from foretune.rules.base import Severity  # start-up: loaded with the outputs only

    critical = {f.rule_id for f in report.findings if f.counts and f.severity >= Severity.CRITICAL}
    return from_audit(((s.rule_id, s.fix_records) for f in report.findings if f.counts for s in (f, *f.symptoms)), plan, facts,
                      lower=critical, lower_site=lower_site)


# the plan's problem codes and the audit rule that judges the same problem on the box
_PROBLEM_RULES = {"puma-below-guide-range": "puma-workers-outside-range", "memory-over-ram": "memory-budget-over-ram",
                  "profile-too-small": "profile-too-small-for-hosts", "installer-will-refuse": "profile-too-small-for-hosts",
                  "hardware-below-profile": "hardware-below-profile", "development-profile": "development-profile-in-use",
                  "apache-workers-over-limit": "apache-workers-over-limit",
                  "connections-over-max": "pg-max-connections-below-budget",
                  "installer-connections-over-max": "pg-max-connections-below-budget"}


def _problems_as_judged(plan: Any, findings: list[Any]) -> Any:
    """The plan with each problem an audit finding also reports at that finding's severity (APPLY.md's "Fix these
    first" and the report give one severity per problem); a finding listed as a symptom counts under its root's. A
    problem whose rule the box passes (or whose finding is waived) is left out: what is in force there beats the plan's
    figure, and an accepted finding is not one to fix first. When a finding names the Puma worker count, a problem's
    own "run N workers fewer" is left out (one value per tunable)."""
    import re  # start-up: loaded with the outputs only

    from foretune.rules.base import Status  # start-up: loaded with the outputs only

    severity = {x.rule_id: f.severity.label for f in findings if f.counts for x in (f, *f.symptoms)}
    # a problem whose rule the box passes, or whose finding the site accepted (a waiver), is not one to fix first
    passed = {f.rule_id for f in findings if f.status == Status.PASS or f.waived}
    problems = tuple(p._replace(severity=severity.get(_PROBLEM_RULES.get(p.code, ""), p.severity)) for p in plan.problems
                     if _PROBLEM_RULES.get(p.code) not in passed)
    workers = {v for f in findings if f.counts for x in (f, *f.symptoms) for k, v in x.recommends
               if k in ("foreman::foreman_service_puma_workers", "--foreman-foreman-service-puma-workers")}
    if workers:  # a finding names the Puma worker count: the plan's "N workers fewer" would be a second one
        problems = tuple(p._replace(message=re.sub(r", or run \d+ Puma workers? fewer \(.*?\), which keeps even them within RAM",
                                                   "", p.message)) for p in problems)
    return plan._replace(problems=problems) if problems != plan.problems else plan


def _fix_lines(findings: list[Any], changes: Any, plan: Any, hiera: dict[str, Any] | None = None) -> list[Any]:
    """The findings with each hiera fix line showing the change set's value and channel (the same number everywhere).

    A value the installer run already writes at the profile is not pinned in custom-hiera: its fix is the installer
    command, with the values it writes named in a comment (one snippet for all of a finding's keys). A custom-hiera
    key that would shadow an installer option gets its own snippet: the command that deletes it from the file
    (``hiera``: the file's keys, which tell a one-line value from a hash)."""
    import dataclasses  # start-up: loaded with the outputs only

    from foretune.changes import build  # start-up: loaded with the outputs only
    from foretune.knowledge.precedence import PG_RESTART, pg_restart  # start-up: loaded with the outputs only
    from foretune.render.snippets import render_change, yaml_scalar  # start-up: loaded with the outputs only
    from foretune.report.actions import with_activation  # start-up: loaded with the outputs only

    by_target = {key: c for c in changes.changes if c.op == "set" for key in (c.target, c.tunable)}
    by_removal = {c.target: c for c in changes.changes if c.tunable.startswith("unshadow:")}
    # custom-hiera pins removed so the profile's own value applies (the change set's "given" values)
    unpinned = {c.target: c for c in changes.changes if c.channel == "custom-hiera" and c.op == "remove"
                and not c.tunable.startswith(("unshadow:", "stale:"))}
    profile = build.profile_change(changes)
    out = []
    for f in findings:
        if f.symptoms:  # a symptom's fix lines read the same change set
            f = dataclasses.replace(f, symptoms=tuple(_fix_lines(list(f.symptoms), changes, plan, hiera)))
        if not f.fix_records:
            activated = tuple(with_activation(list(f.fixes)))
            out.append(dataclasses.replace(f, fixes=activated) if activated != f.fixes else f)
            continue
        lines: list[str] = []
        deletes: list[tuple[str, str]] = []  # the custom-hiera keys to delete, and why: one command for them all
        given_here: list[tuple[str, Any, str]] = []
        for fix, line in zip(f.fix_records, f.fixes):
            change = by_target.get(fix.target) if fix.kind == "hiera" else None
            if change is None and fix.kind == "hiera":
                change = by_target.get(build.installer_option(fix.target) or "")
            given = next((g for g in changes.given if g[0] == fix.target), None) if change is None else None
            unpin = unpinned.get(fix.target) if change is None and fix.kind == "hiera" else None
            if unpin is not None:  # the file's name first, as every snippet of a file starts
                if DELETE_SLOT not in lines:
                    lines.append(DELETE_SLOT)
                if (unpin.target, unpin.reason) not in deletes:
                    deletes.append((unpin.target, unpin.reason))
            if given is not None:
                if given not in given_here:
                    given_here.append(given)
                continue
            if change is None and fix.kind == "hiera" and unpin is None:
                line = _unchanged_hiera(fix, line, plan)
                if not line:
                    continue
            text = render_change(change) if change is not None and change.op == "set" else line
            unshadow = by_removal.get(fix.target) if change is not None and change.channel == "installer" else None
            if unshadow is not None:
                if DELETE_SLOT not in lines:
                    lines.append(DELETE_SLOT)
                if (unshadow.target, unshadow.reason) not in deletes:
                    deletes.append((unshadow.target, unshadow.reason))
            for each in [text]:
                if each not in lines:
                    lines.append(each)
        if given_here:
            values = " and ".join(f"{key}/{inner}: {yaml_scalar(v)}" if isinstance(value, dict) else f"{key}: {yaml_scalar(value)}"
                                  for key, value, _ in given_here for inner, v in (value.items() if isinstance(value, dict) else [("", value)]))
            command = build.installer_program(plan) + (f" --tuning {profile.value}" if profile is not None else "")
            lines.append(f"# the {given_here[0][2]} profile writes {values}:\n{command}")
        if deletes:
            lines[lines.index(DELETE_SLOT)] = delete_snippet(build.HIERA_FILE, deletes, hiera or {})
        # a restart the installer run may not do comes after that run
        restart = {PG_RESTART, *(pg_restart(u) for c in changes.changes if c.channel == "alter-system" for u in c.units)}
        lines = [line for line in lines if line not in restart] + [line for line in lines if line in restart]
        lines = with_activation(lines)  # a drop-in or an installer-rewritten file, pasted alone, takes effect
        out.append(dataclasses.replace(f, fixes=tuple(lines)))
    return out


def _tomcat_as_set(findings: list[Any], changes: Any, plan: Any) -> list[Any]:
    """The findings with Candlepin's Tomcat maxThreads sized as the change set sizes it: for the Puma workers x
    threads the set leaves, when it changes the workers (APPLY.md's advice and the report give one value). When those
    fit puppet-candlepin's 150 the set asks for no edit, and neither does the finding."""
    import dataclasses  # start-up: loaded with the outputs only
    import re  # start-up: loaded with the outputs only

    from foretune.changes import build  # start-up: loaded with the outputs only

    sized = build.tomcat_sizing(changes, plan)
    if sized is None:
        return findings
    workers, threads = sized
    advice = dict(changes.advice).get(build.TOMCAT_SERVER_XML)

    def resized(f: Any) -> Any:
        if f.symptoms:
            f = dataclasses.replace(f, symptoms=tuple(resized(s) for s in f.symptoms))
        if not any(r.kind == "advice" and r.target == build.TOMCAT_SERVER_XML for r in f.fix_records):
            return f
        found = re.search(r"Puma's (\d+) workers x \d+ threads(?: once the hand-made drop-in is removed)? = \d+", f.message)
        after = workers * threads
        now = f" ({found.group(1)} run now)" if found and found.group(1) != str(workers) else ""
        message = re.sub(r"; sized for the \d+ Puma workers running now \([^)]*\)", "", f.message)
        if found:
            message = message.replace(found.group(0), f"Puma's {workers} workers x {threads} threads the change set leaves = "
                                                       f"{after}{now}")
        lines = tuple(line for line in f.fixes if "maxThreads=" not in line)
        if advice is None:  # they fit the 150 puppet-candlepin writes: no edit
            return dataclasses.replace(f, message=f"{message}; they fit puppet-candlepin's maxThreads {f.current}: no "
                                                  "server.xml edit once the change set is in", fixes=lines,
                                       recommended=f.current)
        # the rule's record of its advice carries the set's text too: the reports show the line as advice, not code
        records = tuple(r._replace(value=advice) if r.kind == "advice" and r.target == build.TOMCAT_SERVER_XML
                        else r for r in f.fix_records)
        return dataclasses.replace(f, message=message, fixes=(*lines, advice), recommended=after, fix_records=records)

    return [resized(f) for f in findings]


def delete_snippet(path: str, deletes: list[tuple[str, str]], hiera: dict[str, Any]) -> str:
    """The fix that deletes keys from the YAML file ``path`` (``deletes``: each key and why): a comment saying why,
    then the one sed command that does it (the file's name and the keys alone when a value spans lines, since a line
    edit could leave its lines behind)."""
    from foretune.knowledge.hiera_keys import backup_suffix, delete_command  # start-up: loaded with the outputs only

    keys = [key for key, _ in deletes]
    why = "; ".join(dict.fromkeys(reason for _, reason in deletes))
    command = delete_command(path, keys, hiera)
    if command is None:
        return f"# {path}\n# delete {', '.join(keys)} and the lines under {'it' if len(keys) == 1 else 'them'}: {why}"
    return f"# delete {', '.join(keys)} from {path} ({why}; the file before is kept as {path}{backup_suffix(keys)}):\n{command}"


DELETE_SLOT = "\0delete"  # where a finding's key deletions go among its fix lines, until they are one command


def _unchanged_hiera(fix: Any, line: str, plan: Any) -> str:
    """The fix line of a hiera fix the change set has no change for: nothing when the installer already puts that value
    in force (the site's answers or the profile give it), else the installer option where the release has one (a
    custom-hiera pin of an installer-managed key would lock out the option), else the custom-hiera line as it stands."""
    from foretune.changes import build  # start-up: loaded with the outputs only
    from foretune.knowledge.precedence import table  # start-up: loaded with the outputs only
    from foretune.knowledge.profiles import PG  # start-up: loaded with the outputs only
    from foretune.render.snippets import yaml_scalar  # start-up: loaded with the outputs only

    tunable = next((t for t in plan.tunables.values() if any(own.target == fix.target for own in t.fixes)), None)
    if tunable is not None and tunable.installer.value is not None and str(tunable.installer.value) == str(fix.value):
        return ""
    option = build.installer_option(fix.target) if not fix.target.startswith(PG + "/") else None
    if option and plan.release.features.custom_hiera and "answers" in table("installer", plan.release.foreman_version)["order"]:
        return f"{option} {yaml_scalar(fix.value)}"
    return line


def _paper(env: Environment) -> str | None:
    """The print page size the locale names (A4 or letter), for the HTML reports."""
    from foretune.report.page import paper_size  # start-up: only for a report

    return paper_size(env.environ)


def _generated(env: Environment) -> str:
    """Generation time for report headers; SOURCE_DATE_EPOCH fixes it for reproducible reports."""
    import datetime  # start-up: loads only when a report is dated

    epoch = env.environ.get("SOURCE_DATE_EPOCH", "")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc) if epoch.isdigit()
            else datetime.datetime.now(datetime.timezone.utc))
    return when.strftime("%Y-%m-%d %H:%M UTC")


def render(report: object, fmt: str, *, color: bool, verbose: bool, width: int | None = None,
           generated: str | None = None, paper: str | None = None) -> str:
    from foretune.audit.model import Report  # start-up: only for an `audit` run, not --help

    assert isinstance(report, Report)
    if fmt == "json":
        from foretune.report import json_report  # start-up: each report format loads only when chosen

        return json_report.render(report, generated)
    if fmt == "html":
        from foretune.report import html  # start-up: jinja2 and the HTML report load only for --format html

        return html.render(report, generated=generated, paper=paper)
    if fmt == "markdown":
        from foretune.report import markdown  # start-up: each report format loads only when chosen

        return markdown.render(report, generated=generated)
    from foretune.report import text  # start-up: rich loads only for the text report

    return text.render(report, color=color, verbose=verbose, width=width, generated=generated)
