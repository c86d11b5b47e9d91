"""The settings one load run works from (parsed and checked by commands/load.py)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Options:
    scenario: str
    target: str
    run: str
    users: int = 10
    duration: float = 60.0
    step: int = 0  # closed ramp: users added per level (0: one level)
    levels: int = 1
    max_users: int | None = None
    arrival_rate: float | None = None  # open model: new iterations per second
    time_limit: float = 600.0
    max_requests: int = 100_000
    timeout: float = 180.0  # subscription-manager's server_timeout
    stop_on_failure: bool = True
    organization: str = "Default_Organization"  # the label: Candlepin's owner
    organization_id: int | None = None  # Foreman's numeric id, for GET /register
    activation_key: str = ""
    repo: str = ""
    packages: int = 5
    profile_packages: int = 1000
    rhel: int = 9
    mqtt: tuple[str, int] | None = None
    ca: str | None = None
    insecure: bool = False
    client_cert: str | None = None
    client_key: str | None = None
    credentials: dict[str, str] = field(default_factory=dict, repr=False)
    master: tuple[str, int] | None = None  # distributed: bind here and direct the workers
    expect_workers: int = 1
    worker: tuple[str, int] | None = None  # distributed: the master to connect to
    notes: list[str] = field(default_factory=list)  # what the user should know about these settings

    def level_users(self) -> list[int]:
        """Users per level of a closed ramp: users, users+step, ... (``levels`` of them, none above ``max_users``)."""
        counts = [self.users + i * self.step for i in range(self.levels if self.step else 1)]
        if self.max_users is not None:
            counts = [c for c in counts if c <= self.max_users] or [min(self.users, self.max_users)]
        return counts
