"""``foretune logs --compare`` as text or Markdown: who and when on both sides, the verdict (failures that got
worse first), the figures side by side, and what to do next."""

from __future__ import annotations

from typing import Any

from foretune.report.logs_text import Out, audit_command, log_span, num, plural


def render(report: dict[str, Any], *, markdown: bool = False, color: bool = False, top: int = 15,
           width: int | None = None, version: bool = True) -> str:
    """A comparison (from :func:`foretune.logs.compare.compare`) as text or Markdown, as :mod:`logs_text` writes one
    report."""
    out = Out(markdown, top, None if markdown else width)
    compare(out, report, version=version)
    return out.text()


def compare(out: Out, c: dict[str, Any], version: bool = True) -> None:
    """Who and when for both sides, the verdict (failures first, then what got worse and better), the table, and what
    to do next."""
    before, after = c["before"], c["after"]
    out.lines.append(("# " if out.md else "") + "foretune logs — before/after")
    hosts = list(dict.fromkeys(str(r.get("host") or "not named by its logs") for r in (before, after)))
    out.say("host: " + (hosts[0] if len(hosts) == 1 else f"{hosts[0]} (before), {hosts[1]} (after)"))
    if "release" in before or "release" in after:
        from foretune.report.actions import product_line  # start-up: the audit's header code, for this line only

        products = list(dict.fromkeys(product_line(r.get("release"), r.get("role"), r.get("product")) for r in (before, after) if "release" in r))
        out.say("product: " + " → ".join(products))
    if version:  # the HTML page says it in its own line, with the generation time
        out.say(f"foretune: {before['foretune']}")
    for side, r, window in (("before", before, c["before_window"]), ("after", after, c["after_window"])):
        collected = f"; collected {r['collected_at']}" if r.get("collected_at") else ""
        out.say(f"{side}: {r['source']}, window {window}; its logs span {log_span(r)}{collected}")
    out.head("Verdict")
    for line in compare_verdict(c):
        if out.md:
            from foretune.report.markdown import with_code  # start-up: loads for markdown only

            out.lines.append(f"- {with_code(line)}")
        else:
            out.say(line)
    out.head("Changes")
    out.top = max(out.top, len(c["metrics"]))
    out.table(["metric", "before", "after", "change", "note"],
              [[m["metric"], m["before"], m["after"], m["change"], m["note"]] for m in c["metrics"]], least=40)
    out.head("What next")
    for n, step in enumerate(compare_next(c), 1):
        if out.md:
            from foretune.report.markdown import with_code  # start-up: loads for markdown only

            out.lines.append(f"{n}. {with_code(step)}")
        else:
            out.say(f"{n}. {step}")


def _row(m: dict[str, Any]) -> str:
    return f"{m['metric']} {num(m['before'])} → {num(m['after'])}" + (" (new)" if m["note"].startswith("new") else "")


def compare_verdict(c: dict[str, Any]) -> list[str]:
    """What changed beyond noise: failures that got worse (critical: measured failure), then other figures worse,
    then better; each line with the action it leads to.

    >>> m = {"metric": "apache: 503 responses", "before": 0, "after": 70, "change": 70, "note": "new worse", "noise": False,
    ...      "direction": "worse", "failures": True}
    >>> compare_verdict({"metrics": [m], "before": {"source": "a"}, "after": {"source": "b", "release": "x", "window": {}}})[0]
    'critical, worse: apache: 503 responses 0 → 70 (new) → read what the after side logged: `foretune logs b`, then `foretune audit b` judges the settings behind it'
    """
    after = c["after"]
    worse = [m for m in c["metrics"] if m.get("direction") == "worse"]
    better = [m for m in c["metrics"] if m.get("direction") == "better"]
    failed = [m for m in worse if m.get("failures")]
    slower = [m for m in worse if not m.get("failures")]
    logs = f"`{logs_command(after)}`"
    lines = []
    if failed:
        lines.append(f"critical, worse: {'; '.join(_row(m) for m in failed)} → read what the after side logged: {logs}, "
                     f"then `{audit_command(after)}`{' on the box or its sosreport' if audit_command(after) == 'foretune audit' else ''} "
                     "judges the settings behind it")
    if slower:
        lines.append(f"worse: {'; '.join(_row(m) for m in slower)}"
                     + ("" if failed else f" → read the after side's slowest actions and incidents: {logs}"))
    if better:
        lines.append(f"better: {'; '.join(_row(m) for m in better)}")
    one_side = [m for m in c["metrics"] if m["note"].startswith("no such log")]
    noise = [m for m in c["metrics"] if m["noise"]]
    silent = [m for m in c["metrics"] if m.get("outside_window")]
    if not lines:
        lines.append("no figure changed beyond noise: the change made no difference these logs can show"
                     if len(one_side) + len(noise) + len(silent) < len(c["metrics"]) else
                     "nothing to judge: every figure is noise, in the logs of one side only, or of a log with no line "
                     "in a window")
    if silent:
        where: dict[str, list[str]] = {}  # the side(s) without a line: the logs
        for m in silent:
            sides = " and ".join(m["outside_window"])
            kind = str(m["metric"]).split(":", 1)[0]
            if kind not in where.setdefault(sides, []):
                where[sides].append(kind)
        said = "; ".join(f"{sides}: {', '.join(kinds)}" for sides, kinds in where.items())
        lines.append(f"not compared ({plural(len(silent), 'figure')}): their log has no line in that side's window, "
                     f"so it tells nothing there ({said})")
    if one_side:
        kinds = ", ".join(dict.fromkeys(str(m["metric"]).split(":", 1)[0] for m in one_side))
        lines.append(f"not compared ({plural(len(one_side), 'figure')}): a log of its kind on one side only ({kinds})")
    if noise:
        lines.append(f"not judged ({plural(len(noise), 'figure')}): too few samples or within noise on one side, "
                     f"below {num(c['noise_rule']['min_requests'])} or under {c['noise_rule']['fraction']:.0%}")
    return lines


def compare_next(c: dict[str, Any]) -> list[str]:
    """The closing steps of a comparison: look into what got worse, keep what got better, compare a longer period."""
    after = c["after"]
    steps = []
    if any(m.get("direction") == "worse" for m in c["metrics"]):
        steps.append(f"Read the after side alone for the incidents behind what got worse: `{logs_command(after)}`"
                     + f"; `{audit_command(after)}`{'' if audit_command(after) != 'foretune audit' else ' on the box or its sosreport'} "
                     "names the settings to change, and undoing the change compared here is the quickest way back.")
    if any(m["noise"] for m in c["metrics"]):
        steps.append("Compare longer periods (a full working day each side) where a figure is noise: each side needs "
                     f"at least {num(c['noise_rule']['min_requests'])} samples.")
    steps.append("After the next change, compare again: `foretune logs --compare --window BEFORE --window AFTER`.")
    return steps


def logs_command(r: dict[str, Any]) -> str:
    """The logs command that reads one side of a comparison again: its source and window, as far as the shell
    takes them as written."""
    import re  # start-up: only when a logs command is written

    parts = [] if r.get("source_kind") == "live" else str(r.get("source") or "").split(", ")
    if not all(re.fullmatch(r"[A-Za-z0-9._/:@+=-]+", p) for p in parts):
        return "foretune logs SOURCE"
    window = r["window"]
    words = ["foretune logs", *parts]
    words += [f"--since '{window['since'].replace('T', ' ')}'"] if window.get("since") else []
    words += [f"--until '{window['until'].replace('T', ' ')}'"] if window.get("until") else []
    return " ".join(w for w in words if w)
