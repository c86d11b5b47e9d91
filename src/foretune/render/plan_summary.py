"""What the plan comes to, in a line, and what to do with it: shared by the plan table and the plan's Markdown and
HTML reports, so every format says the same."""

from __future__ import annotations

from foretune.changes.build import installer_program
from foretune.plan.model import Plan
from foretune.render.outputs import dropins, sysctl_file
from foretune.term import plural

SEVERITIES = ("critical", "high", "medium", "low", "info")


def verdict(plan: Plan) -> str:
    """One line: how many values change and the plan's problems, worst first.

    The wording follows the audit's verdict, so both reports read alike."""
    changed = sum(1 for t in plan.tunables.values() if t.differs)
    counts = [f"{sum(1 for p in plan.problems if p.severity == s)} {s}" for s in SEVERITIES
              if any(p.severity == s for p in plan.problems)]
    problems = f"{plural(len(plan.problems), 'problem')} ({', '.join(counts)})" if plan.problems else "no problems"
    return f"{plural(changed, 'value')} to change from the installer's, {problems}"


def what_next(plan: Plan) -> list[str]:
    """Apply, restart, check again."""
    steps = ["Write everything to apply: the same `foretune plan` options with `--output-dir plan/`, then follow "
             "plan/APPLY.md (custom-hiera.yaml, installer.sh, drop-ins, sysctl and commands, in order)."]
    if plan.release.features.custom_hiera:
        steps.append(f"Run `{installer_program(plan)}` after merging custom-hiera.yaml: it restarts the services it "
                     "reconfigures.")
    else:
        steps.append(f"{plan.release.label} reads no custom-hiera.yaml: APPLY.md lists the file edits and the services to "
                     "restart; the next installer run overwrites them.")
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
