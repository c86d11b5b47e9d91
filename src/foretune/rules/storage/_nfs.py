"""Shared check: a directory whose filesystem is NFS, judged with the mount options in force."""

from __future__ import annotations

import re

from foretune.knowledge import threshold
from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.units import format_bytes

NFS = ("nfs", "nfs4", "nfs3")


def mount_options(ctx: Context, mountpoint: str) -> list[str]:
    """The options of ``mountpoint`` from the mounts fact (empty when unknown)."""
    for mount in ctx.facts.value("mounts") or []:
        if isinstance(mount, dict) and mount.get("mountpoint") == mountpoint:
            options = mount.get("options") or []
            return [str(o) for o in (options.split(",") if isinstance(options, str) else options)]
    return []


def option_problems(options: list[str], min_io: int) -> list[tuple[str, Severity, str]]:
    """(problem, severity, what to use instead) for each risky NFS option in ``options`` (as /proc/mounts shows them).

    >>> [p[0].split(":")[0].split()[0] for p in option_problems(["rw", "soft", "rsize=32768", "wsize=1048576", "nolock"], 65536)]
    ['soft', 'rsize=32768', 'nolock']
    >>> option_problems(["rw", "vers=4.2", "rsize=1048576", "wsize=1048576", "hard"], 65536)
    []
    """
    found: list[tuple[str, Severity, str]] = []
    if "soft" in options or "softerr" in options:
        word = "softerr" if "softerr" in options else "soft"
        found.append((f"{word} mount: a slow server returns I/O errors, writes are lost half done", Severity.HIGH, "hard"))
    for name in ("rsize", "wsize"):
        sizes = [int(m.group(1)) for o in options for m in [re.fullmatch(name + r"=(\d{1,10})", o, re.ASCII)] if m]
        if sizes and sizes[0] < min_io:
            found.append((f"{name}={sizes[0]}: every transfer moves at most {format_bytes(sizes[0])}, large reads and "
                          f"writes take many round trips", Severity.MEDIUM, f"{name}={min_io} or more (the kernel "
                          "negotiates up to 1048576 when the option is left out)"))
    if "nolock" in options or "local_lock=all" in options or "local_lock=posix" in options:
        found.append(("nolock: file locks stay local to this client, another client of the export does not see "
                      "them", Severity.MEDIUM, "locking on (drop nolock)"))
    return found


def nfs_check(rule: Rule, ctx: Context, paths: tuple[str, ...], what: str, severity: Severity | None = None) -> Outcome:
    """Fail when one of ``paths`` is on NFS; risky options (soft, small rsize/wsize, nolock) are named and can raise
    the severity (a soft mount is always high)."""

    dirs = ctx.facts.value("key_dirs")
    present = {p: dirs[p] for p in paths if p in dirs}
    if not present:
        return rule.skipped(f"{' / '.join(paths)} not present")
    bad = {p: d for p, d in present.items() if str(d.get("fstype", "")).lower() in NFS}
    if not bad:
        return rule.passed(", ".join(f"{p} on {d.get('fstype')}" for p, d in present.items()))
    path, entry = next(iter(bad.items()))
    options = mount_options(ctx, str(entry.get("mountpoint")))
    problems = option_problems(options, int(threshold("nfs_min_io_size_bytes")))
    shown = f", options {','.join(options)}" if options else ""
    why = "; ".join(p for p, _, _ in problems) if problems else "latency and locking make it unreliable"
    base = severity if severity is not None else rule.severity
    worst = max([base, *(s for _, s, _ in problems)])
    instead = "; ".join(dict.fromkeys(i for _, _, i in problems))
    flagged = [p.split(":", 1)[0].split()[0] for p, _, _ in problems]
    citations = (*rule.citations, "foretune-estimate") if any(f.startswith(("rsize", "wsize")) for f in flagged) else ()
    return rule.failed(f"{path} ({what}) is on NFS ({entry.get('device')}{shown}): {why}",
                       current=f"{entry.get('fstype')} {entry.get('device')}" + (f" {','.join(flagged)}" if flagged else ""),
                       recommended="local block storage (xfs)" + (f"; on NFS at least: {instead}" if instead else ""),
                       evidence=ctx.evidence("key_dirs", about=entry["mountpoint"]),  # the mount line carries the options
                       severity=worst if worst != rule.severity else None, citations=citations)
