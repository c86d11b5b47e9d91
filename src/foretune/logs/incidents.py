"""Incidents for audit (the ``log_incidents`` fact): what analyzers recorded plus 503 bursts and Puma saturation.

Each incident: ``{kind, service, path, line, count, first, last}``; ``line`` is one quoted,
redacted log line, ``first``/``last`` ISO timestamps of the server's wall clock (or None).
"""

from __future__ import annotations

from typing import Any

from foretune.logs.apache import C502, C503, AccessLog
from foretune.logs.base import Analyzer, Incident, quote
from foretune.logs.production import ProductionLog

KINDS = ("pg_connection_exhaustion", "http_503_burst", "oom_kill", "socket_exhaustion", "queue_at_capacity",
         "candlepin_oom", "db_pool_timeout")


def bursts(access: AccessLog, per_minute: int) -> list[dict[str, Any]]:
    """Runs of minutes with at least ``per_minute`` 502s+503s, consecutive minutes joined.

    Each: start, end (minutes, epoch seconds), responses (502+503 in the run), peak per minute.
    """
    out: list[dict[str, Any]] = []
    for minute in sorted(access.minutes):
        row = access.minutes[minute]
        n = row[C503] + row[C502]
        if n < per_minute:
            continue
        if out and minute - out[-1]["end"] <= 60:
            out[-1]["end"] = minute
            out[-1]["responses"] += n
            out[-1]["peak"] = max(out[-1]["peak"], n)
        else:
            out.append({"start": minute, "end": minute, "responses": n, "peak": n})
    return out


def collect(analyzers: dict[tuple[str, str], Analyzer], *, capacity: int | None, burst_per_minute: int) -> list[dict[str, Any]]:
    """Every incident of the merged analyzers, sorted by kind, then service."""
    found: list[Incident] = []
    for analyzer in analyzers.values():
        found += analyzer.incidents.values()
        if isinstance(analyzer, AccessLog):
            runs = bursts(analyzer, burst_per_minute)
            if runs:
                t, line = min(v for k, v in analyzer.first_5xx.items())
                inside = [v for v in analyzer.first_5xx.values() if runs[0]["start"] <= v[0] < runs[0]["end"] + 60]
                inc = Incident("http_503_burst", "httpd", analyzer.path, (min(inside) if inside else (t, line))[1])
                for run in runs:
                    inc.see(run["start"], run["responses"] - 1)
                    inc.see(run["end"], 1)
                inc.count = sum(r["responses"] for r in runs)
                found.append(inc)
        if isinstance(analyzer, ProductionLog) and capacity:
            peak = analyzer.concurrency()
            busy = sorted(m for m, level in peak.items() if level >= capacity)
            if busy:
                raw = analyzer.minute_lines.get(busy[0], b"")
                inc = Incident("queue_at_capacity", "puma", analyzer.path,
                               quote(raw) if raw else f"{peak[busy[0]]} requests open at once (Puma capacity {capacity})")
                inc.see(busy[0], len(busy) - 1)
                inc.see(busy[-1] + 59, 1)
                found.append(inc)
    rows = [i.as_dict() for i in found if i.kind in KINDS]
    return sorted(rows, key=lambda r: (r["kind"], r["service"], r["path"]))
