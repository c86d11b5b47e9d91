"""What the plan comes to, in a line, and what to do with it: shared by the plan table and the plan's Markdown and
HTML reports, so every format says the same."""

from __future__ import annotations

from typing import NamedTuple

from foretune import __version__
from foretune.changes.build import installer_program
from foretune.plan.model import Plan
from foretune.render.outputs import dropins, sysctl_file
from foretune.term import plural

SEVERITIES = ("critical", "high", "medium", "low", "info")
# what re-runs a plan when the command line is not known (a plan made in code): the options stay the reader's
SAME_OPTIONS = "foretune plan ... --output-dir plan/"


class About(NamedTuple):
    """Who and when, as every plan format's header gives it: the host and collection date of --from (None: planned
    from options), when the plan was made and by which foretune, and the command that writes everything to apply."""

    host: str | None = None
    collected: str | None = None
    generated: str = ""
    version: str = __version__
    command: str = SAME_OPTIONS


NO_ABOUT = About()  # a plan made in code: no host, no date


def identity(plan: Plan, about: About) -> list[tuple[str, str]]:
    """The header's fields, (name, value), in every plan format's order.

    >>> from foretune.plan import PlanInput, make_plan
    >>> plan = make_plan(PlanInput(product="satellite", version="6.15", hosts=1, cpus=8, ram_bytes=32 * 2**30))
    >>> identity(plan, About(generated="2023-11-14 22:13 UTC", version="9.9"))[:2]
    [('Host', 'none (planned from options)'), ('Product', 'Satellite 6.15 (Foreman 3.9), server')]
    """
    host = about.host or ("unknown" if about.collected else "none (planned from options)")
    generated = f"{about.generated} by foretune {about.version}" if about.generated else f"by foretune {about.version}"
    return [("Host", host), ("Product", f"{plan.release.label}, {plan.input.role}"),
            *([("Collected", about.collected)] if about.collected else []), ("Generated", generated)]


def verdict(plan: Plan) -> str:
    """One line: how many values change and the plan's problems, worst first.

    The wording follows the audit's verdict, so both reports read alike."""
    changed = sum(1 for t in plan.tunables.values() if t.differs)
    counts = [f"{sum(1 for p in plan.problems if p.severity == s)} {s}" for s in SEVERITIES
              if any(p.severity == s for p in plan.problems)]
    problems = f"{plural(len(plan.problems), 'problem')} ({', '.join(counts)})" if plan.problems else "no problems"
    return f"{plural(changed, 'value')} to change from the installer's, {problems}"


def written(plan: Plan) -> str:
    """What ``--output-dir`` writes for ``plan``, in the order APPLY.md takes it: only the files it does write (a
    release that reads no custom-hiera.yaml gets none, and file edits after the installer instead).

    >>> from foretune.plan import PlanInput, make_plan
    >>> written(make_plan(PlanInput(product="satellite", version="6.2", hosts=100, cpus=8, ram_bytes=32 * 2**30)))
    'installer.sh, the file edits, drop-ins, sysctl and commands'
    """
    from foretune.render.outputs import written_kinds  # start-up: only when What next is written

    names = written_kinds(plan)
    if not plan.release.features.custom_hiera:
        names.insert(names.index("installer.sh") + 1 if "installer.sh" in names else 0, "the file edits")
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)


def what_next(plan: Plan, command: str = SAME_OPTIONS) -> list[str]:
    """Apply, restart, check again; ``command`` writes everything to apply (this plan's options with --output-dir)."""
    steps = [f"Write everything to apply: `{command}`, then follow plan/APPLY.md ({written(plan)}, in order)."]
    if plan.release.features.custom_hiera:
        steps.append(f"Run `{installer_program(plan)}` after merging custom-hiera.yaml: it restarts the services it "
                     "reconfigures.")
    else:  # no custom-hiera.yaml: the installer's options (kept in its answers file), then edits of the files it writes
        steps.append(f"{plan.release.label} reads no custom-hiera.yaml: run `{installer_program(plan)}` with the options in "
                     "installer.sh (its answers file keeps them), then make the file edits APPLY.md lists and restart the "
                     "services it names; the next installer run overwrites those edits, so repeat them after it.")
    units = sorted({path.split("/")[4].removesuffix(".service.d") for path in dropins(plan)})
    if units:
        steps.append(f"After the systemd drop-ins: `systemctl daemon-reload`, then restart {', '.join(units)}.")
    if sysctl_file(plan):
        steps.append("After the sysctl file: `sysctl --system` (no restart needed).")
    if plan.problems:
        steps.append("Settle the problems above first: they say where the plan does not fit this box.")
    steps.append("Check the result with `foretune audit live` on the box (or on a new sosreport): the changed values should "
                 "no longer show as findings.")
    return steps
