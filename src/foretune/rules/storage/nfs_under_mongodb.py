"""MongoDB on NFS."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.storage._nfs import nfs_check


class NfsUnderMongodb(Rule):
    id = "nfs-under-mongodb"
    title = "MongoDB not on NFS"
    component = "storage"
    severity = Severity.HIGH
    version_added = "0.1.0"
    unsafe_fix = True
    needs = ("key_dirs",)
    citations = ("g62-mongodb",)

    def applies(self, ctx: Context) -> str | None:
        if ctx.release and not ctx.release.features.mongodb:
            return "no MongoDB on this release"
        return None

    def check(self, ctx: Context) -> Outcome:
        return nfs_check(self, ctx, ('/var/lib/mongodb',), "MongoDB")


RULE = NfsUnderMongodb()
