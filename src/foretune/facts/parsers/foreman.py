"""Foreman outputs: ``pumactl stats``, the foreman_tasks CSV and foreman-maintain metrics.

>>> parse_pumactl_stats('Command stats sent success\\n{"workers": 2, "booted_workers": 2, "worker_status": '
...                     '[{"last_status": {"backlog": 1, "max_threads": 5}}]}')
{'workers': 2, 'booted_workers': 2, 'max_threads': 5, 'backlog': 1}
>>> parse_pumactl_stats("") is None
True
>>> parse_pumactl_stats("No such file or directory @ rb_sysopen - /usr/share/foreman/tmp/puma.state")
Traceback (most recent call last):
...
foretune.errors.ParseError: pumactl stats has no JSON: No such file or directory @ rb_sysopen - /usr/share/foreman/tmp/puma.state
>>> rows = parse_tasks_csv("id,state,started_at\\n1,paused,2024-01-01 00:00:00\\n")
>>> rows[0]["state"]
'paused'
>>> parse_tasks_csv("")
[]
>>> parse_tasks_csv("psql: error: connection to server failed")
Traceback (most recent call last):
...
foretune.errors.ParseError: task list has no 'state' column: psql: error: connection to server failed
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from foretune.facts.parsers import ParseError
from foretune.facts.parsers.psql import aligned
from foretune.host.jsonfile import load_json

MAX_COUNT = 10**7  # foretune estimate: far above any real worker, thread or host count
# foreman_tasks_tasks in column order (theforeman/foreman-tasks db/migrate: create_foreman_tasks 2013 without the
# dropped progress column, then parent_task_id 2014, start_at/start_before 2015, action 2017, user_id 2018,
# state_updated_at 2019); older schemas lack the trailing ones
TASK_COLUMNS = ["id", "type", "label", "started_at", "ended_at", "state", "result", "external_id", "parent_task_id",
                "start_at", "start_before", "action", "user_id", "state_updated_at"]
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}[,;]")


def parse_pumactl_stats(text: str) -> dict[str, int] | None:
    """Cluster figures of ``pumactl stats``: workers, booted_workers, max_threads, backlog and pool_capacity (summed),
    saturated_workers (workers with no free thread)."""
    if not text.strip():
        return None
    start = text.find("{")
    if start == -1:
        raise ParseError(f"pumactl stats has no JSON: {text.strip().splitlines()[0][:100]}")
    try:
        data = json.loads(text[start:])
    except json.JSONDecodeError as exc:
        raise ParseError(f"pumactl stats is not valid JSON: {exc.msg} at char {exc.pos}") from None
    except (ValueError, RecursionError):
        data = load_json(text[start:])  # raises the capped, one-line reason
    if not isinstance(data, dict):
        raise ParseError("pumactl stats JSON is not an object")
    workers = data.get("worker_status", [])
    statuses = [w.get("last_status", {}) for w in workers if isinstance(w, dict)] if isinstance(workers, list) else []
    statuses = [s for s in statuses if isinstance(s, dict)]
    if not statuses and "max_threads" in data:  # single mode
        statuses = [data]
    result = {"workers": _count(data.get("workers", 1 if statuses else 0), "workers"),
              "booted_workers": _count(data.get("booted_workers", len(statuses)), "booted_workers")}
    if statuses:
        result["max_threads"] = max(_count(s.get("max_threads", 0), "max_threads") for s in statuses)
        result["backlog"] = sum(_count(s.get("backlog", 0), "backlog") for s in statuses)
        if all("pool_capacity" in s for s in statuses):
            capacities = [_count(s["pool_capacity"], "pool_capacity") for s in statuses]
            result["pool_capacity"] = sum(capacities)
            result["saturated_workers"] = capacities.count(0)
    return result


def _count(value: Any, name: str) -> int:
    """A JSON count that must be a plausible whole number."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise ParseError(f"pumactl stats: {name} is not a count: {str(value)[:40]!r}")
    return value


def parse_tasks_csv(text: str) -> list[dict[str, str]]:
    """Rows of a task table exported as CSV (sos >= 4.0 ``foreman_tasks_tasks``), as headerless CSV (foreman-debug's
    ``foreman_tasks_tasks.csv``, sos 3.0 to 3.6) or as psql's aligned table (sos 3.7 to 3.9 ran
    ``psql foreman -c 'select * from foreman_tasks_tasks'``)."""
    if not text.strip():
        return []
    lines = text.strip("\n").splitlines()
    if len(lines) >= 2 and "|" in lines[0] and lines[1].strip() and set(lines[1].strip()) <= set("-+"):
        rows = aligned("\n".join(lines), "state")
        if rows is None:
            raise ParseError(f"task list has no 'state' column: {lines[0].strip()[:100]}")
        return rows
    delimiter = ";" if text.splitlines()[0].count(";") > text.splitlines()[0].count(",") else ","
    headerless = UUID.match(lines[0]) is not None  # a header row starts with the column name "id"
    reader = csv.DictReader(io.StringIO(text), fieldnames=TASK_COLUMNS if headerless else None, delimiter=delimiter)
    try:
        if not reader.fieldnames or "state" not in [f.strip() for f in reader.fieldnames]:
            raise ParseError(f"task list has no 'state' column: {text.strip().splitlines()[0][:100]}")
        return [{(k or "").strip(): (v or "").strip() for k, v in row.items() if isinstance(v, str) or v is None}
                for row in reader]
    except csv.Error as exc:
        raise ParseError(f"task list is not readable CSV: {exc}") from None


def managed_hosts_from_metrics(data: dict[str, Any]) -> int | None:
    """Hosts (all types except discovered ones) from foreman-maintain's ``hosts_by_type_count``.

    >>> managed_hosts_from_metrics({"hosts_by_type_count": {"Managed": 10, "Discovered": 3}})
    10
    >>> managed_hosts_from_metrics({}) is None
    True
    """
    counts = data.get("hosts_by_type_count")
    if not isinstance(counts, dict):
        return None
    total = sum(int(v) for k, v in counts.items() if str(k) != "Discovered" and _digits(v))
    if total > MAX_COUNT:
        raise ParseError(f"ignored: {total if total < 10**12 else 'more than 10^12'} hosts is not plausible")
    return total


def _digits(value: Any) -> bool:
    """A count written with ASCII digits only (``'٣'`` and ``'²'`` are not counts), at most 12 of them."""
    text = str(value)
    return 0 < len(text) <= 12 and text.isascii() and text.isdigit()
