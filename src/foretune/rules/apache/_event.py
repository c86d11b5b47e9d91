"""Effective event-MPM limits from the apache fact (Apache's own defaults fill the gaps)."""

from __future__ import annotations

from typing import Any

APACHE_EVENT_DEFAULTS = {"ServerLimit": 16, "ThreadsPerChild": 25}  # httpd's compiled-in defaults


def event_limits(apache: dict[str, Any]) -> tuple[int, int, int]:
    """(ServerLimit, ThreadsPerChild, MaxRequestWorkers) as httpd applies them."""
    server_limit = apache.get("ServerLimit") or APACHE_EVENT_DEFAULTS["ServerLimit"]
    threads = apache.get("ThreadsPerChild") or APACHE_EVENT_DEFAULTS["ThreadsPerChild"]
    workers = apache.get("MaxRequestWorkers") or apache.get("MaxClients") or server_limit * threads
    return int(server_limit), int(threads), int(workers)
