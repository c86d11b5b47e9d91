"""Readable summaries of foretune-bench/1 documents (the default output of bench commands)."""

from __future__ import annotations

from typing import Any

from foretune.term import render_to_text

_STYLES = {"pass": "sev.pass", "warn": "sev.medium", "fail": "sev.high", "info": "sev.low"}  # foretune's terminal theme


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _verdict(word: str, color: bool) -> str:
    if not (color and word in _STYLES):
        return word
    from rich.text import Text  # start-up: rich, only when this is drawn


    return render_to_text(Text(word, style=_STYLES[word]), color=True, width=None).rstrip("\n")


def storage_summary(doc: dict[str, Any], *, color: bool = False) -> str:
    """Per directory: device facts, a table of figures, then one verdict line per job with its citation."""
    lines = [f"Storage benchmark on {doc['host']} ({doc['tool_version']}, mode {doc.get('mode', '?')}, {doc['created']})"]
    directories: dict[str, list[dict[str, Any]]] = {}
    for item in doc["results"]:
        directories.setdefault(item["directory"], []).append(item)
    header = f"  {'job':<15}{'read MB/s':>10}{'write MB/s':>11}{'read IOPS':>10}{'write IOPS':>11}{'p50 ms':>9}{'p99 ms':>9}  verdict"
    for directory, items in directories.items():
        dev = items[0]["device"]
        kind = "network filesystem" if dev["nfs"] else {True: "rotational", False: "non-rotational", None: "device type unknown"}[dev["rotational"]]
        where = f" on {dev['source']}" if dev.get("source") else ""
        lines += ["", f"{directory}  ({dev['fstype'] or 'filesystem unknown'}{where}, {kind})", header]
        for item in items:
            lines.append(
                f"  {item['job']:<15}{_num(item['read_mb_s']):>10}{_num(item['write_mb_s']):>11}"
                f"{_num(item['read_iops'], 0):>10}{_num(item['write_iops'], 0):>11}"
                f"{_num(item['lat_p50_ms'], 3):>9}{_num(item['lat_p99_ms'], 3):>9}  {_verdict(item['verdict'], color)}"
            )
        lines.append("")
        for item in items:
            cite = f" [{item['threshold']['citation']}]" if item["threshold"] else ""
            lines.append(f"  {_verdict(item['verdict'], color)}  {item['job']}: {item['message']}{cite}")
    counts = {v: sum(1 for i in doc["results"] if i["verdict"] == v) for v in ("pass", "warn", "fail", "info")}
    lines += ["", ", ".join(f"{n} {v}" for v, n in counts.items())]
    return "\n".join(lines) + "\n"


def db_summary(doc: dict[str, Any], *, settings: str = "") -> str:
    """A table of pgbench figures per test and client count."""
    lines = [f"Database benchmark on {doc['host']} ({doc['tool_version']}{', ' + settings if settings else ''}, {doc['created']})", ""]
    lines.append(f"  {'test':<12}{'clients':>8}{'TPS':>11}{'avg ms':>9}{'p95 ms':>9}")
    for item in doc["results"]:
        lines.append(
            f"  {item['test']:<12}{item['clients']:>8}{_num(item['tps']):>11}"
            f"{_num(item['lat_avg_ms'], 2):>9}{_num(item['lat_p95_ms'], 2):>9}"
        )
    return "\n".join(lines) + "\n"
