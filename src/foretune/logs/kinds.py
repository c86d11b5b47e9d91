"""Which log a path is (by its name, or by sniffing its first line), and rotation order.

Paths are relative to the server root, which is also how they appear in a sosreport.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

# (pattern relative to the root, kind); the first match wins
PATTERNS: tuple[tuple[str, str], ...] = (
    ("var/log/foreman/production.log*", "production"),
    ("var/log/httpd/*access*log*", "apache_access"),
    ("var/log/httpd/*error*log*", "apache_error"),
    ("var/log/httpd/error_log*", "apache_error"),
    ("var/log/apache2/*access*log*", "apache_access"),
    ("var/log/apache2/*error*log*", "apache_error"),
    ("var/lib/pgsql/data/log/postgresql-*", "postgresql"),
    ("var/lib/pgsql/data/pg_log/postgresql-*", "postgresql"),
    ("var/lib/pgsql/*/data/log/postgresql-*", "postgresql"),
    ("var/opt/rh/rh-postgresql12/lib/pgsql/data/log/postgresql-*", "postgresql"),
    ("var/opt/rh/rh-postgresql12/lib/pgsql/data/pg_log/postgresql-*", "postgresql"),
    ("var/log/postgresql/postgresql-*", "postgresql"),
    ("var/log/candlepin/candlepin.log*", "candlepin"),
    ("var/log/candlepin/error.log*", "candlepin"),
    ("var/log/messages*", "system"),
    ("var/log/syslog*", "system"),
    ("var/log/mosquitto/mosquitto.log*", "system"),  # mosquitto's own log (log_dest file): its socket exhaustion
    ("sos_commands/logs/journalctl_--no-pager*", "system"),
    ("sos_commands/kernel/dmesg*", "system"),
    ("var/log/dmesg*", "system"),
    ("sos_commands/foreman/foreman_tasks_tasks*", "tasks"),
    ("sos_commands/foreman/dynflow_steps*", "tasks"),
    ("sos_commands/foreman/foreman-debug/foreman_tasks_tasks.csv", "tasks"),
)
# name patterns for files given one by one
NAMES: tuple[tuple[str, str], ...] = (
    ("production*.log*", "production"), ("*access*log*", "apache_access"), ("*error_log*", "apache_error"),
    ("*ssl_error*", "apache_error"), ("postgresql*", "postgresql"), ("candlepin*.log*", "candlepin"),
    ("messages*", "system"), ("syslog*", "system"), ("mosquitto.log*", "system"), ("journalctl*", "system"), ("dmesg*", "system"), ("*tasks*", "tasks"),
    ("dynflow_steps*", "tasks"),
)
KINDS = ("production", "apache_access", "apache_error", "postgresql", "candlepin", "system", "tasks")
_SKIP = re.compile(r"\.(?:pid|lock|pos)$")
_ROTATION = re.compile(r"(?:[.-](\d{8})(?:\d{2,6})?|\.(\d{1,3}))?(?:\.(?:gz|xz|bz2))?$")
_ACCESS = re.compile(rb'^\S+ \S+ .*?\[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d [-+]\d{4}\] "')


def kind_of(rel: str) -> str | None:
    """The kind of a root-relative path, or None when it is no log foretune reads.

    >>> kind_of("var/log/foreman/production.log-20240101.gz"), kind_of("var/log/httpd/foreman-ssl_error_ssl.log")
    ('production', 'apache_error')
    >>> kind_of("etc/foreman/settings.yaml") is None
    True
    """
    rel = rel.lstrip("/")
    if _SKIP.search(rel):
        return None
    for pattern, kind in PATTERNS:
        if fnmatch.fnmatchcase(rel, pattern):
            return kind
    return None


def kind_of_name(name: str, head: bytes) -> str | None:
    """The kind of a file given by itself: its root-relative path, its name, then its first line."""
    found = kind_of(name)
    if found:
        return found
    base = name.rsplit("/", 1)[-1]
    for pattern, kind in NAMES:
        if fnmatch.fnmatchcase(base, pattern):
            return kind
    return sniff(head)


def sniff(head: bytes) -> str | None:
    """The kind of a log from its first line.

    >>> sniff(b'1.2.3.4 - - [16/Jun/2022:14:14:47 +0200] "GET / HTTP/1.1" 200 4 "-" "x"')
    'apache_access'
    >>> sniff(b"2024-06-09T20:49:03 [I|app|8832e8d0] Started GET")
    'production'
    """
    line = head.split(b"\n", 1)[0]
    if line.startswith(b"{") and b'"MESSAGE"' in line and b"__REALTIME_TIMESTAMP" in line:
        return "production"  # journalctl -o json of the foreman unit
    if _ACCESS.match(line):
        return "apache_access"
    if re.match(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d [\[]", line):
        return "production"
    if re.match(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[", line):
        return "candlepin"
    if re.match(rb"\[\w{3} \w{3} \d\d \d\d:\d\d:\d\d", line):
        return "apache_error"
    if re.match(rb"[<\s]*\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \w+", line) and re.search(rb"(LOG|ERROR|FATAL|WARNING):  ", line):
        return "postgresql"
    if re.match(rb"\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ ", line):
        return "system"
    if b"," in line and ((b"label" in line and b"state" in line) or b"execution_time" in line):
        return "tasks"
    return None


def family(rel: str) -> str:
    """A log's name without rotation and compression suffixes.

    >>> family("var/log/foreman/production.log-20240101.gz"), family("var/log/messages.1")
    ('production.log', 'messages')
    """
    base = rel.rsplit("/", 1)[-1]
    return _ROTATION.sub("", base) or base


def rotation_rank(rel: str) -> tuple[int, str]:
    """Sort key putting rotated files of one family oldest first and the live file last.

    >>> sorted(["p.log", "p.log-20240102.gz", "p.log-20240101", "p.log.1"], key=rotation_rank)
    ['p.log-20240101', 'p.log-20240102.gz', 'p.log.1', 'p.log']
    """
    base = rel.rsplit("/", 1)[-1]
    match = _ROTATION.search(base)
    if match and match.group(1):
        return (int(match.group(1)) - 100_000_000, base)
    if match and match.group(2):
        return (-int(match.group(2)), base)
    return (0, base)


def no_line_in_window(section: dict[str, Any]) -> bool:
    """Whether a log's section has lines but none inside the window (every line read lies outside it).

    >>> no_line_in_window({"first": None, "outside_window": 5}), no_line_in_window({"first": None, "outside_window": 0})
    (True, False)
    """
    return section.get("first") is None and bool(section.get("outside_window"))
