"""postgresql.conf / postgresql.auto.conf and ``SHOW ALL`` rows.

Values are kept as the raw strings PostgreSQL reads (quotes removed, units kept).

>>> parse_postgresql_conf("max_connections = 500\\t# comment\\nshared_buffers='4GB'\\n#work_mem = 4MB\\nlog_line_prefix = '%t '\\n")
{'max_connections': '500', 'shared_buffers': '4GB', 'log_line_prefix': '%t '}
>>> parse_postgresql_conf("")
{}
>>> parse_postgresql_conf("# all commented\\n#port = 5432\\n")
{}
>>> parse_postgresql_conf("max_connections")
Traceback (most recent call last):
...
foretune.errors.ParseError: postgresql.conf line 1 is not 'name = value': 'max_connections'
"""

from __future__ import annotations

import re

from foretune.facts.parsers import ParseError
from foretune.units import format_bytes

MAX_LINE = 64 * 1024
_LINE = re.compile(r"^([A-Za-z_][\w.]*)\s*(?:=\s*|\s+)(.*)$")


def _value(raw: str) -> str:
    raw = raw.strip()
    if raw.startswith("'"):
        end = raw.find("'", 1)
        while end != -1 and raw[end + 1:end + 2] == "'":  # '' escapes a quote
            end = raw.find("'", end + 2)
        return raw[1:end].replace("''", "'") if end != -1 else raw[1:]
    return raw.split("#", 1)[0].strip()


def parse_postgresql_conf(text: str) -> dict[str, str]:
    """Settings in file order; a later line for the same name wins, as in PostgreSQL.

    ``include``, ``include_if_exists`` and ``include_dir`` lines stay in as names (see
    :func:`parse_postgresql_lines` to follow them where they stand).
    """
    return dict(parse_postgresql_lines(text))


def parse_postgresql_lines(text: str) -> list[tuple[str, str]]:
    """``(name, value)`` of every line in file order, include directives among them.

    >>> parse_postgresql_lines("work_mem = 4MB\\ninclude_dir 'conf.d'\\nwork_mem = 8MB\\n")
    [('work_mem', '4MB'), ('include_dir', 'conf.d'), ('work_mem', '8MB')]
    """
    settings: list[tuple[str, str]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) > MAX_LINE:
            raise ParseError(f"postgresql.conf line {number} is longer than {format_bytes(MAX_LINE)}: ignored")
        match = _LINE.match(line)
        if not match:
            raise ParseError(f"postgresql.conf line {number} is not 'name = value': {line[:60]!r}")
        settings.append((match.group(1).lower(), _value(match.group(2))))
    return settings
