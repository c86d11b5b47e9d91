"""Old paused tasks pile up."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.term import plural


class PausedTasksBacklog(Rule):
    id = "paused-tasks-backlog"
    title = "No backlog of old paused tasks"
    component = "foreman"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("tasks",)
    citations = ("foretune-estimate",)

    def check(self, ctx: Context) -> Outcome:
        old = ctx.facts.value("tasks").get("old_paused")
        limit = threshold("old_paused_tasks_max")
        if old is None:
            return self.skipped("paused task age unknown")
        if old <= limit:
            return self.passed(f"{plural(old, 'paused task')} older than 30 days")
        return self.failed(f"{plural(old, 'paused task')} older than 30 days slow the task tables and Dynflow",
                           current=old, recommended=f"<= {limit}", evidence=ctx.evidence("tasks"),
                           fixes=(Fix("command", "foreman-rake foreman_tasks:cleanup TASK_SEARCH='state = paused' AFTER=30d VERBOSE=true"),))


RULE = PausedTasksBacklog()
