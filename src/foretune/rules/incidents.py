"""Shared helpers for rules that judge failures the source itself shows (the ``log_incidents`` fact)."""

from __future__ import annotations

from typing import Any

from foretune.rules.base import Context, Evidence
from foretune.term import plural


def incidents(ctx: Context, *kinds: str, services: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Incidents of the given kinds (and services, when given), most frequent first."""
    found = [i for i in ctx.facts.value("log_incidents") or [] if isinstance(i, dict) and i.get("kind") in kinds
             and (not services or str(i.get("service", "")) in services)]
    return sorted(found, key=lambda i: -int(i.get("count") or 0))


# (kind, service) -> what one occurrence of it is and what several are; (kind, "") for any service
WHAT: dict[tuple[str, str], tuple[str, str]] = {
    ("http_503_burst", ""): ("HTTP 503 response", "HTTP 503 responses"),
    ("http_503_share", ""): ("HTTP 503 response", "HTTP 503 responses"),
    ("queue_at_capacity", "passenger"): ("\"Request queue is full\" error", "\"Request queue is full\" errors"),
    ("queue_at_capacity", "httpd"): ("\"reached MaxRequestWorkers\" error", "\"reached MaxRequestWorkers\" errors"),
    ("queue_at_capacity", "puma"): ("minute at Puma's capacity", "minutes at Puma's capacity"),
    ("queue_at_capacity", ""): ("queue-full error", "queue-full errors"),
    ("socket_exhaustion", ""): ("descriptor error", "descriptor errors"), ("oom_kill", ""): ("OOM kill", "OOM kills"),
    ("pg_connection_exhaustion", ""): ("refused database connection", "refused database connections"),
    ("db_pool_timeout", ""): ("pool timeout", "pool timeouts"),
    ("candlepin_oom", ""): ("Candlepin out-of-memory error", "Candlepin out-of-memory errors"),
}


def what(incident: dict[str, Any]) -> tuple[str, str]:
    """What one occurrence of the incident is, and what several are (``HTTP 503 response(s)``)."""
    kind, service = str(incident.get("kind", "")), str(incident.get("service", ""))
    words = kind.replace("_", " ")
    return WHAT.get((kind, service)) or WHAT.get((kind, "")) or (f"{words} line", f"{words} lines")


def when(incident: dict[str, Any]) -> str:
    """``, 2024-02-12T08:01:00 .. 2024-02-12T09:40:00`` (what the log says about when), or ""."""
    first, last = incident.get("first"), incident.get("last")
    return f", {first} .. {last}" if first and last and first != last else (f", {first or last}" if first or last else "")


def span(incident: dict[str, Any]) -> str:
    """``12 times, 2024-02-12T08:01:00 .. 2024-02-12T09:40:00`` (what the log says about when)."""
    count = int(incident.get("count") or 0)
    return f"{count} time{'s' if count != 1 else ''}{when(incident)}"


def by_kind(found: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The incidents as one per kind of occurrence (:func:`what`; each :func:`overall`), most first, when they are of
    more than one kind; None when they are all of one kind. Counts of different kinds are never added: the same failed
    requests show as 503s in the access log and as "Request queue is full" in the error log."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for i in found:
        groups.setdefault(what(i), []).append(i)
    if len(groups) < 2:
        return None
    return sorted((overall(group) for group in groups.values()), key=lambda i: -int(i.get("count") or 0))


def counts(kinds: list[dict[str, Any]]) -> str:
    """``160 HTTP 503 responses, T1 .. T2, and 30 "Request queue is full" errors, T3 .. T4`` (:func:`by_kind`'s)."""
    parts = [f"{plural(int(i.get('count') or 0), *what(i))}{when(i)}" for i in kinds]
    return ", ".join(parts[:-1]) + f", and {parts[-1]}" if len(parts) > 1 else "".join(parts)


def quote(incident: dict[str, Any]) -> str:
    """The incident's log line, quoted, with where it was found."""
    return f"\"{str(incident.get('line', '')).strip()}\" ({incident.get('path', 'log')})"


def evidence(found: list[dict[str, Any]]) -> tuple[Evidence, ...]:
    """One evidence line per incident: the log file and its line, verbatim (the count and time span are in the
    finding's message: an excerpt holds only text that is in the file it names)."""
    return tuple(Evidence("log_incidents", str(i.get("path", "log")), str(i.get("line", "")).strip()) for i in found)


def times(found: list[dict[str, Any]]) -> int:
    """How many times the incidents occurred in all (an incident without a count occurred once)."""
    return sum(int(i.get("count") or 1) for i in found)


def distinct(found: list[dict[str, Any]]) -> int:
    """Occurrences in the logs, each once: the kernel's ring buffer (dmesg) and the syslog copy of it (messages) quote
    the same ``Killed process PID (name)``, so incidents that name their events (``keys``) are counted by those; the
    others by count."""
    named = {k for i in found for k in i.get("keys") or ()}
    return len(named) + sum(int(i.get("count") or 0) for i in found if not i.get("keys"))


def overall(found: list[dict[str, Any]]) -> dict[str, Any]:
    """The incidents as one, for :func:`span`: each occurrence counted once (:func:`distinct`) over the time range of
    every file's lines (each incident is one file's), not the first one's alone."""
    stamps = sorted(str(t) for i in found for t in (i.get("first"), i.get("last")) if t)
    return {**(found[0] if found else {}), "count": distinct(found), "first": stamps[0] if stamps else None,
            "last": stamps[-1] if stamps else None}
