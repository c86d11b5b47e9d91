"""The ``log_incidents`` fact: incidents in the server's own logs, read once per source."""

from __future__ import annotations

from foretune.facts.extract.core import Extractor


def log_incidents(x: Extractor) -> None:
    from foretune.knowledge import threshold
    from foretune.logs.incidents import collect
    from foretune.logs.source import puma_capacity, scan_source

    scan = scan_source(x.src)
    if scan is None:
        x.unknown("log_incidents", "this source holds no log files")
        return
    x.src.problems.extend(p for p in scan.problems if p not in x.src.problems)
    if not scan.files:
        x.unknown("log_incidents", "no production.log, Apache, PostgreSQL, Candlepin, system log or task export found")
        return
    merged = scan.merged()
    incidents = collect(merged, capacity=puma_capacity(x.value("puma")),
                        burst_per_minute=int(threshold("logs_503_burst_per_minute")))
    lines = sum(a.lines for a in merged.values())
    where = incidents[0]["path"] if incidents else sorted(scan.files)[0]
    x.known("log_incidents", incidents,
            x.note(where, f"{len(incidents)} incident kinds in {len(scan.files)} log files ({lines:,} lines read)"))
