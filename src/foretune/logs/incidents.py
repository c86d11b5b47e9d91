"""Incidents for audit (the ``log_incidents`` fact): what analyzers recorded plus 503 bursts and Puma saturation.

Each incident: ``{kind, service, path, line, count, first, last}``; ``line`` is one quoted,
redacted log line, ``first``/``last`` ISO timestamps of the server's wall clock (or None).
"""

from __future__ import annotations

from typing import Any

from foretune.knowledge import threshold
from foretune.logs.apache import C502, C503, TOTAL, AccessLog
from foretune.logs.base import SAMPLE_MARK, Analyzer, Incident, quote
from foretune.logs.production import ProductionLog

KINDS = ("pg_connection_exhaustion", "http_503_burst", "http_503_share", "oom_kill", "socket_exhaustion", "queue_at_capacity",
         "candlepin_oom", "db_pool_timeout")


def sample_notes(analyzers: dict[tuple[str, str], Analyzer], incidents: list[dict[str, Any]]) -> list[str]:
    """One line for each log whose requests open at once were counted over a sample only (the incidents-only read), in
    path order; whether that sample already showed Puma at capacity (an incident of ``incidents`` from that file).
    """
    busy = {i["path"]: i["first"] for i in incidents if i["kind"] == "queue_at_capacity"}
    notes = []
    for path, counted, lines, size in sorted(s for a in analyzers.values() for s in a.samples):
        head = f"{path}: requests open at once{SAMPLE_MARK}{counted:,} of {lines:,} lines ({size // 1048576} MiB) only"
        found = busy.get(path)
        notes.append(f"{head}: Puma at capacity is seen in them (from {found}), but minutes at capacity later in this "
                     "log are not counted; `foretune logs` reads every line" if found else
                     f"{head}: a saturation later in this log is not seen here; `foretune logs` reads every line")
    return notes


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


def share(access: AccessLog, *, window: int, min_count: int, min_share: float) -> dict[str, Any] | None:
    """The window of ``window`` seconds in which one access log (one vhost) answered the most HTTP 503s, when they
    were at least ``min_count`` and at least ``min_share`` of its requests in that window; else None.

    Returns first and last (the minutes of its first and last 503), responses (503s), requests (all in the window).
    An access log read for its incidents only has its requests counted per minute by their stamps (``line_minutes``),
    until a minute held a 503 burst (``counted_until_burst``): then None, as ``collect`` judges the burst instead.
    """
    if access.counted_until_burst is not None:  # its requests were not counted past a burst: nothing to judge by
        return None
    lines = access.line_minutes
    counts = {m: (row[TOTAL], row[C503]) for m, row in access.minutes.items()} if lines is None else \
        {m: (lines.get(m, 0), access.minutes[m][C503] if m in access.minutes else 0) for m in {*lines, *access.minutes}}
    minutes = sorted(counts)
    best: dict[str, Any] | None = None
    end = total = refused = 0
    for start in minutes:
        while end < len(minutes) and minutes[end] < start + window:
            requests, answered_503 = counts[minutes[end]]
            total, refused, end = total + requests, refused + answered_503, end + 1
        if refused >= min_count and refused >= min_share * total and (best is None or refused > best["responses"]):
            with_503 = [m for m in minutes[minutes.index(start):end] if counts[m][1]]
            best = {"first": with_503[0], "last": with_503[-1], "responses": refused, "requests": total}
        requests, answered_503 = counts[start]
        total, refused = total - requests, refused - answered_503
    return best


def share_rule() -> tuple[int, int, float]:
    """The knowledge data's 503 share rule: window seconds, least 503s, least share of the window's requests."""
    return (int(threshold("logs_503_share_window_seconds")), int(threshold("logs_503_share_min_count")),
            float(threshold("logs_503_share_min_fraction")))


def collect(analyzers: dict[tuple[str, str], Analyzer], *, capacity: int | None, burst_per_minute: int,
            share_rule: tuple[int, int, float] | None = None) -> list[dict[str, Any]]:
    """Every incident of the merged analyzers, sorted by kind, then service.

    ``share_rule`` (window seconds, least 503s, least share of the requests): a log with no 503 burst whose 503s reach
    both in one window is an ``http_503_share`` incident (a Puppet vhost's 503s spread below the burst rate).
    """
    found: list[Incident] = []
    extra: dict[int, int] = {}  # id of an http_503_share incident -> the requests of its window
    for analyzer in analyzers.values():
        found += analyzer.incidents.values()
        if isinstance(analyzer, AccessLog):
            runs = bursts(analyzer, burst_per_minute)
            spread = share(analyzer, window=share_rule[0], min_count=share_rule[1], min_share=share_rule[2]) \
                if share_rule and not runs else None
            if spread is not None:  # each quoted line with the file it is in (a rotated file or the current one)
                inc = Incident("http_503_share", "httpd", analyzer.first_paths.get(spread["first"], analyzer.path),
                               analyzer.first_503[spread["first"]][1])
                inc.see(analyzer.first_503[spread["first"]][0], spread["responses"] - 1)
                inc.see(analyzer.last_503[spread["last"]], 1)
                extra[id(inc)] = spread["requests"]
                found.append(inc)
            if runs:
                first = min((v, k) for k, v in analyzer.first_5xx.items())
                inside = [(v, k) for k, v in analyzer.first_5xx.items() if runs[0]["start"] <= v[0] < runs[0]["end"] + 60]
                (_, line), code = min(inside) if inside else first
                inc = Incident("http_503_burst", "httpd", analyzer.first_paths.get(code, analyzer.path), line)
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
                # the file of the quoted line: a rotated file and the current one are merged into one analyzer
                inc = Incident("queue_at_capacity", "puma", analyzer.minute_paths.get(busy[0], analyzer.path),
                               quote(raw) if raw else f"{peak[busy[0]]} requests open at once (Puma capacity {capacity})")
                inc.see(busy[0], len(busy) - 1)
                inc.see(busy[-1] + 59, 1)
                found.append(inc)
    rows = [{**i.as_dict(), **({"requests": extra[id(i)]} if id(i) in extra else {})} for i in found if i.kind in KINDS]
    return sorted(rows, key=lambda r: (r["kind"], r["service"], r["path"]))
