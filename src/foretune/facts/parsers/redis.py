"""Redis: redis.conf and ``redis-cli info``.

>>> parse_redis_conf("# c\\nmaxmemory 2gb\\nsave 900 1\\nsave 300 10\\n")
{'maxmemory': '2gb', 'save': '300 10'}
>>> parse_redis_conf("")
{}
>>> parse_redis_info("# Server\\nredis_version:6.2.7\\nused_memory:1024\\n")
{'redis_version': '6.2.7', 'used_memory': '1024'}
>>> parse_redis_info("Could not connect to Redis at 127.0.0.1:6379: Connection refused")
Traceback (most recent call last):
...
foretune.errors.ParseError: redis-cli info: Could not connect to Redis at 127.0.0.1:6379: Connection refused
"""

from __future__ import annotations

import re

from foretune.facts.parsers import ParseError


def parse_redis_conf(text: str) -> dict[str, str]:
    """Directives of redis.conf (a repeated directive keeps its last value)."""
    conf: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        conf[key.lower()] = value.strip()
    return conf


def parse_redis_info(text: str) -> dict[str, str]:
    """``INFO`` fields; an error message instead of INFO raises ParseError."""
    info: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and ":" in line:
            key, _, value = line.partition(":")
            if re.fullmatch(r"[a-z_0-9]+", key):
                info[key] = value
    if text.strip() and not info:
        raise ParseError(f"redis-cli info: {text.strip().splitlines()[0][:100]}")
    return info
