"""The PostgreSQL (or MongoDB) data directory is on a rotational disk."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity

DB_DIRS = ("/var/lib/pgsql", "/var/opt/rh/rh-postgresql12/lib/pgsql", "/var/lib/mongodb")


class DatabaseOnRotationalDisk(Rule):
    id = "database-on-rotational-disk"
    title = "Databases on SSD"
    component = "storage"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    roles = frozenset({"server"})
    needs = ("key_dirs",)
    citations = ("g62-db-storage",)

    def check(self, ctx: Context) -> Outcome:
        dirs = ctx.facts.value("key_dirs")
        present = {p: dirs[p] for p in DB_DIRS if p in dirs and dirs[p].get("rotational") is not None}
        if not present:
            return self.skipped("rotational flag of the database directories unknown")
        spinning = [p for p, d in present.items() if d["rotational"]]
        if not spinning:
            return self.passed(f"{', '.join(present)} on non-rotational storage")
        virtual = ctx.facts.value("virtualization") not in (None, "none")
        hedge = (" (as the virtual disk reports it: virtual disks often say rotational on SSD-backed datastores; "
                 "confirm with the storage team)") if virtual else ""
        mounts = tuple(dict.fromkeys(present[p]["mountpoint"] for p in spinning))
        devices = tuple(str(present[p].get("device") or "").rsplit("/", 1)[-1] for p in spinning)
        quoted = ctx.evidence("key_dirs", about=mounts + devices, whole=True)
        # lsblk's ROTA=1 first: the fact the finding claims; then the mount that puts the directory on that device
        evidence = (*(e for e in quoted if "lsblk" in e.location), *(e for e in quoted if "lsblk" not in e.location))
        on = f"lsblk ROTA=1 for the mount{'s' if len(mounts) > 1 else ''} {', '.join(mounts)}"
        return self.failed(f"{', '.join(spinning)} on rotational storage ({on}): random database I/O is slow{hedge}",
                           current="rotational", recommended="SSD", evidence=evidence)


RULE = DatabaseOnRotationalDisk()
