"""Audits or report logs take far more space than their rows need: dead rows and free space (bloat)."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.plan.model import Fix
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.units import format_bytes, format_gib


class TableBloat(Rule):
    id = "pg-table-bloat"
    title = "audits and logs tables not bloated"
    component = "postgresql"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("foreman_table_sizes", "history_table_rows")
    citations = ("foretune-estimate",)

    def check(self, ctx: Context) -> Outcome:
        sizes, rows = ctx.facts.value("foreman_table_sizes"), ctx.facts.value("history_table_rows")
        per_row, floor = threshold("table_bytes_per_row_bloated"), threshold("table_bloat_min_bytes")
        checked, bloated = [], []
        for table in ("audits", "logs"):
            if table not in sizes or table not in rows:
                continue
            size, count = int(sizes[table]), int(rows[table])
            used = size / count if count else float("inf")
            shown = f"{table}: {format_gib(size)} for {count:,} rows" + (f" ({format_bytes(used, 'KiB', places=0)} per row)" if count else "")
            checked.append(shown)
            if size >= floor and used > per_row:
                bloated.append((table, shown))
        if not checked:
            return self.skipped("no table with both a size and a row count")
        if not bloated:
            return self.passed("; ".join(checked))
        autovacuum = str((ctx.facts.value("postgresql") or {}).get("autovacuum", "on")).strip("'\" ").lower()
        off = autovacuum in ("off", "false", "no", "0")
        why = (f"more than {format_bytes(per_row)} per live row (foretune estimate: a row needs a few KiB): the space "
               "is dead rows and free pages, which every sequential scan, backup and upgrade still reads")
        if off:
            why += "; autovacuum is off, so nothing reclaims it"
        tables = [t for t, _ in bloated]
        return self.failed(f"{'; '.join(s for _, s in bloated)}: {why}",
                           current="; ".join(s for _, s in bloated),
                           recommended=f"<= {format_bytes(per_row)} per row",
                           evidence=ctx.evidence("foreman_table_sizes", about=tuple(tables), whole=True)
                           + ctx.evidence("history_table_rows", about=tuple(tables)),
                           fixes=tuple(Fix("command", f"su - postgres -c 'vacuumdb --full --table={t} foreman'")
                                       for t in tables),
                           severity=Severity.MEDIUM if off else None)


RULE = TableBloat()
