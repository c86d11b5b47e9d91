"""Effective prefork limits from the apache fact (puppetlabs-apache's prefork defaults fill the gaps)."""

from __future__ import annotations

from typing import Any

from foretune.knowledge import module_default


def prefork_clients(apache: dict[str, Any]) -> tuple[int, int]:
    """(ServerLimit, MaxClients) in force; MaxRequestWorkers stands in for MaxClients (its httpd 2.4 name)."""
    defaults = module_default("apache", "prefork")
    limit = apache.get("ServerLimit") or defaults["serverlimit"]
    clients = apache.get("MaxClients") or apache.get("MaxRequestWorkers") or defaults["maxclients"]
    return limit, clients
