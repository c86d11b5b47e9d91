"""Slow WAL-like flushes or random reads measured by `foretune bench storage --json`."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Basis, Context, Evidence, Outcome, Rule, Severity
from foretune.units import format_bytes

# bench job -> (threshold key of its limit, threshold key of its block size, what the figure is)
JOBS = {"fsync-write": ("bench-fsync-p99-warn", "bench-fsync-block", "{} writes each followed by fdatasync"),
        "lat-qd1": ("bench-lat-qd1-p99-warn", "bench-lat-block", "random {} reads, one at a time")}


def _what(job: str) -> str:
    """What a job's figure measures, with the block size bench uses for it."""
    _, block, words = JOBS[job]
    return words.format(format_bytes(threshold(block)))


class StorageLatencyHigh(Rule):
    id = "storage-latency-high"
    title = "Storage flush and read latency are low enough for PostgreSQL"
    component = "storage"
    severity = Severity.MEDIUM
    version_added = "0.1.0"
    basis = Basis.MEASURED
    unsafe_fix = True
    citations = ("bench-estimate", "bench-pg-wal-block", "gf-hardware")

    def check(self, ctx: Context) -> Outcome:
        measured = [r for r in ctx.bench_results("storage") if r.get("job") in JOBS and r.get("lat_p99_ms") is not None]
        if not measured:
            return self.skipped("no latency results (run: foretune bench storage --json > bench.json; audit --bench bench.json)")
        evidence = tuple(Evidence("bench", f"{r['directory']} {r['job']}", f"p99 {r['lat_p99_ms']} ms") for r in measured)
        limits = [(r, threshold(JOBS[r["job"]][0])) for r in measured]
        slow = [(r, limit) for r, limit in limits if r["lat_p99_ms"] > limit]
        if not slow:
            worst = max(measured, key=lambda r: r["lat_p99_ms"])
            return self.passed(f"highest 99th percentile {worst['lat_p99_ms']} ms ({worst['directory']} {worst['job']})")
        result, limit = max(slow, key=lambda pair: pair[0]["lat_p99_ms"] / pair[1])
        return self.failed(f"{result['directory']}: 99 % of {_what(result['job'])} take up to {result['lat_p99_ms']} ms "
                           f"(limit {limit} ms): PostgreSQL commits and queries wait on the disk",
                           current=result["lat_p99_ms"], recommended=limit, evidence=evidence)


RULE = StorageLatencyHigh()
