"""Shared check: a directory whose filesystem is NFS, with the mount options in force."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity

NFS = ("nfs", "nfs4", "nfs3")


def mount_options(ctx: Context, mountpoint: str) -> list[str]:
    """The options of ``mountpoint`` from the mounts fact (empty when unknown)."""
    for mount in ctx.facts.value("mounts") or []:
        if isinstance(mount, dict) and mount.get("mountpoint") == mountpoint:
            options = mount.get("options") or []
            return [str(o) for o in (options.split(",") if isinstance(options, str) else options)]
    return []


def nfs_check(rule: Rule, ctx: Context, paths: tuple[str, ...], what: str, severity: Severity | None = None) -> Outcome:
    """Fail when one of ``paths`` is on NFS; a ``soft`` mount is always high (I/O errors instead of waiting)."""
    dirs = ctx.facts.value("key_dirs")
    present = {p: dirs[p] for p in paths if p in dirs}
    if not present:
        return rule.skipped(f"{' / '.join(paths)} not present")
    bad = {p: d for p, d in present.items() if str(d.get("fstype", "")).lower() in NFS}
    if not bad:
        return rule.passed(", ".join(f"{p} on {d.get('fstype')}" for p, d in present.items()))
    path, entry = next(iter(bad.items()))
    options = mount_options(ctx, str(entry.get("mountpoint")))
    shown = f", options {','.join(options)}" if options else ""
    soft = "soft" in options
    why = ("a soft mount returns I/O errors when the server is slow: writes are lost half done" if soft
           else "latency and locking make it unreliable")
    return rule.failed(f"{path} ({what}) is on NFS ({entry.get('device')}{shown}): {why}",
                       current=f"{entry.get('fstype')} {entry.get('device')}" + (" soft" if soft else ""),
                       recommended="local block storage (xfs)" + ("; at least a hard mount" if soft else ""),
                       evidence=ctx.evidence("key_dirs", about=entry["mountpoint"]),  # the mount line carries the options
                       severity=Severity.HIGH if soft else severity)
