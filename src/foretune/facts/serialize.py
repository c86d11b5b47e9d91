"""Facts as plain JSON data (for ``facts --format json`` and snapshots), secrets redacted again on the way out."""

from __future__ import annotations

from typing import Any

from foretune.facts.catalog import CATALOG
from foretune.facts.model import Fact, FactSet
from foretune.host.redact import redact_data, redact_text


def fact_to_dict(fact: Fact) -> dict[str, Any]:
    if not fact.known:
        return {"unknown": True, "reason": redact_text(fact.unknown_reason or "")}
    return {"value": redact_data(fact.value),
            "provenance": [{**p.as_dict(), "location": redact_text(p.location), "excerpt": redact_text(p.excerpt)}
                           for p in fact.provenance]}


def facts_to_dict(facts: FactSet) -> dict[str, Any]:
    """Catalogue order first, then any extra facts."""
    order = [spec.name for spec in CATALOG] + sorted(set(facts.facts) - {spec.name for spec in CATALOG})
    return {
        "source": {"kind": facts.source_kind, "label": facts.source_label},
        "facts": {name: fact_to_dict(facts[name]) for name in order},
        "problems": [redact_text(p) for p in facts.problems],
    }
