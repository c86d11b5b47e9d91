"""The one-file collector for servers without Python 3.9 (RHEL 7: 2.7, RHEL 8: platform-python 3.6).

:func:`generate` fills the stdlib-only template (``collector_template.py``) with the tables
``collect`` itself uses — the specs (files and commands), the service prefixes whose limits are
read, the SQL statements and psql options, the log paths with their age and size bounds — and with :mod:`foretune.host.redact` itself,
rewritten for Python 2.7 and 3.6 (:mod:`foretune.facts.portable`), so the two cannot read or
redact differently.
"""

from __future__ import annotations

import re
from importlib import resources

from foretune import __version__
from foretune.errors import DataError
from foretune.knowledge import threshold

# where the installer's scenario names its answers file (`:answer_file: "/etc/...-answers.yaml"`)
ANSWER_FILE = r"""^:?answer_file:[ \t]*['"]?([^'"\s]+)"""
TABLES = re.compile(r"^# @TABLES@.*?^# @END@\n", re.MULTILINE | re.DOTALL)
REDACT = re.compile(r"^# @REDACT@.*?^# @END@\n", re.MULTILINE | re.DOTALL)


def spec_table() -> list[dict[str, object]]:
    """The specs ``collect`` reads up front, as plain data."""
    from foretune.host.specs import SPECS  # start-up: only to generate the collector

    return [{"name": s.name, "paths": list(s.paths), "commands": [list(c) for c in s.commands], "glob": s.glob,
             "needs_root": s.needs_root} for s in SPECS if s.collect]


def tables() -> str:
    """Python source (2.7 and 3.6 compatible literals) of every table the collector needs."""
    from foretune import pg  # start-up: psql's module loads only when the collector is generated
    from foretune.facts.extract import live_sql  # start-up: only to generate the collector
    from foretune.facts.extract.platform import UNIT_PREFIXES  # start-up: only to generate the collector
    from foretune.host.sources.live import COMMAND_TIMEOUT, MAX_FILE_BYTES  # start-up: only to generate the collector
    from foretune.logs import kinds  # start-up: the log kinds load only when the collector is generated

    lines = [
        "# generated from foretune's specs and redaction tables: do not edit",
        f"FORETUNE_VERSION = {__version__!r}",
        "SPECS = [",
        *(f"    {spec!r}," for spec in spec_table()),
        "]",
        f"UNIT_PREFIXES = {tuple(UNIT_PREFIXES)!r}",
        f"ANSWER_FILE = {ANSWER_FILE!r}",
        f"MAX_FILE_BYTES = {MAX_FILE_BYTES!r}",
        f"COMMAND_TIMEOUT = {float(COMMAND_TIMEOUT)!r}",
        f"QUERIES = {list(live_sql.QUERIES.items())!r}",
        f"FOREMAN_DB = {tuple(live_sql.FOREMAN_DB)!r}",
        f"ENV_CONNINFO = {live_sql.ENV_CONNINFO!r}",
        f"DEFAULT_HOST = {live_sql.DEFAULT_HOST!r}",
        f"DATABASE_YML = {live_sql.DATABASE_YML!r}",
        f"SQL_TIMEOUT = {float(live_sql.SQL_TIMEOUT)!r}",
        f"PSQL_OPTIONS = {list(pg.PSQL_OPTIONS)!r}",
        f"LOG_PATTERNS = {tuple(kinds.PATTERNS)!r}",
        f"LOG_SKIP = {kinds._SKIP.pattern!r}",
        f"LOG_DAYS = {int(threshold('logs_live_facts_days'))!r}",
        f"LOG_MAX_BYTES = {int(threshold('logs_snapshot_max_bytes'))!r}",
    ]
    return "\n".join(lines) + "\n"


def redaction() -> str:
    """foretune.host.redact as Python 2.7/3.6 source."""
    from foretune.facts.portable import portable  # start-up: only to generate the collector

    source = resources.files("foretune.host").joinpath("redact.py").read_text(encoding="utf-8")
    return "# foretune.host.redact, rewritten for Python 2.7 and 3.6: do not edit\n" + portable(source) + "\n"


def generate() -> str:
    """The complete collector script."""
    template = resources.files("foretune.facts").joinpath("collector_template.py").read_text(encoding="utf-8")
    script, tables_found = TABLES.subn(lambda _: tables(), template)
    script, redact_found = REDACT.subn(lambda _: redaction(), script)
    if (tables_found, redact_found) != (1, 1):

        raise DataError("the collector template lacks its table or redaction marker")
    return script
