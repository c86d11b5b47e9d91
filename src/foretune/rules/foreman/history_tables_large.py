"""The task and audit history tables have grown large: nobody cleans them up."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.units import format_gib


class HistoryTablesLarge(Rule):
    id = "history-tables-large"
    title = "Task and audit history tables cleaned up"
    component = "foreman"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("foreman_table_sizes",)
    citations = ("foretune-estimate",)

    def check(self, ctx: Context) -> Outcome:
        sizes = ctx.facts.value("foreman_table_sizes")
        task_tables = sorted((k for k in sizes if k.startswith(("dynflow_", "foreman_tasks_"))), key=lambda k: -sizes[k])
        tasks = sum(sizes[k] for k in task_tables)
        audits = sum(v for k, v in sizes.items() if k == "audits")
        found, fixes, flagged, quoted = [], [], 0, []
        if tasks >= threshold("task_tables_large_bytes"):
            flagged += tasks
            found.append(f"dynflow and foreman_tasks tables {format_gib(tasks)} "
                         f"({', '.join(f'{k} {format_gib(sizes[k])}' for k in task_tables)})")
            fixes.append(Fix("command", "foreman-rake foreman_tasks:cleanup AFTER=30d STATES=stopped VERBOSE=true"))
            quoted += task_tables
        if audits >= threshold("audit_tables_large_bytes"):
            flagged += audits
            found.append(f"audits {format_gib(audits)}")
            fixes.append(Fix("command", "foreman-rake audits:expire days=90"))
            quoted.append("audits")
        if not found:
            return self.passed(f"task tables {format_gib(tasks)}, audits {format_gib(audits)}")
        return self.failed(f"{' and '.join(found)}: history slows the task UI, cleanup jobs, backups and upgrades",
                           current=int(flagged), recommended=f"< {format_gib(threshold('task_tables_large_bytes'))} each",
                           evidence=ctx.evidence("foreman_table_sizes", about=tuple(quoted), whole=True),
                           fixes=tuple(fixes))

RULE = HistoryTablesLarge()
