"""Shared helpers for rules that judge failures the source itself shows (the ``log_incidents`` fact)."""

from __future__ import annotations

from typing import Any

from foretune.rules.base import Context, Evidence


def incidents(ctx: Context, *kinds: str, services: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Incidents of the given kinds (and services, when given), most frequent first."""
    found = [i for i in ctx.facts.value("log_incidents") or [] if isinstance(i, dict) and i.get("kind") in kinds
             and (not services or str(i.get("service", "")) in services)]
    return sorted(found, key=lambda i: -int(i.get("count") or 0))


def span(incident: dict[str, Any]) -> str:
    """``12 times, 2024-02-12T08:01:00 .. 2024-02-12T09:40:00`` (what the log says about when)."""
    count = int(incident.get("count") or 0)
    first, last = incident.get("first"), incident.get("last")
    when = f", {first} .. {last}" if first and last and first != last else (f", {first or last}" if first or last else "")
    return f"{count} time{'s' if count != 1 else ''}{when}"


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
