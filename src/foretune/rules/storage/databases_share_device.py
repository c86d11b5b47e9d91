"""PostgreSQL, Pulp content and MongoDB share one block device."""

from __future__ import annotations

from foretune.rules.base import Context, Outcome, Rule, Severity

DATA = {"/var/lib/pgsql": "PostgreSQL", "/var/opt/rh/rh-postgresql12/lib/pgsql": "PostgreSQL", "/var/lib/pulp": "Pulp",
        "/var/lib/mongodb": "MongoDB"}


class DatabasesShareDevice(Rule):
    id = "databases-share-device"
    title = "PostgreSQL and Pulp content on separate devices"
    component = "storage"
    severity = Severity.LOW
    version_added = "0.1.0"
    unsafe_fix = True
    needs = ("key_dirs",)
    citations = ("gf-hardware", "foretune-estimate")

    def check(self, ctx: Context) -> Outcome:
        dirs = ctx.facts.value("key_dirs")
        by_device: dict[str, list[str]] = {}
        for path, name in DATA.items():
            entry = dirs.get(path)
            if entry and entry.get("device") and entry.get("fstype") not in ("nfs", "nfs4", "cifs", "fuse.glusterfs"):
                by_device.setdefault(str(entry["device"]), []).append(name)
        shared = {dev: sorted(set(names)) for dev, names in by_device.items() if len(set(names)) > 1}
        if not shared:
            return self.passed("databases and Pulp content on their own devices" if by_device else "no data directories found")
        device, names = next(iter(shared.items()))
        return self.failed(f"{', '.join(names)} share {device}: a repository sync's writes queue behind, and delay, "
                           "database commits", current=device, recommended="separate devices (or LVM volumes on separate disks)",
                           evidence=ctx.evidence("key_dirs", about=device))


RULE = DatabasesShareDevice()
