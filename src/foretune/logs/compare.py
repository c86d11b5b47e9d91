"""Two logs reports side by side: each metric before, after, the change, and whether it is within noise.

A latency change is flagged as noise when either side has fewer than ``logs_compare_min_requests``
requests (registration flows, for flow latency), or when it is smaller than ``logs_compare_noise_fraction``
of the before value. Counts are summed over the logs of a kind; quantiles, rates and peaks come from the
log with the most samples on each side, named in the note when a side has more than one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from foretune.knowledge import threshold

# the log kind each metric's prefix is read from (an action's row names its kind)
LOG_OF = {"production": "production", "registration": "production", "apache": "apache_access", "postgresql": "postgresql",
          "candlepin": "candlepin", "system": "system", "tasks": "tasks"}

SCHEMA = "foretune-logs-compare/1"


def _sum(report: dict[str, Any], kind: str, get: Callable[[dict[str, Any]], Any]) -> Any:
    values = [get(s) for s in report[kind]]
    values = [v for v in values if v is not None]
    return sum(values) if values else None


# what a section's one-log figures (quantiles, rates, peaks) rest on
SAMPLES: dict[str, Callable[[dict[str, Any]], int]] = {
    "production": lambda s: s["requests"], "postgresql": lambda s: s["slow_statements"]["count"],
    "candlepin": lambda s: s["requests"]}


def _main(report: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """The section with the most samples (the first on a tie): quantiles of several logs cannot be added up."""
    return max(report[kind], key=SAMPLES[kind], default=None)


def _busiest(report: dict[str, Any], kind: str, get: Callable[[dict[str, Any]], Any]) -> Any:
    """``get`` of the busiest log of ``kind`` (None when there is none)."""
    section = _main(report, kind)
    return get(section) if section is not None else None


def _basis(before: dict[str, Any], after: dict[str, Any], kind: str) -> str:
    """Which log a one-log figure comes from, on a side with more than one log of ``kind`` (else '')."""
    said = []
    for side, report in (("before", before), ("after", after)):
        busy = [s for s in report[kind] if SAMPLES[kind](s)]
        section = _main(report, kind)
        if len(busy) > 1 and section is not None:
            said.append(f"{side}: {section['log']} only, the busiest of {len(busy)} logs")
        elif section is not None and len(report[kind]) > 1:
            said.append(f"{side}: {section['log']} only")
    return "; ".join(said)


def _rate(section: dict[str, Any]) -> float | None:
    minutes = len(section["per_minute"])
    return round(section["requests"] / minutes, 1) if minutes else None


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    min_requests = int(threshold("logs_compare_min_requests"))
    fraction = float(threshold("logs_compare_noise_fraction"))
    metrics: list[dict[str, Any]] = []

    def add(metric: str, b: Any, a: Any, *, samples: tuple[Any, Any] | None = None, lower_is_better: bool | None = True,
            what: str = "requests", kind: str | None = None, failures: bool = False) -> None:
        """One row; ``kind``: the figures are of one log of that kind per side (named in the note when there are more);
        ``failures``: the figure counts failed work (refused, killed, 5xx), which the verdict puts first."""
        log = kind or LOG_OF[metric.split(":", 1)[0]]
        silent = [side for side, r in (("before", before), ("after", after)) if log in r.get("no_line_in_window", [])]
        if silent:  # a log with no line in a side's window measured nothing there: no figure, no judgement
            b = None if "before" in silent else b
            a = None if "after" in silent else a
            note = f"no line of this log in the {' and '.join(silent)} window{'s' if len(silent) > 1 else ''}"
            metrics.append({"metric": metric, "before": b, "after": a, "change": None, "note": note, "noise": False,
                            "direction": None, "failures": failures, "outside_window": silent})
            return
        if b is None and a is None:
            return
        change = None
        note = ""
        direction = None
        enough = samples is None or min(samples[0] or 0, samples[1] or 0) >= min_requests
        if isinstance(b, (int, float)) and isinstance(a, (int, float)):
            change = round(a - b, 1)
            if b:
                note = f"{100.0 * (a - b) / b:+.0f}%"
                if enough:
                    if abs(a - b) < fraction * abs(b):
                        note = f"within noise (<{fraction:.0%})"
                    elif change and lower_is_better is not None:
                        direction = "better" if (a < b) == lower_is_better else "worse"
            elif a and enough:  # none before: no percentage, but a count that appears is the clearest change
                note = "new"
                direction = None if lower_is_better is None else "worse" if lower_is_better else "better"
            if direction:
                note += f" {direction}"
        elif b is None or a is None:  # one side has no log of this kind: nothing to compare with
            note = f"no such log {'before' if b is None else 'after'}"
        if samples is not None:
            few = min(samples[0] or 0, samples[1] or 0)
            if few < min_requests:
                note = f"noise: only {few} {what if few != 1 else what[:-1]} on one side"
        basis = _basis(before, after, kind) if kind else ""
        note = "; ".join(x for x in (note.strip(), basis) if x)
        metrics.append({"metric": metric, "before": b, "after": a, "change": change, "note": note,
                        "noise": note.startswith(("noise", "within noise")), "direction": direction,
                        "failures": failures})

    def lat(report: dict[str, Any], q: str) -> Any:
        return _busiest(report, "production", lambda s: s["latency"][q])

    n = (_sum(before, "production", lambda s: s["requests"]), _sum(after, "production", lambda s: s["requests"]))
    add("production: requests", *n, lower_is_better=None)
    def one(kind: str, get: Callable[[dict[str, Any]], Any] | None = None) -> tuple[Any, Any]:
        """The samples of the one log per side that one-log figures come from."""
        return _busiest(before, kind, get or SAMPLES[kind]), _busiest(after, kind, get or SAMPLES[kind])

    add("production: requests per active minute", _busiest(before, "production", _rate), _busiest(after, "production", _rate),
        lower_is_better=None, kind="production")
    for q in ("p50", "p95", "p99"):
        add(f"production: latency {q} (ms)", lat(before, q), lat(after, q), samples=one("production"), kind="production")
    add("production: 5xx responses", _sum(before, "production", lambda s: s["status"].get("5xx", 0)),
        _sum(after, "production", lambda s: s["status"].get("5xx", 0)), failures=True)
    add("production: peak concurrent requests", _busiest(before, "production", lambda s: s["concurrency"]["peak"]),
        _busiest(after, "production", lambda s: s["concurrency"]["peak"]), kind="production")
    add("production: minutes at Puma capacity", _busiest(before, "production", lambda s: s["concurrency"]["minutes_at_capacity"]),
        _busiest(after, "production", lambda s: s["concurrency"]["minutes_at_capacity"]), kind="production")
    flows = (_sum(before, "production", lambda s: s["registration_flows"]["flows"]),
             _sum(after, "production", lambda s: s["registration_flows"]["flows"]))
    if any(flows):  # logs with registrations on either side
        add("registration: flows", *flows, lower_is_better=None)
        for q in ("p50", "p95"):
            def flow_q(s: dict[str, Any], q: str = q) -> Any:
                return s["registration_flows"]["duration"][q]
            add(f"registration: flow {q} (ms)", _busiest(before, "production", flow_q), _busiest(after, "production", flow_q),
                samples=one("production", lambda s: s["registration_flows"]["flows"]), what="flows", kind="production")
    actions_b = {a["action"]: a for a in (_main(before, "production") or {"actions": []})["actions"]}
    actions_a = {a["action"]: a for a in (_main(after, "production") or {"actions": []})["actions"]}
    for name in [a for a in actions_b if a in actions_a][:10]:
        add(f"{name}: p95 (ms)", actions_b[name]["p95"], actions_a[name]["p95"],
            samples=(actions_b[name]["count"], actions_a[name]["count"]), kind="production")
    for code in ("503", "502"):
        def status(s: dict[str, Any], c: str = code) -> Any:
            return s["status"][c]
        add(f"apache: {code} responses", _sum(before, "apache_access", status), _sum(after, "apache_access", status), failures=True)
    add("apache: requests", _sum(before, "apache_access", lambda s: s["requests"]), _sum(after, "apache_access", lambda s: s["requests"]),
        lower_is_better=None)
    add("apache: 502/503 burst minutes", sum(b["minutes"] for b in before["bursts"]) if before["apache_access"] else None,
        sum(b["minutes"] for b in after["bursts"]) if after["apache_access"] else None, failures=True)
    add("postgresql: refused connections", _sum(before, "postgresql", lambda s: s["connection_exhaustion"]["count"]),
        _sum(after, "postgresql", lambda s: s["connection_exhaustion"]["count"]), failures=True)
    slow = (_sum(before, "postgresql", lambda s: s["slow_statements"]["count"]), _sum(after, "postgresql", lambda s: s["slow_statements"]["count"]))
    add("postgresql: slow statements", *slow)
    add("postgresql: slow statement p95 (ms)", _busiest(before, "postgresql", lambda s: s["slow_statements"]["p95"]),
        _busiest(after, "postgresql", lambda s: s["slow_statements"]["p95"]), samples=one("postgresql"), what="statements", kind="postgresql")
    add("candlepin: latency p95 (ms)", _busiest(before, "candlepin", lambda s: s["latency"]["p95"]),
        _busiest(after, "candlepin", lambda s: s["latency"]["p95"]), samples=one("candlepin"), kind="candlepin")
    add("system: OOM kills", _sum(before, "system", lambda s: sum(s["oom_kills"].values())),
        _sum(after, "system", lambda s: sum(s["oom_kills"].values())), failures=True)
    add("tasks: paused", _sum(before, "tasks", lambda s: s["paused"]), _sum(after, "tasks", lambda s: s["paused"]))
    add("tasks: stopped with error", _sum(before, "tasks", lambda s: s["stopped_with_error"]),
        _sum(after, "tasks", lambda s: s["stopped_with_error"]), failures=True)

    def window(r: dict[str, Any]) -> str:
        return f"{r['window']['since'] or 'start'} .. {r['window']['until'] or 'end'}"

    return {"schema": SCHEMA, "before": before, "after": after, "before_window": window(before),
            "after_window": window(after), "metrics": metrics,
            "noise_rule": {"min_requests": min_requests, "fraction": fraction}}
