"""Bounded work: every parser of untrusted text is linear, so a 10 MB line costs well under a second.

(The bound is generous on purpose: a quadratic pattern needs minutes on such a line, not 1 s. It is
CPU time, so a machine busy with other work does not fail the test.)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

import pytest

from foretune.facts.extract.core import excerpt
from foretune.facts.extract.services import _connector, excerpt_json
from foretune.facts.parsers import (
    ParseError,
    foreman,
    httpd,
    keyvalue,
    packages,
    postgresql,
    process,
    redis,
    storage,
    system,
    systemd,
)
from foretune.facts.parsers.yamlfile import parse_yaml
from foretune.host.jsonfile import load_json
from foretune.host.text import decode
from foretune.units import redis_size

SIZE = 10 * 1024 * 1024
SHAPES = {
    "letters": "x" * SIZE,
    "spaces": "Current active profile: a" + " " * SIZE + "b",
    "pairs": "A=" * (SIZE // 2),
    "dashes": "-1" * (SIZE // 2),
    "brackets": "[" * SIZE,
    "max-spaces": "Max open files" + " " * SIZE + "x",
    "digits-spaces": "MemTotal: 1" + " " * SIZE + "x",
    "connectors": "<Connector " * (SIZE // 11),
    "quotes": 'NAME="' * (SIZE // 6),
}
PARSERS: dict[str, Callable[[str], Any]] = {
    "env": keyvalue.parse_env, "env-lenient": lambda t: keyvalue.parse_env(t, strict=False),
    "environment-words": keyvalue.parse_environment_words, "meminfo": system.parse_meminfo, "lscpu": system.parse_lscpu,
    "thp": system.parse_thp_selected, "tuned": system.parse_tuned_active, "sysctl": system.parse_sysctl,
    "limits": lambda t: system.parse_proc_limits("header\n" + t), "show": systemd.parse_show,
    "list-units": systemd.parse_list_units, "unit-file": systemd.parse_unit_file, "httpd": httpd.parse_directives,
    "postgresql": postgresql.parse_postgresql_conf, "redis-conf": redis.parse_redis_conf, "redis-info": redis.parse_redis_info,
    "redis-size": redis_size, "pumactl": foreman.parse_pumactl_stats, "tasks": foreman.parse_tasks_csv,
    "mounts": storage.parse_mounts, "df": lambda t: storage.parse_df("Filesystem\n" + t), "lsblk": storage.parse_lsblk_pairs,
    "packages": packages.parse_packages, "nvra": packages.split_nvra, "yaml": parse_yaml, "json": load_json,
    "excerpt": lambda t: excerpt(t, r"^(MemTotal|Max|NAME)"), "excerpt-json": excerpt_json,
    "connector": lambda t: _connector(t, 'port="23443"'), "decode": lambda t: decode(t.encode(), "x"),
    "ps": lambda t: process.parse_ps_rss("USER PID RSS COMMAND\n" + t), "vmstat": process.parse_vmstat,
    "passenger": process.parse_passenger_pool, "sar": process.parse_sar_steal,
    "table-sizes": lambda t: process.parse_table_sizes("table_name | total\n" + t),
    "agent-queues": process.count_agent_queues,
}


@pytest.mark.parametrize("parser", list(PARSERS))
def test_a_10_mb_line_costs_under_a_second(parser: str) -> None:
    slowest = ("", 0.0)
    for shape, text in SHAPES.items():
        start = time.process_time()
        with contextlib.suppress(ParseError):
            PARSERS[parser](text)
        elapsed = time.process_time() - start
        slowest = max(slowest, (shape, elapsed), key=lambda s: s[1])
    assert slowest[1] < 1.0, f"{parser} took {slowest[1]:.2f} s on the {slowest[0]} line"


@pytest.mark.parametrize("parser", list(PARSERS))
def test_many_blank_lines_stay_linear(parser: str) -> None:
    """With re.MULTILINE, ``^\\s*`` runs across blank lines: quadratic on 200,000 of them (minutes)."""
    text = "\n" * 200_000 + "x"
    start = time.process_time()
    with contextlib.suppress(ParseError):
        PARSERS[parser](text)
    assert time.process_time() - start < 1.0
