"""The user-facing facts reference (docs/facts.md), generated from the catalogue and the specs."""

from __future__ import annotations

from foretune.facts.catalog import CATALOG
from foretune.host.specs import SPECS, sos_candidates, sos_patterns


def facts_reference() -> str:
    lines = [
        "# Facts reference",
        "",
        "Generated from `src/foretune/facts/catalog.py` and `specs.py` (a test fails when this file drifts;",
        "regenerate with `python3 -c 'from foretune.facts.reference import write; write()'`).",
        "",
        "`foretune facts [SOURCE]` prints these facts; `audit` and `plan --from` read the same ones. A source is this",
        "host (live), a sosreport directory or tarball, or a snapshot from `foretune collect`. Every fact is either",
        "known, with its provenance (file or command, and a short excerpt), or unknown with the reason.",
        "Sizes are bytes, durations seconds. Secrets are shown as `[redacted]`.",
        "",
        "## Facts",
        "",
        "| fact | value | meaning |",
        "|---|---|---|",
    ]
    for spec in CATALOG:
        root = " Live: needs root." if spec.needs_root else ""
        lines.append(f"| `{spec.name}` | {spec.shape.replace('|', '/')} | {spec.doc.replace('|', '/')}{root} |")
    lines += [
        "",
        "## Inputs",
        "",
        "Where each input is read: live (files first, then commands) and in a sosreport (command outputs named",
        "by `sos_reports/manifest.json` first, then these paths in order; sos 3.x `foreman-debug` copies last).",
        "",
        "| input | live | sosreport |",
        "|---|---|---|",
    ]
    for item in SPECS:
        live = [f"`{p}`" for p in item.paths] + [f"`{' '.join(c)}`" for c in item.commands]
        sos = sos_patterns(item) if item.glob else sos_candidates(item)
        sos_text = ", ".join(f"`{p}`" for p in sos if "foreman-debug" not in p or item.name in ("tasks_csv", "installed_packages"))
        lines.append(f"| {item.name} | {', '.join(live).replace('|', '/') or '—'} | {sos_text.replace('|', '/') or '—'} |")
    return "\n".join(lines) + "\n"


def write(path: str = "docs/facts.md") -> None:
    from foretune.safeio import write_file  # start-up: only when write runs

    write_file(path, facts_reference(), backup=False)
