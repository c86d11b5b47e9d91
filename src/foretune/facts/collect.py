"""Write a snapshot of a live host: facts with provenance, the raw texts they came from, and metadata.

Every spec is read up front (as the collector script does), so a snapshot holds the same raw
texts whichever of the two wrote it; ``unread`` says why a spec has none.
"""

from __future__ import annotations

import gzip
import json
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from foretune import __version__
from foretune.facts.serialize import facts_to_dict
from foretune.facts.snapshot import FORMAT, FORMAT_VERSION
from foretune.host.redact import redact_text
from foretune.safeio import SNAPSHOT_MODE, write_file


def host_name() -> str:
    """The FQDN, or the host name when the FQDN lookup ends at a loopback line of /etc/hosts ("localhost")."""
    name = socket.getfqdn()
    return socket.gethostname() if name == "localhost" or name.startswith("localhost.") else name


def snapshot_data(facts_dict: dict[str, Any], raw: dict[str, str], *, host: str | None = None,
                  unread: dict[str, str] | None = None, logs: dict[str, Any] | None = None) -> dict[str, Any]:
    """The snapshot document; every raw text is redacted (``logs``: see :mod:`foretune.logs.ship`)."""
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "metadata": {"host": host or host_name(), "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "foretune_version": __version__, "source": facts_dict["source"]},
        "facts": facts_dict["facts"],
        "problems": facts_dict["problems"],
        "raw": {redact_text(location): redact_text(text) for location, text in sorted(raw.items())},
        "unread": dict(sorted((unread or {}).items())),
    }
    if logs is not None:
        document["logs"] = logs
    return document


def record_all(source: Any) -> dict[str, str]:
    """Read every spec marked ``collect`` through ``source`` (a cached live host); returns why each unread one is not."""
    from foretune.host.specs import SPECS  # start-up: loads only when `collect` runs

    found: dict[str, bool] = {}
    for spec in SPECS:
        if spec.collect:
            found[spec.name] = bool(source.glob(spec)) if spec.glob else source.read(spec) is not None
    return {name: why for name, why in source.why.items() if name in found and not found[name]}


def collect(out: Path, *, hosts: int | None = None, environ: dict[str, str] | None = None,
            root: str = "/") -> tuple[Path, list[str]]:
    """Read this host live and write the snapshot to ``out`` (gzip when it ends in .gz); returns (path, problems).

    ``root`` reads files below another directory instead of ``/`` (tests use a fake /etc).
    """
    from foretune.facts.extract import extract  # start-up: loads only when `collect` runs
    from foretune.host.sources.live import CachedLiveHost  # start-up: loads only when `collect` runs
    from foretune.logs.ship import ship  # start-up: loads only when `collect` runs

    source = CachedLiveHost(environ, root=root)
    unread = record_all(source)
    logs, problems = ship(root)
    facts = extract(source, hosts=hosts)
    facts.problems.extend(p for p in problems if p not in facts.problems)
    document = snapshot_data(facts_to_dict(facts), {loc: raw.text for loc, raw in source.log.items()}, unread=unread,
                             logs=logs)
    payload = (json.dumps(document, indent=1, sort_keys=False) + "\n").encode("utf-8")
    if out.name.endswith(".gz"):
        payload = gzip.compress(payload)
    write_file(out, payload, mode=SNAPSHOT_MODE)
    return out, list(facts.problems)
