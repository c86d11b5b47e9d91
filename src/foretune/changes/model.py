"""The change model: every recommendation (plan) and every fix (audit) as one change an admin applies.

A :class:`ChangeSet` is what `plan --output-dir`, `audit --output-dir`, `--format hiera` / `installer`,
`render`, `apply` and `verify` all read: one value per tunable, one channel per value, each change checked
against what could shadow it. Records are named tuples, like the plan's (start-up cost, see plan/model.py).
"""

from __future__ import annotations

from typing import Any, NamedTuple

# Where a value is applied. One channel per value: the installer option where one exists at that release,
# custom-hiera otherwise; the others for what the installer does not manage.
CHANNELS = (
    "installer",  # target: installer option ("--foreman-foreman-service-puma-workers"); value: its value
    "profile",  # target: "--tuning"; value: the profile name (the installer command starts with it)
    "custom-hiera",  # target: flattened hiera key ("foreman::foreman_service_puma_workers",
    #                  "postgresql::server::config_entries/max_connections"); value: its value
    "file",  # target: absolute path of a file the installer does not manage (6.2's edits); value: the line(s)
    "alter-system",  # target: PostgreSQL setting; value: its value (op "reset": ALTER SYSTEM RESET)
    "dropin",  # target: "<unit>:<Directive>" ("httpd.service:LimitNOFILE"); value: its value
    "sysctl",  # target: kernel parameter ("fs.aio-max-nr"); value: its value
    "tuned",  # target: "profile"; value: the tuned profile name
)
OPS = ("set", "remove", "reset")  # remove: a key/file that must go (stale key, override.conf); reset: ALTER SYSTEM RESET
EFFECTS = ("installer-run", "restart", "daemon-reload", "sysctl-reload", "tuned-adm", "immediate")


class Change(NamedTuple):
    """One value to put in force (or one thing to remove), through one channel."""

    tunable: str  # the plan's tunable id ("puma.workers") or a stable id of what is removed ("stale.checkpoint_segments")
    channel: str  # one of CHANNELS
    target: str  # where, in the channel's terms (see CHANNELS)
    value: Any = None  # None with op remove/reset
    op: str = "set"  # one of OPS
    effect: str = "installer-run"  # one of EFFECTS: what puts it in force
    units: tuple[str, ...] = ()  # services to restart for effect "restart" / "daemon-reload"
    file: str = ""  # the file the change is written to on the host ("/etc/foreman-installer/custom-hiera.yaml")
    overrides: tuple[str, ...] = ()  # lower-precedence places whose value this one wins over
    overridden_by: tuple[str, ...] = ()  # higher-precedence places that would win over it (the release's tables)
    reason: str = ""
    citations: tuple[str, ...] = ()
    source: str = "plan"  # "plan" or the id of the audit rule that asked for it
    site_value: Any = None  # the value the site set on purpose, when it differs (never lowered silently)


class Blocked(NamedTuple):
    """A change that cannot take effect as it stands, and why (what shadows it, what refuses it)."""

    change: Change
    why: str  # one line: "postgresql.auto.conf sets max_connections = '200' (ALTER SYSTEM wins)"
    citations: tuple[str, ...] = ()


class ChangeSet(NamedTuple):
    """One run's changes: duplicates merged, conflicts resolved, in the order they are applied."""

    release: str  # the release label the precedence was taken from ("Satellite 6.15")
    changes: tuple[Change, ...] = ()
    blocked: tuple[Blocked, ...] = ()  # recommendations that could not be made to take effect
    commands: tuple[str, ...] = ()  # one-off commands that set no value (transparent huge pages, hammer settings)
    advice: tuple[tuple[str, str], ...] = ()  # (what, advice): things to keep in mind, nothing to apply
    # (hiera key, value, profile): what a fix asked for that the installer run gives at the profile, left unpinned
    given: tuple[tuple[str, Any, str], ...] = ()

    def for_tunable(self, tunable: str) -> Change | None:
        """The one change of ``tunable`` (a change set never holds two)."""
        return next((c for c in self.changes if c.tunable == tunable), None)
