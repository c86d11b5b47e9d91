"""Shared check: a directory whose filesystem is NFS."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule

NFS = ("nfs", "nfs4", "nfs3")


def nfs_check(rule: Rule, ctx: Context, paths: tuple[str, ...], what: str) -> Outcome:
    dirs = ctx.facts.value("key_dirs")
    present = {p: dirs[p] for p in paths if p in dirs}
    if not present:
        return rule.skipped(f"{' / '.join(paths)} not present")
    bad = {p: d for p, d in present.items() if str(d.get("fstype", "")).lower() in NFS}
    if not bad:
        return rule.passed(", ".join(f"{p} on {d.get('fstype')}" for p, d in present.items()))
    path, entry = next(iter(bad.items()))
    return rule.failed(f"{path} ({what}) is on NFS ({entry.get('device')}): latency and locking make it unreliable",
                       current=f"{entry.get('fstype')} {entry.get('device')}", recommended="local block storage (xfs)",
                       evidence=ctx.evidence("key_dirs", about=entry["mountpoint"]))
