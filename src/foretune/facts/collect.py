"""Write a snapshot of a live host: facts with provenance, the raw texts they came from, and metadata."""

from __future__ import annotations

import gzip
import json
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from foretune import __version__
from foretune.facts.redact import redact_text
from foretune.facts.serialize import facts_to_dict
from foretune.facts.sources.snapshot import FORMAT, FORMAT_VERSION
from foretune.safeio import write_file


def snapshot_data(facts_dict: dict[str, Any], raw: dict[str, str], *, host: str | None = None) -> dict[str, Any]:
    """The snapshot document; every raw text is redacted."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "metadata": {"host": host or socket.getfqdn(), "time": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                     "foretune_version": __version__, "source": facts_dict["source"]},
        "facts": facts_dict["facts"],
        "problems": facts_dict["problems"],
        "raw": {redact_text(location): redact_text(text) for location, text in sorted(raw.items())},
    }


def collect(out: Path, *, hosts: int | None = None, environ: dict[str, str] | None = None,
            root: str = "/") -> tuple[Path, list[str]]:
    """Read this host live and write the snapshot to ``out`` (gzip when it ends in .gz); returns (path, problems).

    ``root`` reads files below another directory instead of ``/`` (tests use a fake /etc).
    """
    from foretune.facts.extract import extract
    from foretune.facts.sources.live import LiveHost

    source = LiveHost(environ, root=root)
    facts = extract(source, hosts=hosts)
    document = snapshot_data(facts_to_dict(facts), {loc: raw.text for loc, raw in source.log.items()})
    payload = (json.dumps(document, indent=1, sort_keys=False) + "\n").encode("utf-8")
    if out.name.endswith(".gz"):
        payload = gzip.compress(payload)
    write_file(out, payload)
    return out, list(facts.problems)
