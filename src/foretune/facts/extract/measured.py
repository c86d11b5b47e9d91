"""Measured state: available memory and swap activity, RSS per service, Passenger's pool and queue."""

from __future__ import annotations

import re

from foretune.facts.extract.core import Extractor
from foretune.facts.model import Provenance
from foretune.facts.parsers.clients import mqtt_client_ids, mqtt_peers, task_host_names
from foretune.facts.parsers.foreman import parse_tasks_csv
from foretune.facts.parsers.process import (
    count_agent_queues,
    parse_passenger_pool,
    parse_ps_others,
    parse_ps_rss,
    parse_psql_count,
    parse_sar_steal,
    parse_table_sizes,
    parse_vmstat,
)
from foretune.facts.parsers.system import parse_meminfo
from foretune.host.sources.base import Raw
from foretune.units import format_gib

MQTT_PORT = 1883  # mosquitto's default listener, which the Foreman installer keeps


def memory_pressure(x: Extractor) -> None:
    raw = x.raw("meminfo")
    info = x.parse(raw, parse_meminfo) or {}
    vm_raw = x.raw("vmstat")
    vm = x.parse(vm_raw, parse_vmstat) or {}
    if raw is None or ("MemAvailable" not in info and not vm):
        x.unknown("memory_pressure", x.why("meminfo") if raw is None else f"{raw.location} has no MemAvailable")
        return
    value = {"available_bytes": info.get("MemAvailable"), "swap_in_pages": vm.get("pswpin"),
             "swap_out_pages": vm.get("pswpout"), "oom_kills": vm.get("oom_kill")}
    provs = [x.prov(raw, r"^(MemTotal|MemAvailable)")]
    if vm_raw is not None and vm:
        provs.append(x.prov(vm_raw, r"^(pswpin|pswpout|oom_kill) "))
    x.known("memory_pressure", value, *provs)


def process_rss(x: Extractor) -> None:
    raw = x.raw("ps")
    rss = x.parse(raw, parse_ps_rss)
    if raw is None or not rss:
        x.unknown("process_rss", x.why("ps") if raw is None else f"{raw.location} lists no Foreman-stack process")
        return
    summary = ", ".join(f"{name}: {v['processes']} processes, {format_gib(v['rss_bytes'])} RSS"
                        for name, v in sorted(rss.items(), key=lambda kv: -kv[1]["rss_bytes"]))
    x.known("process_rss", rss, x.note(raw.location, summary))


def other_processes(x: Extractor) -> None:
    raw = x.raw("ps")
    others = x.parse(raw, parse_ps_others)
    if raw is None or others is None:
        x.unknown("other_processes", x.why("ps") if raw is None else f"{raw.location} is not ps output")
        return
    x.known("other_processes", others, *[x.prov(raw, rf"^\S+\s+{p['pid']}\s") for p in others[:1]]
            or [x.absent(raw.location, "no process outside the Foreman stack")])


def passenger_status(x: Extractor) -> None:
    raw = x.raw("passenger_pool")
    pool = x.parse(raw, parse_passenger_pool)
    if raw is None or not pool:
        x.unknown("passenger_status", x.why("passenger_pool") if raw is None else f"{raw.location} is empty")
        return
    x.known("passenger_status", pool, x.prov(raw, r"(Max pool size|Processes|Requests in)"))


def cpu_steal(x: Extractor) -> None:
    raws = x.raws("sar")
    per_report = [(raw, values) for raw in raws for values in [x.parse(raw, parse_sar_steal) or []] if values]
    samples = [v for _, values in per_report for v in values]
    if not samples:
        x.unknown("cpu_steal", "no sar CPU reports with %steal in the source" if raws else x.why("sar"))
        return
    value = {"mean_percent": round(sum(samples) / len(samples), 2), "max_percent": max(samples), "samples": len(samples),
             "reports": len(per_report)}
    ordered = sorted(per_report, key=lambda rv: -max(rv[1]))
    x.known("cpu_steal", value, *[_steal_line(x, raw, max(values)) for raw, values in ordered[:4]])


def _steal_line(x: Extractor, raw: Raw, worst: float) -> Provenance:
    """The report's sample with the most %steal, as sar printed it."""
    shown = f"{worst:.2f}"
    line = next((line for line in raw.text.splitlines() if shown in line.split()), None)
    return x.prov(raw, text=line.strip()) if line else x.note(raw.location, f"%steal up to {shown}")


def table_sizes(x: Extractor) -> None:
    raw = x.raw("foreman_table_sizes")
    sizes = x.parse(raw, parse_table_sizes)
    if raw is None or not sizes:
        x.unknown("foreman_table_sizes", x.why("foreman_table_sizes") if raw is None else f"{raw.location} lists no tables")
        return
    history = [t for t in sizes if t.startswith(("dynflow_", "foreman_tasks_")) or t in ("audits", "fact_values", "logs")]
    # one provenance per psql row, so a rule quotes the rows it judges, each with its sizes
    rows = [x.prov(raw, rf"^\s*{re.escape(t)}\s*\|") for t in history]
    x.known("foreman_table_sizes", sizes, *rows or [x.prov(raw)])


def history_table_rows(x: Extractor) -> None:
    rows: dict[str, int] = {}
    provs = []
    for table in ("audits", "logs"):
        raw = x.raw(f"{table}_count")
        count = x.parse(raw, parse_psql_count)
        if raw is not None and count is not None:
            rows[table] = count
            provs.append(x.prov(raw, r"^\s*\d+\s*$"))  # the count psql printed for "select count(*) from <table>"
    if not rows:
        x.unknown("history_table_rows", x.why("audits_count"))
        return
    x.known("history_table_rows", rows, *provs)


def katello_agents(x: Extractor) -> None:
    raws = x.raws("qpid_queues")
    counted = [(raw, count_agent_queues(raw.text)) for raw in raws]
    counted = [(raw, n) for raw, n in counted if n]
    if not counted:
        x.unknown("katello_agent_clients", "no qpid-stat -q output with pulp.agent queues" if raws else x.why("qpid_queues"))
        return
    raw, n = max(counted, key=lambda rn: rn[1])
    x.known("katello_agent_clients", n, x.note(raw.location, f"{n} pulp.agent.<uuid> queues (one per katello-agent host)"))


def pull_rex_clients(x: Extractor) -> None:
    """The larger of two partial counts: client ids in mosquitto's log, hosts connected when the data was taken."""
    raws = x.raws("mosquitto_logs")
    found = [(raw, ids) for raw in raws for ids in [mqtt_client_ids(raw.text)] if ids]
    ids: set[str] = set().union(*(ids for _, ids in found)) if found else set()
    conf = x.raw("mosquitto_conf")
    listener = re.search(r"^[ \t]*listener[ \t]+(\d{1,5})\b", conf.text, flags=re.M | re.ASCII) if conf is not None else None
    port = int(listener.group(1)) if listener else MQTT_PORT
    sockets = x.raw("sockets")
    peers = mqtt_peers(sockets.text, port) if sockets is not None else set()
    if not ids and not peers:
        x.unknown("pull_rex_clients", "no MQTT connections in the logs or socket lists" if raws or sockets is not None
                  else x.why("mosquitto_logs"))
        return
    provs = []
    if sockets is not None and len(peers) >= len(ids):
        provs.append(x.note(sockets.location, f"{len(peers)} distinct addresses connected to port {port} when the data was taken"))
    for raw, _ in found[:2]:
        provs.append(x.prov(raw, r"New client connected from"))
    if found:
        provs.append(x.note(found[0][0].location, f"{len(ids)} distinct MQTT client ids connected while the logs were kept"))
    if sockets is not None and peers and len(peers) < len(ids):
        provs.append(x.note(sockets.location, f"{len(peers)} distinct addresses connected to port {port} when the data was taken"))
    x.known("pull_rex_clients", max(len(ids), len(peers)), *provs)


def task_hosts(x: Extractor) -> None:
    raw = x.raw("tasks_csv")
    rows = x.parse(raw, parse_tasks_csv)
    names = task_host_names(rows or [])
    if raw is None or not names:
        x.unknown("task_hosts", x.why("tasks_csv") if raw is None else f"{raw.location} names no host in host-scoped tasks")
        return
    x.known("task_hosts", len(names), x.prov(raw, r"Host.*\son\s"),
            x.note(raw.location, f"{len(names)} distinct hosts named by host-scoped tasks (only the exported days)"))
