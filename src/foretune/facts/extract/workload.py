"""Workload: managed hosts, task backlog, facts per host; live PostgreSQL settings and connections."""

from __future__ import annotations

from datetime import datetime, timedelta

from foretune.facts.extract.core import Extractor
from foretune.facts.parsers import ParseError
from foretune.facts.parsers.foreman import managed_hosts_from_metrics, parse_tasks_csv
from foretune.facts.parsers.yamlfile import parse_yaml

OLD_TASK_DAYS = 30


def _when(text: str) -> datetime | None:
    text = text.strip().replace("T", " ")[:19]
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None


def hosts_and_tasks(x: Extractor) -> None:
    raw = x.raw("foreman_metrics")
    data = x.parse(raw, parse_yaml)
    try:
        count = managed_hosts_from_metrics(data) if data else None
    except ParseError as exc:
        x.src.problem(f"{raw.location if raw is not None else 'metrics'}: {exc}")
        count = None
    if raw is not None and count is not None:
        x.known("managed_hosts", count, x.prov(raw, r"^\s*(Managed|hosts_by_type_count)"))
    tasks_raw = x.raw("tasks_csv")
    rows = x.parse(tasks_raw, parse_tasks_csv)
    if tasks_raw is not None and rows is not None:
        now = x.src.now() or max((_when(r.get("started_at", "")) or datetime.min for r in rows), default=datetime.min)
        cutoff = now - timedelta(days=OLD_TASK_DAYS) if now > datetime.min + timedelta(days=OLD_TASK_DAYS) else datetime.min
        paused = [r for r in rows if r.get("state") == "paused"]
        old = [r for r in paused if (_when(r.get("started_at", "")) or now) < cutoff]
        value = {"paused": len(paused), "old_paused": len(old), "running": sum(1 for r in rows if r.get("state") == "running")}
        x.known("tasks", value, x.prov(tasks_raw, r",paused,"),
                x.note(tasks_raw.location, f"{len(rows)} tasks exported (sos keeps the last 14 days by default); old = started before {cutoff:%Y-%m-%d}"))
    elif not x.has("tasks"):
        x.unknown("tasks", x.why("tasks_csv") if tasks_raw is None else f"{tasks_raw.location} is empty")
