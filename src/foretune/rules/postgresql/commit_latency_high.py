"""Slow one-client pgbench read-write transactions measured by `foretune bench db --json`."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Basis, Context, Evidence, Outcome, Rule, Severity


class PgCommitLatencyHigh(Rule):
    id = "pg-commit-latency-high"
    title = "PostgreSQL commits quickly (pgbench)"
    component = "postgresql"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    basis = Basis.MEASURED
    unsafe_fix = True
    citations = ("bench-sat69-pgbench", "bench-estimate")

    def check(self, ctx: Context) -> Outcome:
        runs = [r for r in ctx.bench_results("db") if r.get("test") == "read-write" and r.get("lat_avg_ms") is not None]
        single = [r for r in runs if r.get("clients") == 1]
        if not single:
            return self.skipped("no one-client read-write pgbench result (run: foretune bench db --json > db.json; "
                                "audit --bench db.json)")
        evidence = tuple(Evidence("bench", f"pgbench {r['test']} {r['clients']} clients",
                                  f"{r['tps']} tps, {r['lat_avg_ms']} ms average") for r in runs)
        limit, latency = threshold("bench-db-commit-ms-warn"), max(r["lat_avg_ms"] for r in single)
        if latency <= limit:
            return self.passed(f"one-client read-write transactions take {latency} ms on average (limit {limit} ms)")
        return self.failed(f"one-client read-write transactions take {latency} ms on average (limit {limit} ms): "
                           "every Foreman, Candlepin and Pulp commit waits that long on the WAL flush",
                           current=latency, recommended=limit, evidence=evidence)


RULE = PgCommitLatencyHigh()
