"""Measured state: ``ps`` RSS per service, /proc/vmstat counters and ``passenger-status --show pool``."""

from __future__ import annotations

import re

from foretune.facts.parsers import ParseError
from foretune.facts.parsers.psql import aligned
from foretune.units import pg_size_pretty_bytes

# service -> substrings of the command line that identify its processes (first match wins, in this order)
SERVICES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Dynflow Sidekiq", ("sidekiq",)),
    ("Foreman (Puma)", ("puma", "foreman-ruby", "/usr/share/foreman")),
    ("Passenger", ("Passenger", "passenger")),
    ("PostgreSQL", ("postgres", "postmaster")),
    ("Candlepin", ("tomcat", "candlepin", "org.apache.catalina")),  # Tomcat started as "java ... catalina.startup.Bootstrap"
    ("pulpcore", ("pulpcore", "gunicorn", "pulp")),
    ("MongoDB", ("mongod",)),
    ("Redis", ("redis-server", "redis")),
    ("qpidd", ("qpidd",)),
    ("qdrouterd", ("qdrouterd",)),
    ("Puppet server", ("puppetserver", "puppet-server")),
    ("mosquitto", ("mosquitto",)),
    ("httpd", ("httpd", "apache2")),
    ("Smart Proxy", ("smart-proxy", "foreman-proxy")),
)


def parse_ps_rss(text: str) -> dict[str, dict[str, int]]:
    """``ps aux``-style output: RSS bytes and process count per Foreman-stack service.

    Thread lines of ``ps auxwwwm`` (``-`` in the PID column) are skipped.
    """
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if re.match(r"^\s*USER\s+PID\s+", line)), None)
    if header is None:
        if text.strip():
            raise ParseError("ps output has no 'USER PID ... RSS ... COMMAND' header")
        return {}
    columns = lines[header].split()
    if "RSS" not in columns or "COMMAND" not in columns:
        raise ParseError("ps output has no RSS or COMMAND column")
    rss_at, cmd_at = columns.index("RSS"), columns.index("COMMAND")
    out: dict[str, dict[str, int]] = {}
    for line in lines[header + 1:]:
        words = line.split(None, cmd_at)
        if len(words) <= cmd_at or not _digits(words[1]) or not _digits(words[rss_at]):
            continue
        command = words[cmd_at]
        for service, needles in SERVICES:
            if any(n in command for n in needles):
                entry = out.setdefault(service, {"processes": 0, "rss_bytes": 0})
                entry["processes"] += 1
                entry["rss_bytes"] += int(words[rss_at]) * 1024
                break
    return out


def parse_ps_others(text: str, top: int = 5) -> list[dict[str, object]]:
    """The ``top`` largest processes by RSS that belong to no Foreman-stack service (a co-located logstash, an
    agent): ``{command, user, pid, rss_bytes}``, largest first; the command is its first word's base name."""
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if re.match(r"^\s*USER\s+PID\s+", line)), None)
    if header is None:
        return []
    columns = lines[header].split()
    if "RSS" not in columns or "COMMAND" not in columns:
        return []
    rss_at, cmd_at = columns.index("RSS"), columns.index("COMMAND")
    found: list[dict[str, object]] = []
    for line in lines[header + 1:]:
        words = line.split(None, cmd_at)
        if len(words) <= cmd_at or not _digits(words[1]) or not _digits(words[rss_at]):
            continue
        command = words[cmd_at]
        if any(n in command for _, needles in SERVICES for n in needles) or command.startswith("["):
            continue  # a Foreman-stack service, or a kernel thread
        found.append({"command": command.split()[0].rsplit("/", 1)[-1][:60], "user": words[0][:32], "pid": int(words[1]),
                      "rss_bytes": int(words[rss_at]) * 1024})
    return sorted(found, key=lambda p: -int(str(p["rss_bytes"])))[:top]


def _digits(text: str) -> bool:
    """ASCII digits of a plausible count (``int()`` would also take ``'٣'`` or thousands of digits)."""
    return 0 < len(text) <= 18 and text.isascii() and text.isdigit()


def parse_vmstat(text: str) -> dict[str, int]:
    """/proc/vmstat: ``name value`` pairs."""
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2 or not _digits(parts[1].lstrip("-")):
            raise ParseError(f"vmstat line {number} is not 'name number': {line[:60]!r}")
        out[parts[0]] = int(parts[1])
    return out


def parse_passenger_pool(text: str) -> dict[str, int]:
    """``passenger-status --show pool``: max_pool_size, processes, top_queue, app_queue (summed over the application
    groups) and app_queue_max (the fullest group's: PassengerMaxRequestQueueSize is a limit per application)."""
    # [ \t]* rather than \s*: with re.M, \s* would run across lines and make the search quadratic
    patterns = {"max_pool_size": r"^[ \t]*Max pool size[ \t]*:[ \t]*(\d{1,12})", "processes": r"^[ \t]*Processes[ \t]*:[ \t]*(\d{1,12})",
                "top_queue": r"^[ \t]*Requests in top-level queue[ \t]*:[ \t]*(\d{1,12})"}
    out: dict[str, int] = {}
    for key, pattern in patterns.items():
        match = re.search(pattern, text, flags=re.M | re.ASCII)
        if match:
            out[key] = int(match.group(1))
    queues = [int(m) for m in re.findall(r"^[ \t]*Requests in queue[ \t]*:[ \t]*(\d{1,12})", text, flags=re.M | re.ASCII)]
    if queues:
        out["app_queue"] = sum(queues)
        out["app_queue_max"] = max(queues)
    if "max_pool_size" not in out:
        if text.strip():
            raise ParseError("passenger-status output has no 'Max pool size' line")
        return {}
    return out


def parse_sar_steal(text: str) -> list[float]:
    """%steal of every ``all`` CPU sample in ``sar -A``/``sar -u`` text output (Average lines left out)."""
    values: list[float] = []
    column = None
    for line in text.splitlines():
        words = line.split()
        if "%steal" in words and "CPU" in words:
            column = (words.index("%steal"), words.index("CPU"))
            continue
        if not words:
            column = None
            continue
        if column is None or words[0].startswith("Average") or len(words) <= column[0]:
            continue
        steal_at, cpu_at = column
        if words[cpu_at] != "all":
            continue
        try:
            values.append(float(words[steal_at].replace(",", ".")))
        except ValueError:
            continue
    return values


def parse_table_sizes(text: str) -> dict[str, int]:
    """``*_db_tables_sizes`` (psql aligned output of pg_size_pretty columns): table -> total bytes."""
    rows = aligned(text, "table_name")
    if rows is None:
        if text.strip():
            raise ParseError("table sizes output has no 'table_name | total' header")
        return {}
    sizes = {row["table_name"]: pg_size_pretty_bytes(row.get("total", "")) for row in rows}
    return {table: size for table, size in sizes.items() if size is not None}


def parse_psql_count(text: str) -> int:
    """The single number of ``select count(*)`` in psql's aligned output.

    >>> parse_psql_count(" count  \\n--------\\n 421337\\n(1 row)\\n")
    421337
    """
    rows = aligned(text, "count")
    if not rows or not re.fullmatch(r"\d{1,15}", rows[0]["count"], re.ASCII):
        raise ParseError(f"no count(*) result: {text.strip().splitlines()[0][:100] if text.strip() else 'empty'}")
    return int(rows[0]["count"])


def count_agent_queues(text: str) -> int:
    """``qpid-stat -q``: the number of distinct ``pulp.agent.<uuid>`` queues (one per katello-agent host)."""
    return len(set(re.findall(r"^[ \t]*(pulp\.agent\.[0-9a-f-]{8,})\s", text, flags=re.M)))
