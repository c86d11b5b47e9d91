"""Values an admin sets for tuning keys (custom-hiera.yaml, the answers file), checked before anything computes with them.

A key that holds a count (workers, threads, pool sizes, limits, intervals) takes a whole number; YAML
block text, a word, a list or a map there is a problem on that value, and so is a count out of its
plausible range (negative, 0 where it cannot be, past a hundred thousand, or 2^30 for limits and times); the value is left out, so the plan
goes on with the installer's own.

>>> checked("foreman::db_pool", "some text\\n")
(None, 'foreman::db_pool: "some text\\\\n" is not a whole number')
>>> checked("foreman::foreman_service_puma_workers", "12")
(12, None)
>>> checked("foreman::foreman_service_puma_threads_max", 0)
(None, 'foreman::foreman_service_puma_threads_max: 0 is out of range (a count from 1 to 100000)')
>>> checked("postgresql::server::config_entries/shared_buffers", "8GB")
('8GB', None)
"""

from __future__ import annotations

import json
import re
from typing import Any

from foretune import knowledge

# the last word of a key that counts something (the planner adds and multiplies these)
_COUNT = re.compile(r"(?:workers|worker_count|threads_min|threads_max|threadsperchild|threadlimit|db_pool|pool_size|"
                    r"concurrency|instances|serverlimit|maxclients|maxrequestworkers|max_connections|cost_limit|"
                    r"startservers|sparethreads|max_requests|queue_size|idle_time|start_timeout|"
                    r"file_limit|pub_interval|rate_limit|keepalive_requests|keepalive_timeout|num_pulp_workers|"
                    r"tasks_per_pulp_worker)$")
# PostgreSQL entries take units ("10min", "4MB"): only these are bare whole numbers
_PG_COUNTS = frozenset({"max_connections", "autovacuum_vacuum_cost_limit", "autovacuum_max_workers"})
_DIGITS = re.compile(r"[+-]?[0-9]{1,18}")


def expects_count(key: str) -> bool:
    """True when ``key`` (``module::param`` or ``postgresql::server::config_entries/name``) holds a whole number.

    >>> [expects_count(k) for k in ("foreman::db_pool", "apache::mod::event::serverlimit", "candlepin::java_opts",
    ...                             "postgresql::server::config_entries/work_mem", "redis::maxmemory",
    ...                             "postgresql::server::config_entries/checkpoint_timeout", "foreman::passenger_prestart",
    ...                             "postgresql::server::config_entries/max_connections")]
    [True, True, False, False, False, False, False, True]
    """
    last = re.split(r"::|/", key)[-1].lower()
    if "/" in key:
        return last in _PG_COUNTS
    return bool(_COUNT.search(last))


def shown(value: Any) -> str:
    """A value as a problem quotes it: one line, control characters escaped, at most 60 characters."""
    text = json.dumps(value, ensure_ascii=True, default=str) if not isinstance(value, bool) else str(value).lower()
    return text if len(text) <= 60 else text[:57] + "..."


def checked(key: str, value: Any) -> tuple[Any, str | None]:
    """(the value to use, None), or (None, the problem) when ``key`` holds a count and ``value`` is not a whole number.

    A whole number written as a string (``"12"``) is that number.
    """
    if not expects_count(key) or value is None:
        return value, None
    if isinstance(value, int) and not isinstance(value, bool):
        return _in_range(key, value)
    if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
        return _in_range(key, int(value.strip()))
    return None, f"{key}: {shown(value)} is not a whole number"


def _in_range(key: str, number: int) -> tuple[int | None, str | None]:
    """``number`` within the plausible range of a count (thresholds-audit.yaml: hiera_count_*), else a problem."""
    last = re.split(r"::|/", key)[-1].lower()
    low = 1 if any(last.endswith(suffix) for suffix in knowledge.threshold("hiera_count_positive")) else 0
    large = any(last.endswith(suffix) for suffix in knowledge.threshold("hiera_count_large"))
    high = int(knowledge.threshold("hiera_count_large_max" if large else "hiera_count_max"))
    if low <= number <= high:
        return number, None
    return None, f"{key}: {shown(number)} is out of range (a count from {low} to {high})"
