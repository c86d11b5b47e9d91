"""The ``log_incidents`` fact: incidents in the server's own logs, read once per source."""

from __future__ import annotations

from foretune.facts.extract.core import Extractor
from foretune.knowledge import threshold
from foretune.logs.incidents import collect, sample_notes, share_rule
from foretune.logs.source import puma_in_force, scan_source

# the logs incidents come from (task exports carry none)
INCIDENT_LOGS = ("production", "apache_access", "apache_error", "postgresql", "candlepin", "system")


def log_incidents(x: Extractor) -> None:
    scan = scan_source(x.src)
    if scan is None:
        x.unknown("log_incidents", "this source holds no log files")
        return
    x.src.problems.extend(p for p in scan.problems if p not in x.src.problems)
    merged = {key: a for key, a in scan.merged().items() if key[0] in INCIDENT_LOGS and a.lines > a.bad}
    if not merged:
        # task exports alone hold no incidents: "none found" would claim logs nobody read
        x.unknown("log_incidents", "no production.log, Apache, PostgreSQL, Candlepin or system log in this source")
        return
    # the Puma capacity in force: the running server's, else systemd's, else the drop-in's (never a planned one)
    run = puma_in_force(x.value("puma_stats"), x.value("puma_loaded"), x.value("puma"))
    capacity = run[0] * run[1] if run else None
    incidents = collect(merged, capacity=capacity,
                        burst_per_minute=int(threshold("logs_503_burst_per_minute")),
                        share_rule=share_rule())
    # concurrency counted over a sample: said on stderr and in the report's notes (commands/audit.py)
    x.src.problems.extend(p for p in sample_notes(merged, incidents) if p not in x.src.problems)
    lines = sum(a.lines for a in merged.values())
    read = ", ".join(sorted({fam for _, fam in merged}))
    where = incidents[0]["path"] if incidents else sorted(a.path for a in merged.values())[0]
    x.known("log_incidents", incidents,
            x.note(where, f"{len(incidents)} incident kinds in {lines:,} lines of {read}"))
