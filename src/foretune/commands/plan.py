"""``foretune plan``: the profile and every tunable for a box and workload."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, Any

from foretune.cli import new_parser
from foretune.commands._options import add_output, add_product_version, count, cpus, emit, output_format, positive, size
from foretune.env import ExitStatus
from foretune.errors import UsageError

if TYPE_CHECKING:
    from foretune.env import Environment

FORMATS = ("table", "json", "hiera", "installer", "markdown", "html")
SEVERITIES = ("info", "low", "medium", "high", "critical")


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Pick the tuning profile for a box and workload and compute every tunable: what the "
                        "installer gives and what foretune recommends, with reasons and citations, a connection "
                        "budget, a memory budget and consistency problems.",
                        "foretune plan --product satellite --version 6.15 --hosts 12000 --cpus 16 --ram 64G")
    add_plan_arguments(parser)
    out = parser.add_argument_group("output")
    add_output(out, FORMATS, "table", help="table (default), json (schema foretune-plan/1), hiera (custom-hiera fragment), "
                                           "installer (command line), markdown (for a ticket), html (one self-contained page); --output's "
                                           "extension (.json, .yaml, .sh, .txt, .md, .html) picks one")
    out.add_argument("--changed-only", action="store_true",
                     help="table: only the tunables foretune changes (fits 80 columns better)")
    out.add_argument("--explain", metavar="TUNABLE",
                     help="print the quote, the source and the arithmetic behind one tunable's value (e.g. puma.threads_max)")
    out.add_argument("--output-dir", metavar="DIR", help="write everything to apply into DIR (custom-hiera.yaml, installer.sh, "
                                                         "systemd drop-ins, sysctl.d, os-commands.sh, APPLY.md)")
    out.add_argument("--out", dest="output_dir", help=argparse.SUPPRESS)  # earlier name of --output-dir
    out.add_argument("--fail-on", choices=SEVERITIES, metavar="{" + ",".join(SEVERITIES) + "}",
                     help="exit 1 when a plan problem has this severity or higher, as audit does (default: never)")
    return parser


def add_plan_arguments(parser: argparse.ArgumentParser) -> None:
    """Options describing the box and workload (shared by plan and render)."""
    box = parser.add_argument_group("product and box")
    box.add_argument("--from", dest="source", metavar="SOURCE",
                     help="read product, version, role, CPUs, RAM and hosts from a sosreport, snapshot or 'live'; "
                          "options given here win")
    box.add_argument("--product", choices=("foreman", "satellite", "orcharhino"))
    add_product_version(box)
    box.add_argument("--role", choices=("server", "capsule"))
    box.add_argument("--no-katello", dest="katello", action="store_false", default=None,
                     help="plain Foreman without Katello: no --tuning profiles, Candlepin or Pulp")
    box.add_argument("--cpus", type=cpus, help="logical CPUs")
    box.add_argument("--physical-cores", type=cpus, help="physical cores (Passenger sizing); default: --cpus")
    box.add_argument("--ram", type=size, metavar="SIZE", help="RAM, e.g. 64G, 64GiB, 65536M")
    virt = box.add_mutually_exclusive_group()
    virt.add_argument("--virtual", dest="virtual", action="store_true", default=None, help="the box is a VM")
    virt.add_argument("--bare-metal", dest="virtual", action="store_false", help="the box is bare metal")
    work = parser.add_argument_group("workload")
    work.add_argument("--hosts", type=positive, help="managed hosts (content hosts) this box serves")
    work.add_argument("--rex", choices=("ssh", "pull-mqtt"), help="remote execution transport (default ssh)")
    work.add_argument("--rex-hosts", type=count, help="hosts using pull-based REX (default: all with --rex pull-mqtt)")
    work.add_argument("--katello-agent-hosts", type=count, help="hosts running katello-agent/goferd (qpid era)")
    work.add_argument("--puppet-hosts", type=count, help="hosts running the Puppet agent against this box")
    work.add_argument("--puppet-runinterval", type=positive, metavar="SECONDS")
    work.add_argument("--profile", choices=("development", "default", "medium", "large", "extra-large", "extra-extra-large"),
                      help="use this tuning profile instead of the one for the host count")


def plan_options(args: argparse.Namespace) -> str:
    """The plan inputs given on the command line, as options that give the same plan again on the host (every option
    of ``add_plan_arguments`` but ``--from``: each changes the plan, and ``apply --from live`` reads the rest from the
    host), e.g. `` --product satellite --version 6.15 --cpus 16 --ram 64G --hosts 15000``; "" when none was given."""
    from shlex import quote  # start-up: only when a bundle names its host-side command

    from foretune.units import GIB, MIB  # start-up: only when a bundle names its host-side command

    parser = argparse.ArgumentParser(add_help=False)
    add_plan_arguments(parser)
    words: list[str] = []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        if action.dest == "source" or value is None or not action.option_strings:
            continue
        if action.nargs == 0:  # a switch (--virtual/--bare-metal, --no-katello): the one whose constant is the value
            if action.const == value and action.default != value:
                words.append(action.option_strings[0])
            continue
        if action.dest == "ram":  # bytes again as the --ram the admin wrote (a bare number is bytes with B)
            value = next((f"{value // unit}{suffix}" for unit, suffix in ((GIB, "G"), (MIB, "M")) if value % unit == 0),
                         f"{value}B")
        words += [action.option_strings[0], quote(str(value))]
    return "".join(" " + word for word in words)


def plan_from_args(args: argparse.Namespace, env: Environment) -> object:
    """Build the Plan a change set is built from: from options, and from --from facts when given."""
    return plan_and_facts(args, env, for_changes=True)[0]


def plan_and_facts(args: argparse.Namespace, env: Environment, for_changes: bool = False) -> tuple[object, object]:
    """The Plan and, with --from, the facts it was built from (else None).

    With --from the plan is chosen exactly as ``audit`` chooses it (declared profile, host figure); ``for_changes``:
    the plan a change set is built from, the same as `audit --output-dir` (``foretune.plan.choose.change_plan``).
    """
    from foretune.plan import PlanInput, make_plan  # start-up: the planner, only when a plan is made

    fields = {
        "product": args.product, "version": args.version, "role": args.role, "cpus": args.cpus, "ram_bytes": args.ram,
        "physical_cores": args.physical_cores, "virtual": args.virtual, "rex": args.rex, "rex_hosts": args.rex_hosts,
        "katello_agent_hosts": args.katello_agent_hosts, "puppet_hosts": args.puppet_hosts,
        "puppet_runinterval": args.puppet_runinterval, "profile": args.profile, "katello": args.katello,
    }
    given = {k: v for k, v in fields.items() if v is not None}
    if args.rex_hosts is not None and args.rex is None:
        given["rex"] = "pull-mqtt"
    if args.source:
        from foretune.facts import read_source  # start-up: the facts layer loads only for plan --from
        from foretune.plan.choose import choose_plan  # start-up: the planner, only when a plan is made

        source = None if args.source == "live" else args.source
        with env.read_progress(source) as progress:
            facts = read_source(source, hosts=args.hosts, progress=progress,
                                tree=bool(getattr(args, "root", None)) and source == getattr(args, "root", None))
        for problem in facts.problems:
            env.warn(problem)
        choice = choose_plan(facts, hosts=args.hosts, **given)
        tree = bool(getattr(args, "root", None)) and source == getattr(args, "root", None)
        if choice.plan is None and tree and not facts.value("product") and not (args.product and args.version):  # no package list
            raise UsageError(f"cannot plan from {facts.source_label}: it lists no installed packages (a plain tree, not a "
                             "sosreport): give --product and --version (and --cpus, --ram, --hosts), or --changes FILE")
        if choice.plan is None:
            raise UsageError(f"cannot plan from {facts.source_label}: " + "; ".join(choice.notes))
        if choice.figure.assumed:
            env.note(f"host figure {choice.figure.count}: {choice.figure.reason} (give --hosts)")
        from foretune.plan.measured import hold_when_short, measured_shortage  # start-up: only for plan --from

        short = measured_shortage(facts)  # a box short of memory now: no raise of what takes more, as the audit holds it
        if for_changes:
            from foretune.plan.choose import change_plan  # start-up: the planner, only when a plan is made

            return hold_when_short(change_plan(facts, hosts=args.hosts, **given) or choice.plan, short), facts
        return hold_when_short(choice.plan, short), facts
    missing = [f"--{name}" for name, value in (("product", args.product), ("version", args.version), ("hosts", args.hosts),
                                                ("cpus", args.cpus), ("ram", args.ram)) if value is None]
    if missing:
        raise UsageError(f"missing {', '.join(missing)} (or read {'them' if len(missing) > 1 else 'it'} from a source with --from)")
    if "katello_agent_hosts" not in given and given.get("katello") is not False and _qpid(args.product, args.version) == "opt-in":
        args.agents_opt_in = True  # katello-agent is off unless enabled: nothing to assume, said by note_assumed
    elif "katello_agent_hosts" not in given and given.get("katello") is not False and _qpid(args.product, args.version):
        # as with --from: without a count every content host is taken to run katello-agent, the guides' "N content
        # hosts", so the qpid limits cover the worst case rather than sizing for none
        given["katello_agent_hosts"] = args.hosts
        args.agents_assumed = args.hosts  # said by the command once its own checks passed (note_assumed)
    return make_plan(PlanInput(hosts=args.hosts, **given)), None


def note_assumed(args: argparse.Namespace, env: Environment) -> None:
    """Say the katello-agent host count the plan assumed (plan_and_facts), if it assumed one."""
    hosts = getattr(args, "agents_assumed", None)
    if getattr(args, "agents_opt_in", False):
        env.note("katello-agent hosts: none assumed: this release runs qpidd and qdrouterd only with "
                 "--foreman-proxy-content-enable-katello-agent true (the default is false; an upgrade keeps it on where "
                 "it was); give --katello-agent-hosts N if it is enabled")
    if hosts:
        env.note(f"katello-agent hosts: every one of the {hosts} content hosts is assumed to run katello-agent on this "
                 "qpid release (the guides size qpid for N content hosts); give --katello-agent-hosts for the real count")


def _qpid(product: str, version: str) -> bool | str:
    """The release runs qpid (katello-agent): True, "opt-in" where the installer enables it only when asked (from
    foreman-installer 2.5); False when it has none or the release is unknown (make_plan then says why)."""
    from foretune.knowledge.releases import resolve_release  # start-up: the release table, only when a plan is made

    try:
        features = resolve_release(product, version).features
    except UsageError:
        return False
    return "opt-in" if features.qpid and features.server_qpid_opt_in else bool(features.qpid)


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.plan.model import Plan  # start-up: only for a `plan` run, not --help
    from foretune.render import outputs  # start-up: only for a `plan` run, not --help

    fmt = output_format(args)
    # every format shows the plan the change set is built from: with --from, the profile the hosts move to
    plan, facts = plan_and_facts(args, env, for_changes=True)
    assert isinstance(plan, Plan)
    note_assumed(args, env)
    changes = None
    if args.output_dir or fmt in ("hiera", "installer", "markdown", "html"):
        from foretune.changes.build import from_plan  # start-up: only for what applies changes, not the table
        from foretune.commands._measured import audit_lowers  # start-up: only for what applies changes, not the table

        changes = from_plan(plan, facts)  # one change set for every output that applies it
        changes = audit_lowers(changes, facts, args.hosts, _audit_command(args))
        if facts is not None:  # from a source: what it has in force is not applied again, as the audit's set has it
            from foretune.changes.in_force import without_in_force  # start-up: only for what applies changes

            changes = without_in_force(changes, facts)
    from foretune.plan.refused import applicable_plan  # start-up: only for a `plan` run, not --help

    plan = applicable_plan(plan)  # a profile the installer refuses: the values of the one it accepts, as the set has
    plan = measured_problem(plan, facts, args.source)
    if args.explain:
        from foretune.render import explain  # start-up: only for a `plan` run, not --help

        emit(args, env, explain.render(plan, args.explain))
        return 0
    if args.output_dir:
        from foretune.render.files import write_bundle  # start-up: only for a `plan` run, not --help

        for path in write_bundle(outputs.bundle(plan, existing_hiera(facts), changes, "foretune apply --from live" +
                                                plan_options(args)), args.output_dir, env.warn):
            env.note(f"wrote {path}")
    given: Any = facts  # the FactSet of --from, or None (facts.model would load dataclasses)
    from foretune.commands.audit import _generated  # start-up: only for a `plan` run, not --help
    from foretune.render.plan_summary import About  # start-up: only for a `plan` run, not --help

    about = About(host=given.value("hostname") if given is not None else None,
                  collected=given.value("collected_at") if given is not None else None,
                  generated=_generated(env), command=rerun_command(args))
    if fmt == "json":
        from foretune.render import plan_json  # start-up: only for a `plan` run, not --help

        text = plan_json.dumps(plan, {"host": about.host, "collected_at": about.collected, "generated_at": about.generated},
                               command=about.command)
    elif fmt == "hiera":
        text = outputs.hiera_fragment(plan, changes)
    elif fmt == "installer":
        text = outputs.installer_text(plan, changes) + "\n"
    elif fmt in ("markdown", "html"):
        from foretune.commands.audit import _paper  # start-up: only for a plan report, not --help
        from foretune.report import plan_report  # start-up: each report format loads only when chosen

        text = (plan_report.markdown(plan, about=about, changes=changes) if fmt == "markdown"
                else plan_report.html(plan, about=about, paper=_paper(env), changes=changes))
    else:
        from foretune.render import plan_table  # start-up: only for a `plan` run, not --help

        text = plan_table.render(plan, color=env.color and not args.output, width=None if args.output else env.width,
                                 changed_only=args.changed_only, about=about)
    emit(args, env, text)
    return _status(plan, args.fail_on)


def measured_problem(plan: Any, facts: Any, source: str | None) -> Any:
    """``plan`` with the memory shortage its source measures now as a problem (a plan made for the budget would
    otherwise say "no problems" of a box that swaps): critical with OOM kills (a measured failure), high without."""
    from foretune.plan.measured import measured_shortage  # start-up: only for `plan --from`
    from foretune.plan.model import Problem  # start-up: only for `plan --from`

    short = measured_shortage(facts)
    if not short:
        return plan
    from shlex import quote  # start-up: only for `plan --from` on a box short of memory

    from foretune.term import clean_line  # start-up: only for `plan --from` on a box short of memory

    problem = Problem("critical" if "OOM kill" in short else "high", "memory-short-measured",
                      f"the box measures {short}: it is short of memory now, so the change set raises no memory "
                      f"tunable until memory is freed or added; `foretune audit {clean_line(quote(source or 'live'))}` names what "
                      "holds it", ("g62-memory",))
    return plan._replace(problems=(*plan.problems, problem))


def rerun_command(args: argparse.Namespace) -> str:
    """The command that writes everything this plan applies: ``foretune plan`` with the same source and plan options,
    and ``--output-dir plan/`` (a source name that would not paste as one word is named SOURCE instead).

    >>> rerun_command(argparse.Namespace(source="sosreport-x.tar.xz", hosts=12000))
    'foretune plan --from sosreport-x.tar.xz --hosts 12000 --output-dir plan/'
    """
    source = ""
    if getattr(args, "source", None):
        source = " --from " + (args.source if re.fullmatch(r"[A-Za-z0-9._/:@+=,-]+", args.source) else "SOURCE")
    return f"foretune plan{source}{plan_options(args)} --output-dir plan/"


def _audit_command(args: argparse.Namespace) -> str:
    """The command that writes the audit's change set of the same source (what a kept site value points to)."""
    from shlex import quote  # start-up: only when a site value is kept

    hosts = f" --hosts {args.hosts}" if args.hosts else ""
    return f"`foretune audit {quote(args.source or 'live')}{hosts} --output-dir fixes/` writes the set that does it"


def _status(plan: object, fail_on: str | None) -> int:
    """1 when a plan problem reaches ``--fail-on``, like audit's findings; 0 otherwise."""
    from foretune.plan.model import Plan  # start-up: only for a `plan` run, not --help

    assert isinstance(plan, Plan)
    if fail_on is None:
        return ExitStatus.OK
    rank = SEVERITIES.index(fail_on)
    failing = [p for p in plan.problems if p.severity in SEVERITIES and SEVERITIES.index(p.severity) >= rank]
    return ExitStatus.FINDINGS if failing else ExitStatus.OK


def existing_hiera(facts: object) -> str | None:
    """The source's custom-hiera.yaml text (secrets redacted), which ``--out`` merges into."""
    from foretune.facts.model import FactSet  # start-up: loads only when a plan is compared with existing hiera

    if not isinstance(facts, FactSet):
        return None
    text = facts.value("custom_hiera_text")
    return text if isinstance(text, str) else None
