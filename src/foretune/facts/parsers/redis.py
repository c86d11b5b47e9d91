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
>>> redis_size("2gb"), redis_size("100mb"), redis_size("1024"), redis_size("1g")
(2147483648, 104857600, 1024, 1000000000)
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


_UNITS = {"": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2, "g": 1000**3, "gb": 1024**3}


def redis_size(text: str) -> int | None:
    """A redis.conf memory size (``1gb`` = 1024**3, ``1g`` = 10**9, as redis documents)."""
    match = re.fullmatch(r"(\d{1,18})\s*([kmg]b?)?", text.strip().lower(), re.ASCII)
    if not match:
        return None
    return int(match.group(1)) * _UNITS[match.group(2) or ""]
