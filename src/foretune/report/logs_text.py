"""The logs report as terminal text or markdown (one code path; markdown gets tables and headings)."""

from __future__ import annotations

import os
import textwrap
from typing import Any

from foretune.logs.kinds import no_line_in_window
from foretune.report.short_names import keeps_last, shorten, shorten_all

WIDE = 70  # the widest first column of a table

TITLES = {"production": "Foreman production.log", "apache_access": "Apache access log", "apache_error": "Apache error log",
          "postgresql": "PostgreSQL log", "candlepin": "Candlepin log", "system": "System log", "tasks": "Tasks export"}


def section_title(kind: str, log: str) -> str:
    """A log section's heading: the kind of log and its name, once when the name says it already.

    >>> section_title("production", "production.log"), section_title("apache_access", "foreman-ssl_access_ssl.log")
    ('Foreman production.log', 'Apache access log: foreman-ssl_access_ssl.log')
    """
    if kind == "system" and log.startswith("mosquitto"):  # mosquitto's own log, read with the system logs
        return f"MQTT broker log: {log}"
    return TITLES[kind] if TITLES[kind].endswith(log) else f"{TITLES[kind]}: {log}"


def md_text(value: str) -> str:
    """Log text for markdown: shown literally, never as HTML, links or emphasis."""
    from foretune.report.markdown import text  # start-up: the audit's markdown module loads for markdown only

    return text(value)


def num(value: Any) -> str:
    """Numbers for people: ``1234`` -> ``'1,234'``; ``12.34`` -> ``'12.3'``; None -> ``'–'``.

    >>> num(1234), num(12.34), num(None)
    ('1,234', '12.3', '–')
    """
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def plural(n: int, word: str) -> str:
    """``plural(1, 'file')`` -> ``'1 file'``; ``plural(1234, 'line')`` -> ``'1,234 lines'``.

    >>> plural(1, "file"), plural(1234, "line")
    ('1 file', '1,234 lines')
    """
    return f"{n:,} {word}{'' if n == 1 else 's'}"


class Out:
    def __init__(self, markdown: bool, top: int, width: int | None = None) -> None:
        self.md = markdown
        self.top = top
        self.width = width  # wrap text to this many columns (a terminal); None: no wrapping
        self.lines: list[str] = []

    def text(self) -> str:
        """Every line written, control characters made visible: no log text drives the terminal."""
        from foretune.term import clean  # start-up: only when a report is written

        return clean("\n".join(self.lines).strip("\n")) + "\n"

    def head(self, text: str, level: int = 2) -> None:
        if self.md:
            self.lines += ["", "#" * level + " " + md_text(text), ""]
        else:
            self.lines += ["", text if level > 2 else text.upper(), "-" * len(text) if level <= 2 else ""]
            if not self.lines[-1]:
                self.lines.pop()

    def say(self, text: str) -> None:
        """One statement: indented in text (wrapped to the terminal); in markdown a paragraph of its own (adjacent
        lines would run into one), every Markdown or HTML meaning of the log text escaped."""
        if self.md:
            self.lines += [md_text(text), ""]
            return
        if self.width is None:
            self.lines.append("  " + text)
            return
        self.lines += textwrap.wrap(text, max(self.width, 40), initial_indent="  ", subsequent_indent="      ",
                                    break_on_hyphens=False) or [""]

    def table(self, headers: list[str], rows: list[list[Any]], *, least: int = 16) -> None:
        """Rows in columns; in a terminal, one block a row when the first column would get fewer than ``least``."""
        rows = [[num(c) for c in r] for r in rows[: self.top]]
        if not rows:
            return
        if self.md:
            self.lines += ["", "| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
            self.lines += ["| " + " | ".join(md_text(c) for c in r) + " |" for r in rows]
            self.lines.append("")
            return
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
        rest = sum(widths[1:]) + 2 * (len(widths) - 1)
        width = max(self.width or 0, 40) if self.width else 4 + WIDE + rest
        if width - 4 - rest < min(least, widths[0]):  # too wide for the terminal: one short block per row
            for name, r in zip(shorten_all([r[0] for r in rows], width - 4), rows):
                self.lines.append("    " + name)
                pairs = " · ".join(f"{h} {c}" for h, c in zip(headers[1:], r[1:]) if c)
                self.lines += textwrap.wrap(pairs, width, initial_indent="      ", subsequent_indent="      ",
                                            break_on_hyphens=False)
            return
        widths[0] = min(widths[0], WIDE, width - 4 - rest)
        names = shorten_all([r[0] for r in rows], widths[0])  # distinct names stay distinct when shortened

        def fmt(cells: list[str]) -> str:
            rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:])]
            return "    " + "  ".join([cells[0].ljust(widths[0]), *rest]).rstrip()
        head = headers[0] if len(headers[0]) <= widths[0] else headers[0][:widths[0] - 1].rstrip() + "…"  # reads from its start
        self.lines.append(fmt([head, *headers[1:]]))
        for name, r in zip(names, rows):
            if not keeps_last(r[0], name):  # the controller or the path's end would be cut: the name on its own line
                self.lines.append("    " + shorten(r[0], width - 4))
                name = ""
            self.lines.append(fmt([name, *r[1:]]))


def render(report: dict[str, Any], *, markdown: bool = False, color: bool = False, top: int = 15,
           width: int | None = None, version: bool = True) -> str:
    """The report as text (``width``: the terminal's columns, every line fits; None: no wrapping) or Markdown; a
    comparison's is :func:`foretune.report.logs_compare.render`'s."""
    out = Out(markdown, top, None if markdown else width)
    _report(out, report, version=version)
    return out.text()


def _common(files: list[Any]) -> str:
    """The directory the logs share (``.`` when none)."""
    paths = [str(f["path"] if isinstance(f, dict) else f) for f in files]
    try:
        return os.path.commonpath([os.path.dirname(p) or "." for p in paths]) or "."
    except ValueError:  # absolute and relative paths mixed
        return "."


def when(i: dict[str, Any]) -> str:
    """``first`` alone, or ``first .. last`` with the date once when both fall on one day."""
    first, last = i.get("first"), i.get("last")
    if not first:
        return "–"
    if not last or last == first:
        return str(first)
    return f"{first} .. {last[11:] if last[:10] == first[:10] else last}"


def _span(entry: dict[str, Any]) -> str:
    """``first .. last`` of a log's dated lines; what the log holds when it has none (a task export's header only).

    >>> _span({"first": None, "last": None, "kind": "tasks"}), _span({"first": "a", "last": None})
    ('no tasks in the export', 'a .. ?')
    >>> _span({"first": None, "last": None, "outside_window": 3})
    'none in the window, so not judged there'
    """
    if not entry.get("first") and not entry.get("last"):
        if entry.get("outside_window"):  # lines read, every one outside --since/--until
            return "none in the window, so not judged there"
        return "no tasks in the export" if entry.get("kind") == "tasks" else "no dated line"
    return f"{entry.get('first') or '?'} .. {entry.get('last') or '?'}"


def _report(out: Out, r: dict[str, Any], title: bool = True, version: bool = True) -> None:
    if title:
        source = r["source"] if len(r["files"]) < 2 or "release" in r else f"{plural(len(r['files']), 'file')} in {_common(r['files'])}"
        if out.md:
            out.lines.append(f"# foretune logs — {md_text(source)}")
        elif out.width and len(f"foretune logs — {source}") > out.width:  # a long path on a line of its own
            out.lines += ["foretune logs —", f"  {source}"]
        else:
            out.lines.append(f"foretune logs — {source}")
        if r.get("host"):
            out.say(f"host: {r['host']}")
        if "release" in r:  # a sosreport, snapshot or this host: what the audit calls it
            from foretune.report.actions import product_line  # start-up: the audit's header code, for this line only

            out.say(f"product: {product_line(r['release'], r.get('role'), r.get('product'))}")
        if r.get("collected_at"):
            out.say(f"collected: {r['collected_at']}")
        if r.get("damage"):  # first, not only under Problems: every figure below is of what the damage left
            out.say(f"damaged: {r['damage']}: the logs after the damage were not read")
        if version:  # the HTML page says it in its own line, with the generation time
            out.say(f"foretune: {r['foretune']}")
        span = log_span(r)
        out.say(f"period: {span}" + (" (the first and last dated line read)" if not span.startswith("no ") else ""))
    window = r["window"]
    if window["since"] or window["until"]:
        out.say(f"window: {window['since'] or 'start'} .. {window['until'] or 'end'} ({num(r['outside_window'])} lines outside)")
    out.say(f"{plural(len(r['files']), 'file')}, {plural(r['lines'], 'line')} read"
            + (f"; {plural(r['not_understood'], 'line')} not understood" if r["not_understood"] else "; every line understood"))
    _incidents(out, r)
    _fixes(out, r)
    for section in r["production"]:
        _production(out, section, r["capacity"].get("unknown"))
    for section in r["apache_access"]:
        _access(out, section, [b for b in r["bursts"] if b["log"] == section["log"]])
    for section in r["apache_error"]:
        _error(out, section)
    for section in r["postgresql"]:
        _postgres(out, section)
    for section in r["candlepin"]:
        _candlepin(out, section)
    for section in r["system"]:
        _system(out, section)
    for section in r["tasks"]:
        _tasks(out, section)
    if r["suggestions"]:
        from foretune.report.actions import combined_fixes  # start-up: the audit's snippet code, for suggestions only

        out.head("Logging changes that would show more")
        for s in r["suggestions"]:
            out.say(f"{s['title']}: {s['reason']} (source: {s['citation'].get('title') or s['citation']['id']})")
        # one snippet per file: the custom-hiera keys of every suggestion together, under the file's name
        for fix in combined_fixes([s["fix"] for s in r["suggestions"]], merged_by=None):
            block = fix.splitlines()
            out.lines += (["", "```", *block, "```", ""] if out.md else ["", *(f"      {ln}" for ln in block)])
    if r["problems"]:
        out.head("Problems")
        for p in r["problems"]:
            if out.md:
                out.lines += [f"- {md_text(p)}", ""]
            else:
                out.say(p)
    out.head("What next")
    for n, step in enumerate(what_next(r), 1):
        if out.md:
            from foretune.report.markdown import with_code  # start-up: loads for markdown only

            out.lines.append(f"{n}. {with_code(step)}")
        else:
            out.say(f"{n}. {step}")


def what_next(r: dict[str, Any]) -> list[str]:
    """The closing steps: audit what the incidents point to, log more, compare after a change."""
    steps = []
    for fix in r.get("fixes", []):
        steps.append(f"{fix['title']}: paste the drop-in under Fixes and run the restart under it; then read "
                     f"its log again with `foretune logs` for refused connections.")
    if r["incidents"]:
        steps.append(f"Run `{audit_command(r)}`{'' if audit_command(r) != 'foretune audit' else ' on the box or its sosreport'}: "
                     "the rules the verdict names judge the settings "
                     "behind these incidents and give their fixes.")
    if {"production", "apache_access"} <= set(r.get("not_found", [])) and r.get("source_kind") != "live":
        steps.append("Read the request logs this source lacks: `foretune logs` on the box reads them in place, or name "
                     "them: `foretune logs /var/log/foreman/production.log* /var/log/httpd/`.")
    if r["suggestions"]:
        hiera = any(fix.startswith("# /etc/foreman-installer/") for fix in _suggested(r))
        steps.append("Make the logging changes above, so the next report sees more"
                     + (f" (then run `{_installer(r)}`: it applies custom-hiera.yaml)." if hiera else "."))
    steps.append("After a change, compare a day before with a day after: `foretune logs --compare --window "
                 "BEFORE --window AFTER`.")
    return steps


def _suggested(r: dict[str, Any]) -> list[str]:
    from foretune.report.actions import combined_fixes  # start-up: the audit's snippet code, for suggestions only

    return combined_fixes([s["fix"] for s in r["suggestions"]], merged_by=None)


def audit_command(r: dict[str, Any]) -> str:
    """The audit command for the report's source: the sosreport or snapshot itself, "live" for this host; a name with
    shell characters, or log files given alone, leave it to the reader."""
    import re  # start-up: only when an audit command is written

    source = "live" if r.get("source_kind") == "live" else str(r.get("source") or "")
    if "release" not in r or not re.fullmatch(r"[A-Za-z0-9._/:@+=,-]+", source):
        return "foretune audit"
    return f"foretune audit {source}"


def _installer(r: dict[str, Any]) -> str:
    """The installer of the report's product (satellite-installer for Satellite, else foreman-installer)."""
    return "satellite-installer" if str(r.get("release") or "").startswith("Satellite") else "foreman-installer"


# what an incident kind asks of the admin: the audit rules that judge it (they read the same logs) and the setting
ACTIONS = {  # worst first
    "oom_kill": ("OOM kills", "oom-kills, memory-budget-over-ram"),
    "candlepin_oom": ("Candlepin out of heap", "candlepin-heap-low"),
    "socket_exhaustion": ("descriptors exhausted", "open-files-exhausted (LimitNOFILE)"),
    "pg_connection_exhaustion": ("PostgreSQL out of connections", "pg-max-connections-below-budget"),
    "db_pool_timeout": ("Foreman DB pool timeouts", "foreman-db-pool-too-small"),
    "http_503_burst": ("503 bursts", "puma-pool-saturated, apache-workers-over-limit (Puma capacity)"),
    "http_503_share": ("503s a share of one log's requests", "http-503-burst, puma-pool-saturated, apache-workers-over-limit"),
    "queue_at_capacity": ("Apache at MaxRequestWorkers", "apache-workers-over-limit, puma-pool-saturated"),
}


# the logs an incident is found in, named as the verdict names the ones it did not find
LOG_NAMES = {"production": "production.log", "apache_access": "Apache access log", "apache_error": "Apache error log",
             "postgresql": "PostgreSQL log", "candlepin": "Candlepin log", "system": "system log", "tasks": "task export"}


def _names(kinds: list[str]) -> str:
    return ", ".join(LOG_NAMES.get(k, k) for k in kinds)


# the same incidents on a box whose Rails runs under Passenger (Satellite 6.8 and older): the Passenger rules judge them
PASSENGER_ACTIONS = {
    "http_503_burst": ("503 bursts", "passenger-queue-too-small, passenger-queue-saturated (Passenger queue)"),
    "http_503_share": ("503s a share of one log's requests", "http-503-burst, passenger-queue-too-small, passenger-queue-saturated"),
    "queue_at_capacity": ("Passenger queue full", "passenger-queue-too-small, passenger-queue-saturated"),
}


def verdict(r: dict[str, Any]) -> list[str]:
    """What the logs show, worst first, each with the action it leads to; then the logs looked for and not found.
    No line claims "no incidents" over logs that were not read.

    >>> verdict({"incidents": [], "production": [], "not_found": ["production", "apache_access", "apache_error",
    ...          "postgresql", "candlepin", "system"]})[0]
    'no incidents can be seen: no production.log, Apache access log, Apache error log, PostgreSQL log, Candlepin log or system log in this source; only the task export was read'
    """
    order = list(ACTIONS)
    kinds = sorted(dict.fromkeys(i["kind"] for i in r["incidents"]), key=lambda k: order.index(k) if k in order else len(order))
    missing = [k for k in r.get("not_found", []) if k in LOG_NAMES]
    outside = [k for k in r.get("no_line_in_window", []) if k in LOG_NAMES]  # read, but silent on the window
    seen = [k for k in LOG_NAMES if k not in missing and k not in outside and (k not in r or r[k])]  # a Capsule's absent logs are not missing
    lost = [k for k in missing if k in r.get("lost", [])]  # a damaged archive: logs it may hold after the damage
    missing = [k for k in missing if k not in lost]
    unread = [f"lost to the damage, so not judged: {_names(lost)}"] if lost else []
    unread += [f"no line in the window, so not judged there: {_names(outside)}"] if outside else []
    unread += [f"there but not analysed: {', '.join(r['not_analysed'])}"] if r.get("not_analysed") else []
    if not seen and outside:  # every log read lies outside the window
        return [f"no incidents can be seen: no log read has a line in the window{'' if not missing else f'; not in this source: {_names(missing)}'}",
                *unread]
    if seen == ["tasks"]:  # incidents are found in request, database and system logs: none was read
        if not missing:
            return ["no incidents can be seen: only the task export was read", *unread]
        first, _, last = _names(missing).rpartition(", ")
        absent = f"no {first} or {last}" if first else f"no {last}"
        return [f"no incidents can be seen: {absent} in this source; only the task export was read", *unread]
    where = "in this source" if "release" in r else "among the logs given"  # a host, sosreport or snapshot; or files
    if not kinds:
        damaged = " (the archive is damaged: what it lost is not judged)" if r.get("damage") else ""
        return [f"no incidents in the logs read ({_read(r, seen)}): nothing in them asks for a change{damaged}"] + (
            [f"not {where}, so not judged: {_names(missing)}"] if missing else []) + unread
    at_capacity = [s["log"] for s in r["production"] if s["concurrency"]["minutes_at_capacity"]]
    passenger = any(i["service"] == "passenger" for i in r["incidents"])  # a Passenger-era box: no Puma to judge
    lines = []
    broker = next((f for f in r.get("fixes", []) if f["for"] == "socket_exhaustion" and f["service"] == "mosquitto"), None)
    # a full queue is one line a service: Apache's, Passenger's and Puma's are judged by different rules
    units = [(kind, service) for kind in kinds
             for service in (dict.fromkeys(str(i["service"]) for i in r["incidents"] if i["kind"] == kind)
                             if kind == "queue_at_capacity" else (None,))]
    for kind, service in units:
        label, rules = (PASSENGER_ACTIONS if passenger else ACTIONS).get(kind, ACTIONS.get(kind, (kind.replace("_", " "), "")))
        found = [i for i in r["incidents"] if i["kind"] == kind and service in (None, i["service"])]
        services = ", ".join(dict.fromkeys(str(i["service"]) for i in found))
        if kind == "queue_at_capacity" and services == "puma":  # production.log's requests open at once, not Apache's
            label, rules = "Puma at capacity", "puma-pool-saturated"  # the rule that quotes this incident
        count = sum(int(i["count"] or 0) for i in found)
        extra = " with Puma at capacity" if kind in ("http_503_burst", "http_503_share", "queue_at_capacity") and at_capacity \
            and services != "puma" else ""
        # a measured failure is critical, as in the audit; Puma's requests at its capacity are saturation, not failure
        severity = "high" if (kind == "queue_at_capacity" and services == "puma") or r.get("garbled") else "critical"
        if kind == "queue_at_capacity" and services == "httpd":  # the audit reads the limits, not this error_log line
            lines.append(f"{severity}: {label} ({services}: {count}){extra}: httpd refused work "
                         "at its MaxRequestWorkers → raise MaxRequestWorkers with ServerLimit (the tuning profile for "
                         f"the host count sets both); `{audit_command(r)}` checks them against ThreadsPerChild and the Puma "
                         "capacity, but passes when they are consistent, so this log line is the evidence")
            continue
        if kind == "socket_exhaustion" and broker is not None:  # mosquitto: the fix is known from its own log
            others = [i for i in found if i["service"] != "mosquitto"]
            lines.append(f"{severity}: mosquitto refused connections, no descriptor left (mosquitto: "
                         f"{sum(int(i['count'] or 0) for i in found if i['service'] == 'mosquitto')}) → raise its "
                         f"LimitNOFILE to {broker['value']:,} (Fixes); `{audit_command(r)}` (rules open-files-exhausted, "
                         "mosquitto-nofile-low) sizes it for the pull-REX host count")
            if not others:
                continue
            found, services = others, ", ".join(dict.fromkeys(str(i["service"]) for i in others))
            count = sum(int(i["count"] or 0) for i in others)
        if kind in ("http_503_burst", "http_503_share") and r.get("role") == "capsule" and not passenger:
            # a Capsule runs no Puma: the server's rules are not applicable here, so name what is
            from foretune.rules.apache.http_503_burst import capsule_pointer  # start-up: only for a Capsule's 503s

            lines.append(f"{severity}: {label} ({services}: {count}) → look at {capsule_pointer(found)}")
            continue
        lines.append(f"{severity}: {label} ({services}: {count}){extra} → run `{audit_command(r)}` "
                     + (f"(rules {rules})" if rules else "on the box or its sosreport"))
    if missing:
        lines.append(f"not {where}, so not judged: {_names(missing)}")
    if r.get("garbled"):  # deflate decodes damage into plausible lines: none of them proves a failure alone
        lines.insert(0, "read from a .tar.gz that failed its integrity check: every line may be damaged, so no incident "
                        "below is critical until the logs on the box show it")
    return lines + unread


def _read(r: dict[str, Any], seen: list[str]) -> str:
    """The logs read, by kind, mosquitto's own log named apart from the system logs."""
    system = [str(s["log"]) for s in r.get("system", [])]
    names = [LOG_NAMES.get(k, k) for k in seen if k != "system" or any(not n.startswith("mosquitto") for n in system)]
    return ", ".join(names + (["mosquitto log"] if any(n.startswith("mosquitto") for n in system) else []))


def _incidents(out: Out, r: dict[str, Any]) -> None:
    out.head("Verdict")
    for line in verdict(r):
        if out.md:
            from foretune.report.markdown import with_code  # start-up: loads for markdown only

            out.lines += [f"- {with_code(line)}"]
        else:
            out.say(line)
    out.head("Incidents")
    if not r["incidents"]:
        read = [k for k in LOG_NAMES if k not in r.get("not_found", [])]
        out.say("none found in the logs read" if read != ["tasks"] else "none can be found in a task export alone")
        return
    if out.width:  # a terminal: the file name and one time span keep a row short
        out.table(["kind", "service", "count", "when", "log"],
                  [[i["kind"], i["service"], i["count"], when(i), os.path.basename(str(i["path"]))] for i in r["incidents"]])
    else:
        out.table(["kind", "service", "count", "first", "last", "log"],
                  [[i["kind"], i["service"], i["count"], i["first"], i["last"], i["path"]] for i in r["incidents"]])
    for i in r["incidents"]:
        out.say(f"{i['kind']}: {i['line']}")


def _section(out: Out, kind: str, s: dict[str, Any]) -> bool:
    """The section's head and line count; False when none of its lines lies in the window (no figure follows)."""
    out.head(section_title(kind, s["log"]))
    bad = f", {plural(s['not_understood'], 'line')} not understood" if s["not_understood"] else ""
    jumps = f", {plural(s['clock_jumps'], 'clock jump')}" if s.get("clock_jumps") else ""
    out.say(f"{plural(s['lines'], 'line')}, {_span({**s, 'kind': kind})}{bad}{jumps}")
    if s["not_understood_examples"] and not out.md:
        out.say("first not understood: " + " | ".join(s["not_understood_examples"][:2]))
    return not no_line_in_window(s)


def _lat(s: dict[str, Any] | None) -> str:
    if not s or not s.get("count"):
        return "no durations"
    return f"p50 {num(s['p50'])} ms, p95 {num(s['p95'])} ms, p99 {num(s['p99'])} ms, max {num(s['max'])} ms"


def _production(out: Out, s: dict[str, Any], no_capacity: str | None = None) -> None:
    if not _section(out, "production", s):
        return
    status = ", ".join(f"{k} {num(v)}" for k, v in s["status"].items())
    out.say(f"{plural(s['requests'], 'request')}{f' ({status})' if status else ''}; {_lat(s['latency'])}"
            + (" (journald)" if s["journald"] else ""))
    c = s["concurrency"]
    if c["capacity"]:
        out.say(f"concurrency: peak {plural(c['peak'], 'request')} at once; Puma capacity {num(c['capacity'])}; "
                f"{plural(c['minutes_at_capacity'], 'minute')} at capacity"
                + (f" ({c['first_at_capacity']} .. {c['last_at_capacity']})" if c["minutes_at_capacity"] else ""))
    elif no_capacity:
        out.say(f"concurrency: peak {plural(c['peak'], 'request')} at once ({no_capacity})")
    else:
        out.say(f"concurrency: peak {plural(c['peak'], 'request')} at once (Puma capacity unknown: --puma-capacity N)")
    out.table(["action", "count", "% of time", "p50 ms", "p95 ms", "p99 ms", "max ms", "5xx"],
              [[a["action"], a["count"], a["share"], a["p50"], a["p95"], a["p99"], a["max"], a["status"].get("5xx", 0)]
               for a in s["actions"]])
    if s["registration"]:
        out.say("registration steps:")
        out.table(["action", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"],
                  [[a["action"].rsplit("::", 1)[-1], a["count"], a["p50"], a["p95"], a["p99"], a["max"]] for a in s["registration"]])
    _flows(out, s["registration_flows"])


def _flows(out: Out, f: dict[str, Any]) -> None:
    """The registration flows: how many creates were followed, then whole-flow and per-step latency."""
    if not f["creates"]:
        return
    calls = f["calls_per_flow"]
    out.say(f"registration flows: {num(f['flows'])} of {plural(f['creates'], 'consumer create')} followed within "
            f"{num(f['window_seconds'])} s ({num(f['with_facts'])} to the fact update); {num(f['failed_creates'])} failed, "
            f"{num(f['creates_without_uuid'])} without a follow-up"
            + (f"; per flow {num(calls['compliance'])} compliance and {num(calls['consumer_get'])} consumer GET calls"
               if f["flows"] else ""))
    names = {"script": "GET /register (script)", "create": "POST /rhsm/consumers", "host": "POST /register (host)",
             "facts": "PUT /rhsm/consumers/:id (facts)"}
    d = f["duration"]
    rows = [[names[k], v["count"], v["p50"], v["p95"], v["p99"], v["max"]] for k, v in f["steps"].items() if v["count"]]
    out.table(["flow (first step start .. last step end)", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"],
              [["whole flow", d["count"], d["p50"], d["p95"], d["p99"], d["max"]], *rows] if d["count"] else [])
    if f["dropped_events"]:
        out.say(f"{plural(f['dropped_events'], 'registration request')} beyond the memory cap not joined")


def _access(out: Out, s: dict[str, Any], runs: list[dict[str, Any]]) -> None:
    if not _section(out, "apache_access", s):
        return
    st = s["status"]
    out.say(f"{plural(s['requests'], 'request')}: 2xx {num(st['2xx'])}, 3xx {num(st['3xx'])}, 4xx {num(st['4xx'])}, "
            f"5xx {num(st['5xx'])} (502 {num(st['502'])}, 503 {num(st['503'])})")
    out.say(f"latency: {_lat(s['latency'])}" if s["has_duration"] else "latency: not in this log format (no %D)")
    if runs:
        out.say("502/503 bursts:")
        out.table(["start", "end", "responses", "peak/min", "error log minutes"],
                  [[b["start"], b["end"], b["responses"], b["peak_per_minute"],
                    ", ".join(f"{k} {v}" for k, v in b["error_log_minutes"].items()) or "–"] for b in runs])
    out.table(["endpoint", "requests"], [e[:2] for e in s["top_endpoints"]])
    out.table(["client", "requests"], s["top_clients"])
    out.table(["client kind", "requests"], s["client_kinds"])


def _error(out: Out, s: dict[str, Any]) -> None:
    if not _section(out, "apache_error", s):
        return
    if s["events"]:
        out.table(["event", "count", "minutes", "first", "last"],
                  [[k, v["count"], v["minutes"], v["first"], v["last"]] for k, v in s["events"].items()])
    else:
        out.say("no MaxRequestWorkers, proxy, queue or open-file errors")


def _postgres(out: Out, s: dict[str, Any]) -> None:
    if not _section(out, "postgresql", s):
        return
    ce = s["connection_exhaustion"]
    out.say(f"connection exhaustion: {plural(ce['count'], 'refused connection')}"
            + (f" in {plural(ce['minutes'], 'minute')} ({ce['first']} .. {ce['last']})" if ce["count"] else ""))
    out.say(f"deadlocks {num(s['deadlocks'])}; 'checkpoints are occurring too frequently' {num(s['checkpoint_warnings'])}; "
            f"autovacuum {num(s['autovacuum']['vacuum'])}, autoanalyze {num(s['autovacuum']['analyze'])}")
    slow = s["slow_statements"]
    if slow["count"]:
        out.say(f"slow statements: {num(slow['count'])}, {_lat(slow)}")
        out.table(["application", "count", "total ms", "max ms"], [[a["application"], a["count"], a["total_ms"], a["max_ms"]] for a in s["by_application"]])
        out.table(["statement", "count", "total ms", "max ms"], [[a["statement"], a["count"], a["total_ms"], a["max_ms"]] for a in s["top_statements"]])
    else:
        out.say("slow statements: none logged (set log_min_duration_statement, see below)")


def _candlepin(out: Out, s: dict[str, Any]) -> None:
    if not _section(out, "candlepin", s):
        return
    out.say(f"{plural(s['requests'], 'request')}; {_lat(s['latency'])}; {num(s['slow_requests'])} slower than {num(s['slow_ms'])} ms; "
            f"OutOfMemoryError {num(s['out_of_memory'])}")
    out.table(["endpoint", "count", "p50 ms", "p95 ms", "p99 ms", "max ms"],
              [[e["endpoint"], e["count"], e["p50"], e["p95"], e["p99"], e["max"]] for e in s["endpoints"]])


def _system(out: Out, s: dict[str, Any]) -> None:
    if not _section(out, "system", s):
        return
    broker = str(s["log"]).startswith("mosquitto")  # mosquitto's own log holds no OOM kill
    if not broker:
        out.say("OOM kills: " + (", ".join(f"{k} {num(v)}" for k, v in s["oom_kills"].items()) or "none"))
        out.say("open-file/socket exhaustion: " + (", ".join(f"{k} {num(v)}" for k, v in s["file_or_socket_exhaustion"].items()) or "none"))
    m = s.get("mqtt")
    if m and (m["connections"] or m["disconnects"]):
        gone = ", ".join(f"{cause} {num(n)}" for cause, n in m["disconnects"].items()) or "none"
        out.say(f"MQTT clients (one a pull-REX host): {plural(m['connections'], 'connection')} from "
                f"{plural(m['clients'], 'client')}{' or more' if m['clients_capped'] else ''}, at most "
                f"{num(m['peak_connections_per_minute'])} in one minute; disconnects: {gone}")
    if broker or m:
        refused = (m or {}).get("refused") or s["file_or_socket_exhaustion"].get("mosquitto", 0)
        out.say(f"connections refused, no descriptor left (\"system socket count has been exceeded\"): {num(refused)}"
                + (" → mosquitto's LimitNOFILE (see Fixes)" if refused else ""))


def _fixes(out: Out, r: dict[str, Any]) -> None:
    """What the incidents measured ask for, as snippets that take effect when pasted (the drop-in, then the restart)."""
    if not r.get("fixes"):
        return
    from foretune.report.actions import with_activation  # start-up: the audit's snippet code, for fixes only

    out.head("Fixes")
    for fix in r["fixes"]:
        text = f"{fix['title']}: {fix['reason']} (source: {fix['citation'].get('title') or fix['citation']['id']})"
        if out.md:  # the commands in the reason as code
            from foretune.report.markdown import with_code  # start-up: loads for markdown only

            out.lines += [with_code(text), ""]
        else:
            out.say(text)
        for snippet in with_activation([fix["fix"]]):
            block = snippet.splitlines()
            out.lines += (["", "```", *block, "```", ""] if out.md else ["", *(f"      {ln}" for ln in block)])


def _tasks(out: Out, s: dict[str, Any]) -> None:
    if not _section(out, "tasks", s):
        return
    if s["tasks"]:
        out.say(f"{plural(s['tasks'], 'task')}; paused {num(s['paused'])}; stopped with error {num(s['stopped_with_error'])} (times UTC)")
        out.table(["label", "count", "p50 s", "p95 s", "max s", "total s"],
                  [[t["label"], t["count"], t["p50"], t["p95"], t["max"], t["sum"]] for t in s["by_label"]])
    if s["steps"]:
        out.table(["step (action class)", "count", "execution s", "max s"],
                  [[t["action_class"], t["count"], t["execution_s"], t["max_s"]] for t in s["steps"]])


def log_span(r: dict[str, Any]) -> str:
    """The first and last dated line of every log a report read, or that none was dated (or in the window)."""
    from foretune.logs.kinds import KINDS  # start-up: the kinds list, for a comparison only

    sections = [s for kind in KINDS for s in r.get(kind, [])]
    firsts = sorted(str(s["first"]) for s in sections if s.get("first"))
    lasts = sorted(str(s["last"]) for s in sections if s.get("last"))
    if firsts and lasts:
        return when({"first": firsts[0], "last": lasts[-1]})
    return "no line in the window" if r.get("outside_window") else "no dated line"
