"""`verify`'s report as text, JSON and node_exporter's textfile-collector format; every value passes redaction."""

from __future__ import annotations

import json
import time
from typing import Any

from foretune import __version__
from foretune.apply.verify import STATES, Report
from foretune.render.snippets import yaml_scalar

SCHEMA = "foretune-verify/1"  # the JSON's version; its schema is apply/schema/verify-v1.json


def _value(check_value: Any) -> str:
    from foretune.host.redact import redact_text  # start-up: only when a report is written

    return redact_text(yaml_scalar(check_value) if not isinstance(check_value, str) else check_value)


def text(report: Report) -> str:
    from foretune.host.redact import redact_text  # start-up: only when a report is written

    lines = [f"run {report.run} on {report.host} ({report.release}), applied {report.applied_at}"]
    width = max((len(c.change.tunable) for c in report.checks), default=0)
    for check in report.checks:
        c = check.change
        op = "remove lines" if c.channel == "dropin" and c.op == "remove" and check.why and "taken out of" in check.why else c.op
        what = f"{c.channel} {c.target}" + (f" = {_value(c.value)}" if c.op == "set" else f" ({op})")
        line = f"  {check.state:<12} {c.tunable:<{width}}  {what}"
        if check.state == "in force" and check.where:
            line += f"  [{check.where}: {_value(check.found)}]" if check.found else f"  [{check.where}]"
        if check.why:
            line += f"\n  {'':<12} {'':<{width}}  {check.why}"
        lines.append(redact_text(line))
    counts = report.counts
    lines.append(", ".join(f"{counts[state]} {state}" for state in STATES))
    return "\n".join(lines) + "\n"


def as_json(report: Report) -> str:
    from foretune.apply.journal import change_to_dict  # start-up: only when a report is written
    from foretune.host.redact import redact_data  # start-up: only when a report is written

    data = {
        "schema": SCHEMA, "foretune": __version__,
        "run": report.run, "applied_at": report.applied_at, "host": report.host, "release": report.release,
        "exit_status": report.exit_status, "counts": report.counts,
        "changes": [{"change": change_to_dict(c.change), "state": c.state, "found": c.found, "where": c.where, "why": c.why}
                    for c in report.checks],
    }
    return json.dumps(redact_data(data), indent=2) + "\n"


def _label(value: str) -> str:
    """A label value as the exposition format escapes it (backslash, double quote, line feed)."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def prometheus(report: Report, now: float | None = None) -> str:
    """node_exporter textfile-collector format: one gauge per change and state, totals, the run and the exit status."""
    from foretune.host.redact import redact_text  # start-up: only when a report is written

    now = time.time() if now is None else now
    out = ["# HELP foretune_change_state 1 for the state each change of the last applied set is in (verify).",
           "# TYPE foretune_change_state gauge"]
    for check in report.checks:
        c = check.change
        labels = f'tunable="{_label(redact_text(c.tunable))}",channel="{_label(c.channel)}",target="{_label(redact_text(c.target))}"'
        for state in STATES:
            out.append(f'foretune_change_state{{{labels},state="{state.replace(" ", "_")}"}} {int(check.state == state)}')
    out += ["# HELP foretune_changes Changes of the last applied set per state.", "# TYPE foretune_changes gauge"]
    out += [f'foretune_changes{{state="{state.replace(" ", "_")}"}} {count}' for state, count in report.counts.items()]
    out += ["# HELP foretune_verify_exit_status verify's exit status: 0 in force, 1 drift or pending, 2 error.",
            "# TYPE foretune_verify_exit_status gauge",
            f"foretune_verify_exit_status {report.exit_status}",
            "# HELP foretune_verify_timestamp_seconds When verify last ran.",
            "# TYPE foretune_verify_timestamp_seconds gauge",
            f"foretune_verify_timestamp_seconds {int(now)}",
            "# HELP foretune_apply_info The applied run verify read.",
            "# TYPE foretune_apply_info gauge",
            f'foretune_apply_info{{run="{_label(report.run)}",release="{_label(report.release)}"}} 1']
    return "\n".join(out) + "\n"
