"""The model's answer as text (scenarios side by side) or JSON (the scripted contract)."""

from __future__ import annotations

import json
import math
from typing import Any, NamedTuple

SCHEMA = "foretune-model/1"


class Scenario(NamedTuple):
    label: str
    network: Any  # network.Network
    sets: dict[str, float]
    result: Any  # engine.Result
    bound: Any  # bound.Bound
    agreement: str
    knee: int | None


class Report(NamedTuple):
    plan: Any
    workload: Any
    demands: Any
    scenarios: tuple[Scenario, ...]
    recommendation: Any  # recommend.Recommendation | None
    seed: int


def _num(value: float, digits: int = 4) -> float | None:
    return None if value is None or math.isnan(value) or math.isinf(value) else round(value, digits)


def _scenario(s: Scenario) -> dict[str, Any]:
    r = s.result
    return {
        "label": s.label, "sets": s.sets,
        "throughput_per_s": _num(r.throughput_per_s), "success_ratio": _num(r.success_ratio),
        "hosts": r.hosts, "succeeded": r.succeeded,
        "p50_s": _num(r.p50_s, 2), "p95_s": _num(r.p95_s, 2), "p99_s": _num(r.p99_s, 2), "mean_s": _num(r.mean_s, 2),
        "window_s": _num(r.window_s, 1),
        "bottleneck": {"resource": r.bottleneck, "utilisation": r.utilisation[r.bottleneck]},
        "utilisation": r.utilisation, "failures": r.failures, "knee": s.knee,
        "classes": [{"name": c.name, "calls": c.calls, "ok": c.ok, "failures": c.failures,
                     "throughput_per_s": _num(c.throughput_per_s), "p50_s": _num(c.p50_s, 3),
                     "p95_s": _num(c.p95_s, 3), "p99_s": _num(c.p99_s, 3)} for c in r.classes],
        "bound": {"throughput_per_s": _num(s.bound.throughput_per_s), "bottleneck": s.bound.bottleneck,
                  "caps": {k: _num(v) for k, v in s.bound.caps.items()}, "agreement": s.agreement},
        "network": s.network.describe(), "notes": list(r.notes),
    }


def to_json(report: Report) -> str:
    """Top-level keys describe the configuration asked about (the last scenario: with --set applied)."""
    from foretune import __version__  # start-up: only when to_json runs

    asked = _scenario(report.scenarios[-1])
    doc: dict[str, Any] = {
        "schema": SCHEMA, "foretune_version": __version__, "seed": report.seed,
        "product": report.plan.release.product, "version": report.plan.release.version,
        "generation": report.plan.release.generation, "workload": dict(report.workload._asdict()),
        "throughput_per_s": asked["throughput_per_s"], "success_ratio": asked["success_ratio"],
        "p95_s": asked["p95_s"], "bottleneck": asked["bottleneck"]["resource"],
        "bottleneck_utilisation": asked["bottleneck"]["utilisation"], "knee": asked["knee"],
        "scenarios": [_scenario(s) for s in report.scenarios],
        "demands": {"source": report.demands.source, "calibration": dict(report.demands.calibration._asdict())},
    }
    rec = report.recommendation
    if rec is not None:
        doc["recommendation"] = {
            "holds_at": 0.99, "tried": rec.tried,
            "smallest_change": None if rec.smallest is None else {
                "sets": _changes(report.scenarios[-1].network, rec.smallest.sets), "success_ratio": _num(rec.smallest.result.success_ratio),
                "throughput_per_s": _num(rec.smallest.result.throughput_per_s)},
            "best": {"sets": rec.best.sets, "success_ratio": _num(rec.best.result.success_ratio),
                     "throughput_per_s": _num(rec.best.result.throughput_per_s)},
        }
    return json.dumps(doc, indent=2) + "\n"


def _changes(net: Any, sets: dict[str, float]) -> dict[str, float]:
    """The values of ``sets`` that differ from ``net``."""
    current = {"puma.workers": net.puma_workers, "foreman.puma_threads": net.puma_threads,
               "apache.max_request_workers": net.apache_slots}
    return {k: v for k, v in sets.items() if current.get(k) != v}


def _fmt_s(value: float) -> str:
    return f"{value:.1f} s" if value >= 1 else f"{value * 1000:.0f} ms"


def to_text(report: Report) -> str:
    wl = report.workload
    rel = report.plan.release
    lines = [f"foretune model: {rel.product} {rel.version} ({rel.generation}), {report.plan.input.cpus} CPUs, "
             f"{report.plan.input.ram_bytes / 2**30:g} GiB: {wl.label()} (seed {report.seed})", ""]
    unit = {"downloads": "packages/s", "api": "calls/s", "rex": "reports/s"}.get(wl.kind, "registrations/s")
    rows: list[tuple[str, list[str]]] = [
        ("Puma workers x threads (pool)", [f"{s.network.puma_workers} x {s.network.puma_threads} ({s.network.db_pool})"
                                           for s in report.scenarios]),
        ("Apache slots", [str(s.network.apache_slots) for s in report.scenarios]),
        (f"throughput ({unit})", [f"{s.result.throughput_per_s:.3g}" for s in report.scenarios]),
        ("first-try success", [f"{s.result.success_ratio:.1%} ({s.result.succeeded}/{s.result.hosts})"
                               for s in report.scenarios]),
        ("latency p50 / p95 / p99", [" / ".join(_fmt_s(v) for v in (s.result.p50_s, s.result.p95_s, s.result.p99_s))
                                     for s in report.scenarios]),
        ("bottleneck (utilisation)", [f"{s.result.bottleneck} ({s.result.utilisation[s.result.bottleneck]:.0%})"
                                      for s in report.scenarios]),
        ("analytic bound", [f"{s.bound.throughput_per_s:.3g}/s ({s.bound.bottleneck})" for s in report.scenarios]),
    ]
    if any(s.knee is not None for s in report.scenarios):
        rows.append(("knee (>= 99 % success)", [f"{s.knee} hosts" if s.knee is not None else "-"
                                                for s in report.scenarios]))
    labels = [s.label for s in report.scenarios]
    width = max(len(name) for name, _ in rows) + 2
    cols = [max(len(labels[i]), *(len(v[i]) for _, v in rows)) + 2 for i in range(len(labels))]
    lines.append(" " * width + "".join(label.ljust(c) for label, c in zip(labels, cols)).rstrip())
    for name, values in rows:
        lines.append(name.ljust(width) + "".join(v.ljust(c) for v, c in zip(values, cols)).rstrip())
    lines.append("")
    for s in report.scenarios:
        lines.append(f"{s.label}: {s.agreement}")
        failures = ", ".join(f"{k} {v}" for k, v in s.result.failures.items())
        if failures:
            lines.append(f"  failures: {failures}")
        lines.extend(f"  {note}" for note in s.result.notes)
    lines += ["", "per request class (" + report.scenarios[-1].label + "):"]
    for c in report.scenarios[-1].result.classes:
        fails = sum(c.failures.values())
        lines.append(f"  {c.name:<18} {c.calls:>7} calls  {c.throughput_per_s:8.3g}/s  p50 {_fmt_s(c.p50_s):>7}  "
                     f"p95 {_fmt_s(c.p95_s):>7}  p99 {_fmt_s(c.p99_s):>7}  failed {fails}")
    rec = report.recommendation
    if rec is not None:
        lines.append("")
        if rec.smallest is None:
            lines.append(f"recommend: nothing among {rec.tried} configurations holds this workload at >= 99 % "
                         "first-try success; spread it over time or add Capsules and CPUs")
        elif not _changes(report.scenarios[-1].network, rec.smallest.sets):
            lines.append("recommend: the configuration asked about already holds this workload "
                         f"({rec.smallest.result.success_ratio:.1%} first-try success)")
        else:
            sets = ", ".join(f"{k}={v:g}" for k, v in _changes(report.scenarios[-1].network, rec.smallest.sets).items())
            lines.append(f"recommend (smallest change that holds): {sets}: "
                         f"{rec.smallest.result.success_ratio:.1%} success, {rec.smallest.result.throughput_per_s:.3g}/s")
        sets = ", ".join(f"{k}={v:g}" for k, v in rec.best.sets.items())
        lines.append(f"best of {rec.tried} configurations: {sets}: {rec.best.result.success_ratio:.1%} success, "
                     f"{rec.best.result.throughput_per_s:.3g}/s")
    lines += ["", f"demands: {report.demands.source}; a model, calibrated on the tuning guide's tables "
                  "(docs/model.md): compare with foretune load on this server before relying on it"]
    return "\n".join(lines) + "\n"
