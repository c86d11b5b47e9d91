"""Effective event-MPM limits from the apache fact (Apache's own defaults fill the gaps)."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import module_default


def event_limits(apache: dict[str, Any]) -> tuple[int, int, int]:
    """(ServerLimit, ThreadsPerChild, MaxRequestWorkers) as httpd applies them."""
    server_limit = apache.get("ServerLimit") or module_default("httpd_event", "serverlimit")
    threads = apache.get("ThreadsPerChild") or module_default("httpd_event", "threadsperchild")
    workers = apache.get("MaxRequestWorkers") or apache.get("MaxClients") or server_limit * threads
    return int(server_limit), int(threads), int(workers)
