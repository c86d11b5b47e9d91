"""Pulp content on NFS."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.storage._nfs import nfs_check


class NfsUnderPulp(Rule):
    id = "nfs-under-pulp"
    title = "Pulp content not on NFS"
    component = "storage"
    severity = Severity.HIGH
    version_added = "0.1.0"
    unsafe_fix = True
    needs = ("key_dirs",)
    citations = ("g62-pulp",)

    def check(self, ctx: Context) -> Outcome:
        # the guide's "not recommended" is the Pulp 2 era's (MongoDB-backed); Pulp 3 runs on NFS with a cost
        pulp3 = ctx.release is not None and ctx.release.features.pulpcore
        return nfs_check(self, ctx, ('/var/lib/pulp',), "Pulp content", Severity.MEDIUM if pulp3 else None)


RULE = NfsUnderPulp()
