"""The logs report made ready for output: each suggestion's fix written as the snippet ``plan`` and ``audit`` print,
and the fixes of what the logs measured (mosquitto out of descriptors)."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import citation, module_default
from foretune.plan.components.mqtt import after_exhaustion
from foretune.plan.model import Fix
from foretune.render.snippets import render_fix


def rendered(report: dict[str, Any], limits: dict[str, int] | None = None) -> dict[str, Any]:
    """``report`` (from :func:`foretune.logs.summary.build`) with every suggestion's fix data as its snippet text, and
    ``fixes``: what the incidents ask for; ``limits``: the open-files limits in force by service, when the source says."""
    for suggestion in report.get("suggestions", []):
        if isinstance(suggestion["fix"], dict):
            suggestion["fix"] = render_fix(Fix(**suggestion["fix"]))
    report["fixes"] = [fix for fix in (_broker(report, (limits or {}).get("mosquitto")),) if fix is not None]
    return report


def _broker(report: dict[str, Any], current: int | None) -> dict[str, Any] | None:
    """mosquitto refused connections for want of descriptors: a limits.conf drop-in for mosquitto.service (the
    guide's mechanism), sized for the clients its log saw, or twice the limit it ran out at when that is more."""
    refused = [i for i in report.get("incidents", []) if i["kind"] == "socket_exhaustion" and i["service"] == "mosquitto"]
    if not refused:
        return None
    clients = max((s["mqtt"]["clients"] for s in report.get("system", []) if s.get("mqtt")), default=0)
    want, doubled = after_exhaustion(clients, current)
    how = f"one descriptor a pull-REX host and headroom, for the {clients:,} clients its log saw connect, the guide's rule"
    ran_out = current if current is not None else int(module_default("mosquitto_nofile"))
    said = f"the {ran_out:,} it ran out at" if current is not None else \
        f"systemd's default {ran_out:,}, the limit unless a drop-in sets one (the source does not say)"
    if doubled:
        how = (f"twice {said}, a foretune estimate, then find what holds its "
               "descriptors (`ls /proc/$(systemctl show -p MainPID --value mosquitto)/fd | wc -l`): if "
               "something leaks them, twice the limit only delays the next exhaustion")
    cite = citation("gf-pull-rex")
    return {"for": "socket_exhaustion", "service": "mosquitto", "value": want,
            "title": f"Raise mosquitto's LimitNOFILE to {want:,}",
            "reason": f"mosquitto refused connections, with no descriptor left; {how}; the pull-REX host count, when "
                      "known, sizes it better (`foretune plan --hosts N`)",
            "fix": render_fix(Fix("limit", "mosquitto", want)),
            "citation": {"id": cite.id, "title": cite.title, "where": cite.where}}


SEVERITIES = ("critical", "high", "medium", "low")


def verdict_line(line: str) -> dict[str, Any]:
    """One verdict line as JSON: its severity (the word it opens with, None for a line that judges nothing) and text.

    >>> verdict_line("critical, worse: apache: 503 responses 0 → 70"), verdict_line("not judged (1 figure): ...")
    ({'severity': 'critical', 'text': 'critical, worse: apache: 503 responses 0 → 70'}, {'severity': None, 'text': 'not judged (1 figure): ...'})
    """
    word = line.split(":", 1)[0].split(",", 1)[0]
    return {"severity": word if word in SEVERITIES else None, "text": line}


def closing(report: dict[str, Any]) -> dict[str, Any]:
    """What the text and Markdown reports say around the figures, for JSON: the verdict (a line each, with its
    severity and the action it leads to) and the steps of What next; a comparison also names the foretune that made it."""
    if "metrics" in report:
        from foretune import __version__  # start-up: a comparison's JSON only
        from foretune.report.logs_compare import compare_next, compare_verdict  # start-up: a comparison's JSON only

        return {"foretune_version": __version__, "verdict": [verdict_line(line) for line in compare_verdict(report)],
                "next_steps": compare_next(report)}
    from foretune.report.logs_text import verdict, what_next  # start-up: a report's JSON only

    return {"verdict": [verdict_line(line) for line in verdict(report)], "next_steps": what_next(report)}

