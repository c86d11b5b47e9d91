"""the PostgreSQL data directory on NFS."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity
from foretune.rules.storage._nfs import nfs_check


class NfsUnderPostgresql(Rule):
    id = "nfs-under-postgresql"
    title = "the PostgreSQL data directory not on NFS"
    component = "storage"
    severity = Severity.HIGH
    version_added = "0.1.0"
    unsafe_fix = True
    needs = ("key_dirs",)
    citations = ("g62-pulp",)

    def check(self, ctx: Context) -> Outcome:
        return nfs_check(self, ctx, ('/var/lib/pgsql', '/var/opt/rh/rh-postgresql12/lib/pgsql'), "the PostgreSQL data directory")


RULE = NfsUnderPostgresql()
