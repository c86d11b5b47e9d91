"""Measured read throughput below the guide's minimum (from `foretune bench storage --json`)."""

from __future__ import annotations

from foretune.knowledge import threshold
from foretune.rules.base import Basis, Context, Evidence, Outcome, Rule, Severity


class StorageThroughputLow(Rule):
    id = "storage-throughput-low"
    title = "Storage read throughput meets the guide"
    component = "storage"
    severity = Severity.HIGH
    version_added = "0.1.0"
    basis = Basis.MEASURED
    unsafe_fix = True
    citations = ("gf-hardware",)

    def check(self, ctx: Context) -> Outcome:
        reads = [r for r in ctx.bench_results("storage")
                 if r.get("job") in ("quick-seq-read", "seq-read") and r.get("read_mb_s") is not None]
        if not reads:
            return self.skipped("no storage benchmark results (run: foretune bench storage --json > bench.json; audit --bench bench.json)")
        minimum, upper = threshold("storage_read_min_mb_s"), threshold("storage_read_required_upper_mb_s")
        expected = threshold("storage_read_expected_mb_s")
        slowest = min(reads, key=lambda r: r["read_mb_s"])
        evidence = tuple(Evidence("bench", f"{r['directory']} {r['job']}", f"{r['read_mb_s']:.0f} MB/s") for r in reads)
        speed = slowest["read_mb_s"]
        if speed >= expected:
            return self.passed(f"slowest sequential read {speed:.0f} MB/s ({slowest['directory']})")
        return self.failed(f"{slowest['directory']} reads {speed:.0f} MB/s; the guide requires {minimum}-{upper} MB/s at least "
                           f"and expects {expected}", current=round(speed), recommended=expected, evidence=evidence,
                           severity=None if speed < minimum else Severity.MEDIUM)


RULE = StorageThroughputLow()
