"""A load result as text or Markdown, and two results side by side (``--compare``)."""

from __future__ import annotations

from typing import Any

from foretune.report.markdown import code as md_code
from foretune.report.markdown import text as md_text

COLUMNS = ("step", "count", "failures", "p50 ms", "p95 ms", "p99 ms", "rps")


def _failures(step: dict[str, Any]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in step["failures"].items()) or "0"


def _num(value: float | None) -> str:
    return "-" if value is None else (f"{value:.0f}" if value >= 100 else f"{value:.1f}")


def _users(n: int) -> str:
    return f"{n} user" if n == 1 else f"{n} users"


def _columns(doc: dict[str, Any]) -> tuple[str, ...]:
    """The table's columns: content downloads add MB/s."""
    return (*COLUMNS, "MB/s") if doc.get("scenario") == "content" else COLUMNS


def _rows(steps: list[dict[str, Any]], mb: bool = False) -> list[tuple[str, ...]]:
    return [(s["name"], str(s["count"]), _failures(s), _num(s["p50_ms"]), _num(s["p95_ms"]), _num(s["p99_ms"]),
             f"{s['rps']:.2f}", *((f"{s.get('mb_per_s') or 0:.2f}",) if mb else ())) for s in steps]


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...] = COLUMNS) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*header), *(fmt.format(*r) for r in rows)]


def head(doc: dict[str, Any]) -> list[str]:
    shape = doc["shape"]
    how = (f"open arrivals {shape['arrival_rate']}/s, at most {shape['users']} in flight" if shape.get("arrival_rate")
           else f"closed, users per level {', '.join(str(u) for u in shape['levels'])}")
    lines = [f"foretune load {doc['scenario']} against {doc['target']} (run {doc['run']}, {how})",
             f"{doc['requests']} requests in {doc['duration_s']:.1f} s; stopped by {doc['stopped_by']}"
             + (" (interrupted: partial report)" if doc["interrupted"] else "")]
    if doc["saturation_users"] is not None:
        lines.append(f"first level with failures: {_users(doc['saturation_users'])}")
    regs = doc.get("registrations")
    if regs and regs["total"]:
        lines.append(f"registrations: {regs['first_try_ok']} of {regs['total']} succeeded at the first try "
                     f"({regs['first_try_rate'] * 100:.1f} %)")
    return lines


def text(doc: dict[str, Any]) -> str:
    lines = head(doc)
    mb = doc.get("scenario") == "content"
    for level in doc["levels"]:
        lines += ["", f"level {_users(level['users'])}, {level['duration_s']:.1f} s",
                  *_table(_rows(level["steps"], mb), _columns(doc))]
        lines += [f"  {s['name']}: {example}" for s in level["steps"] for example in s["examples"]]
    lines += [f"note: {n}" for n in doc["notes"]]
    return "\n".join(lines) + "\n"


def markdown(doc: dict[str, Any]) -> str:
    """The result as Markdown; every text from the run (step names, server answers) shown literally."""
    first, *more = head(doc)
    lines = [f"# {md_text(first)}", *(part for line in more for part in ("", md_text(line)))]
    for level in doc["levels"]:
        columns = _columns(doc)
        lines += ["", f"## {_users(level['users'])} ({level['duration_s']:.1f} s)", "",
                  "| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        lines += ["| " + " | ".join(md_text(cell) for cell in row) + " |"
                  for row in _rows(level["steps"], len(columns) > len(COLUMNS))]
        examples = [f"- {md_code(s['name'])}: {md_text(e)}" for s in level["steps"] for e in s["examples"]]
        if examples:
            lines += ["", "Errors seen:", *examples]
    return "\n".join(lines) + "\n"


def _shape(doc: dict[str, Any]) -> str:
    shape = doc["shape"]
    if shape.get("arrival_rate"):
        return f"open arrivals at {shape['arrival_rate']}/s, at most {shape['users']} in flight"
    levels = shape["levels"]
    return f"a closed ramp of {', '.join(str(u) for u in levels)} user{'' if levels == [1] else 's'}, {shape['duration_s']:g} s each"


def compare(before: dict[str, Any], after: dict[str, Any], noise: float) -> dict[str, Any]:
    """Per step of the whole run: p95 and rate before and after, the change, and whether it is within ``noise``.

    A step in only one of the results is a row of its own, ``gone`` or ``new``; results of different shapes
    (a closed ramp and open arrivals, other levels or durations) are compared with a warning.
    """
    steps_before = {s["name"]: s for s in before["steps"]}
    names_after = {s["name"] for s in after["steps"]}
    rows = []
    for step in after["steps"]:
        old = steps_before.get(step["name"])
        row: dict[str, Any] = {"name": step["name"], "presence": "both" if old is not None else "new"}
        for metric in ("p95_ms", "ok_rps", "failures_total"):
            a, b = (old or {}).get(metric), step.get(metric)
            change = None if not a or b is None else (b - a) / a
            # from zero there is no ratio: any change is real
            within = a == b if change is None else abs(change) < noise
            row[metric] = {"before": a, "after": b, "change": None if change is None else round(change, 3),
                           "noise": within}
        rows.append(row)
    for step in before["steps"]:
        if step["name"] not in names_after:
            rows.append({"name": step["name"], "presence": "gone",
                         **{m: {"before": step.get(m), "after": None, "change": None, "noise": False}
                            for m in ("p95_ms", "ok_rps", "failures_total")}})
    warnings = []
    if _shape(before) != _shape(after):
        warnings.append(f"the results have different shapes: {_shape(before)} before, {_shape(after)} after")
    return {"schema": "foretune-load-compare/1", "scenario": after["scenario"], "noise_fraction": noise,
            "before": {"run": before["run"], "started": before["started"]},
            "after": {"run": after["run"], "started": after["started"]}, "steps": rows, "warnings": warnings}


def compare_text(diff: dict[str, Any]) -> str:
    def cell(m: dict[str, Any], fmt: str) -> str:
        if m["before"] is None or m["after"] is None:
            return "-"
        change = (f" ({m['change']:+.0%}{', noise' if m['noise'] else ''})" if m["change"] is not None
                  else "" if m["noise"] else " (new)")
        return f"{format(m['before'], fmt)} -> {format(m['after'], fmt)}{change}"

    def alone(r: dict[str, Any], metric: str, fmt: str) -> str:
        m = r[metric]
        return (f"{format(m['before'], fmt)} -> gone" if r["presence"] == "gone"
                else f"new: {format(m['after'], fmt)}") if (m["before"] if r["presence"] == "gone" else m["after"]) is not None else "-"

    header = ("step", "p95 ms", "successful req/s", "failures")
    rows: list[tuple[str, ...]] = [
        (r["name"], cell(r["p95_ms"], ".0f"), cell(r["ok_rps"], ".2f"), cell(r["failures_total"], "d"))
        if r.get("presence", "both") == "both" else
        (f"{r['name']} ({r['presence']})", alone(r, "p95_ms", ".0f"), alone(r, "ok_rps", ".2f"), alone(r, "failures_total", "d"))
        for r in diff["steps"]]
    title = [f"foretune load --compare: {diff['scenario']}, run {diff['before']['run']} -> {diff['after']['run']} "
            f"(changes under {diff['noise_fraction']:.0%} are noise)"]
    title += [f"warning: {w}" for w in diff.get("warnings", [])]
    return "\n".join(title + _table(rows, header)) + "\n"
