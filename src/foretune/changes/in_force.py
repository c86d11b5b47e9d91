"""What a change set would re-apply: the changes a source shows already in force, left out of `plan --from`'s set so
that it writes what `audit --output-dir` writes for the same source (a plan from options alone keeps them all)."""

from __future__ import annotations

from typing import Any

from foretune.changes.model import Change, ChangeSet

THP_OFF = ("echo never > /sys/kernel/mm/transparent_hugepage/enabled", "grubby --update-kernel=ALL --args=transparent_hugepage=never")
THP_DEFRAG_OFF = "echo never > /sys/kernel/mm/transparent_hugepage/defrag"


def _same(a: Any, b: Any) -> bool:
    return a is not None and str(a).strip().lower() == str(b).strip().lower()


def _nofile(limits: Any, unit: str) -> int | None:
    entry = limits.get(unit) if isinstance(limits, dict) else None
    found = entry.get("process_nofile", entry.get("LimitNOFILE")) if isinstance(entry, dict) else None
    return found if isinstance(found, int) else None


def _cli_answer(value: Any) -> Any:
    """The hammer request_timeout the installer's next run writes: custom-hiera.yaml's, else the answers file's."""
    hiera = value("custom_hiera") or {}
    if isinstance(hiera, dict) and "foreman::cli::request_timeout" in hiera:
        return hiera["foreman::cli::request_timeout"]
    cli = (value("installer_answers") or {}).get("foreman::cli")
    return cli.get("request_timeout") if isinstance(cli, dict) else None


def in_force(change: Change, facts: Any) -> bool:
    """``change`` sets what the source ``facts`` (a FactSet) already has: the declared profile, a hammer timeout (an
    installer option's in the answers the next installer run renders from, not only in foreman.yml, which that run
    rewrites), a descriptor limit at or above the value, the active tuned profile.

    >>> in_force(Change("profile", "profile", "--tuning", "large", site_value="large"), None)
    True
    """
    if change.op != "set":
        return False
    if change.channel == "profile":
        return _same(change.site_value, change.value)
    value = facts.value if facts is not None and hasattr(facts, "value") else (lambda name: None)
    if change.tunable == "hammer.request_timeout":
        if change.channel == "installer":  # the installer renders foreman.yml from its answers on every run
            return _same(_cli_answer(value), change.value)
        return _same((value("hammer") or {}).get("request_timeout"), change.value)
    if change.channel == "dropin" and change.target.endswith(":LimitNOFILE"):
        found = _nofile(value("service_limits"), change.target.split(":", 1)[0])
        return found is not None and isinstance(change.value, int) and found >= change.value
    if change.channel == "tuned":
        tuned = value("tuned") or {}
        return bool(tuned.get("running")) and _same(tuned.get("active"), change.value)
    return False


def without_in_force(changes: ChangeSet, facts: Any) -> ChangeSet:
    """``changes`` without what the source already has in force (:func:`in_force`; transparent huge pages already
    ``never``), as the audit of the same source, which fixes only what it finds wrong, leaves them out."""
    thp = (facts.value("thp") if facts is not None and hasattr(facts, "value") else None) or {}
    drop = set(THP_OFF) if thp.get("enabled") == "never" else set()
    if thp.get("defrag") == "never":
        drop.add(THP_DEFRAG_OFF)
    return changes._replace(changes=tuple(c for c in changes.changes if not in_force(c, facts)),
                            commands=tuple(c for c in changes.commands if c not in drop))
