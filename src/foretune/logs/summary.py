"""A scan as the versioned report (plain JSON data): sections per log, 503 bursts, incidents, suggestions.

A suggestion's ``fix`` is data (kind, target, value): :func:`foretune.report.logs_data.rendered` writes it as
the snippet ``plan`` and ``audit`` print.
"""

from __future__ import annotations

from typing import Any

from foretune import __version__
from foretune.knowledge import citation, threshold
from foretune.logs.apache import AccessLog, ErrorLog
from foretune.logs.incidents import bursts, collect, share_rule
from foretune.logs.kinds import KINDS, no_line_in_window
from foretune.logs.postgres import PostgresLog
from foretune.logs.production import ProductionLog
from foretune.logs.scan import Scan
from foretune.logs.timeutil import iso

SCHEMA = "foretune-logs/1"


def build(scan: Scan, *, source: str, capacity: int | None, capacity_from: str | None,
          problems: list[str] | None = None, capacity_unknown: str | None = None) -> dict[str, Any]:
    """The report of ``scan``; ``capacity`` is the Puma workers x threads in force (None when unknown, and
    ``capacity_unknown`` then says why when the source knows: a Passenger-era server has no Puma)."""

    burst_min = int(threshold("logs_503_burst_per_minute"))
    merged = scan.merged()
    sections: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    error_minutes: dict[str, set[int]] = {}
    for analyzer in merged.values():
        if isinstance(analyzer, ErrorLog):
            for event, per in analyzer.events.items():
                error_minutes.setdefault(event, set()).update(per)
    all_bursts: list[dict[str, Any]] = []
    for (kind, fam), analyzer in merged.items():
        data = analyzer.summary(capacity=capacity) if isinstance(analyzer, ProductionLog) else analyzer.summary()
        sections[kind].append({"log": fam, "path": analyzer.path, **data})
        if isinstance(analyzer, AccessLog):
            for run in bursts(analyzer, burst_min):
                minutes = set(range(run["start"], run["end"] + 60, 60))
                matched = {event: len(minutes & seen) for event, seen in sorted(error_minutes.items()) if minutes & seen}
                all_bursts.append({"log": fam, "start": iso(run["start"]), "end": iso(run["end"] + 59),
                                   "minutes": len(minutes), "responses": run["responses"], "peak_per_minute": run["peak"],
                                   "error_log_minutes": matched})
    lines = sum(a.lines for a in merged.values())
    bad = sum(a.bad for a in merged.values())
    report: dict[str, Any] = {
        "schema": SCHEMA, "foretune": __version__, "source": source,
        "window": {"since": iso(scan.options.window.since), "until": iso(scan.options.window.until)},
        "files": sorted(scan.files), "bytes": scan.bytes, "lines": lines, "not_understood": bad,
        "outside_window": sum(a.outside for a in merged.values()),
        "problems": [*(problems or []), *scan.problems],
        "capacity": {"puma": capacity, "from": capacity_from, "unknown": None if capacity else capacity_unknown},
        "burst_threshold_per_minute": burst_min,
        **sections,
        "bursts": all_bursts,
        "not_found": [kind for kind in KINDS if not sections[kind]],  # the logs looked for that the source lacks
        # logs read whose every line lies outside --since/--until: they tell nothing of the window
        "no_line_in_window": [kind for kind in KINDS if sections[kind] and all(map(no_line_in_window, sections[kind]))],
        "incidents": collect(merged, capacity=capacity, burst_per_minute=burst_min, share_rule=share_rule()),
        "suggestions": suggestions(merged),
    }
    return report


def suggestions(merged: dict[tuple[str, str], Any]) -> list[dict[str, Any]]:
    """Logging changes that would let this analysis say more; each fix as data (kind, target, value), as ``plan``'s."""
    from foretune.knowledge.profiles import PG  # start-up: only when suggestions runs

    out: list[dict[str, Any]] = []

    def add(title: str, reason: str, fix: dict[str, Any], cite: str) -> None:
        c = citation(cite)
        out.append({"title": title, "reason": reason, "fix": fix, "citation": {"id": c.id, "title": c.title, "where": c.where}})

    # a log whose lines all lie outside the window shows nothing of its format's use there: no suggestion from it
    inside = [a for a in merged.values() if not (a.first is None and a.outside)]
    access = [a for a in inside if isinstance(a, AccessLog) and a.lines]
    if access and not any(a.latency.count for a in access):
        fmt = '"%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\" %D"'
        add("Log Apache response times (%D)",
            "the access logs have no duration field, so latency of requests Rails never saw (503s, content) is unknown; "
            "a second access log with %D beside the installer's keeps its file untouched (foretune estimate; "
            "the installer does not manage files it did not create in this directory)",
            _fix("file", "/etc/httpd/conf.d/05-foreman-ssl.d/foretune-duration.conf",
                 # Apache joins a line ending in a backslash with the next: the directive fits 80 columns
                 f"CustomLog \"/var/log/httpd/foreman-ssl_access_duration_ssl.log\" \\\n  {fmt}"), "apache-log-format-d")
    pg = [a for a in inside if isinstance(a, PostgresLog) and a.lines - a.bad > 0]
    if pg and any(a.prefix_has_pid is False for a in pg):
        add("Add the process id to PostgreSQL's log_line_prefix",
            "the log lines carry no process id, so statements of concurrent sessions cannot be told apart "
            "(pgBadger also needs %p); the installer's own prefix, '%t ', has none either", _fix("hiera", f"{PG}/log_line_prefix", "%t [%p] "), "postgresql-log-line-prefix")
    if pg and not any(a.slow.count for a in pg):
        add("Log slow statements (log_min_duration_statement)",
            "the PostgreSQL log has no 'duration:' lines: slow SQL is invisible; the installer's tuning sets 1000 ms",
            _fix("hiera", f"{PG}/log_min_duration_statement", 1000), "installer-pg-logging")
    return out


def _fix(kind: str, target: str, value: Any) -> dict[str, Any]:
    """A fix as data, the fields of :class:`foretune.plan.model.Fix`."""
    return {"kind": kind, "target": target, "value": value}
