"""The planner's input and output: plain frozen data, shared by `plan`, `render` and `audit`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from foretune.knowledge.model import Release


@dataclass(frozen=True)
class PlanInput:
    """Hardware and workload of one box."""

    product: str
    version: str
    hosts: int
    cpus: int  # logical CPUs
    ram_bytes: int
    role: str = "server"  # server | capsule
    physical_cores: int | None = None  # defaults to cpus
    virtual: bool | None = None  # None = unknown
    rex: str = "ssh"  # ssh | pull-mqtt
    rex_hosts: int | None = None  # defaults to hosts when rex is pull-mqtt
    katello_agent_hosts: int = 0
    puppet_hosts: int = 0
    puppet_runinterval: int | None = None  # seconds
    profile: str | None = None  # forced tuning profile
    foreman_version: str | None = None  # installed Foreman x.y (from facts); wins over the product's version map
    katello: bool = True  # plain Foreman (product foreman with --no-katello) has no Candlepin, Pulp or --tuning
    # Values in force on the box (from --from facts): flattened hiera key -> (value, where it is set).
    # kafo's precedence: custom-hiera.yaml above the answers file above the tuning profile.
    configured: dict[str, tuple[Any, str]] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Input:
    """One cited input of a formula: a constant, a module default, a guide figure or a fact about the box."""

    name: str
    value: Any
    citation: str  # citation id; "box" for a fact about the box (CPUs, RAM, hosts) given by the user or read from it


@dataclass(frozen=True)
class Setting:
    """One value with the reason for it and the citations that back the reason.

    ``formula`` and ``inputs`` record how the value was reached (``foretune plan --explain``):
    an empty formula with inputs means the value is one of the inputs as is.
    """

    value: Any  # None = not set / module default unknown
    reason: str
    citations: tuple[str, ...] = ()
    formula: str = ""
    inputs: tuple[Input, ...] = ()
    origin: str = ""  # installer column only: "answers file" or "custom-hiera.yaml" when the box sets the value itself


@dataclass(frozen=True)
class Fix:
    """One change an admin applies; rendered by foretune.render for plan and audit alike.

    kind: "hiera" (target = hiera key, value = value), "limit" (target = systemd unit,
    value = LimitNOFILE), "sysctl" (target = name), "command" (target = shell command, value None),
    "installer" (target = installer option, value = value).
    """

    kind: str
    target: str
    value: Any = None


@dataclass(frozen=True)
class Tunable:
    """A tunable of this generation: what the installer gives and what foretune recommends."""

    id: str  # "component.name", e.g. "puma.workers"
    component: str
    title: str
    unit: str  # count | bytes | seconds | text | bool
    installer: Setting
    foretune: Setting
    fixes: tuple[Fix, ...] = ()

    @property
    def differs(self) -> bool:
        return self.foretune.value is not None and self.foretune.value != self.installer.value


@dataclass(frozen=True)
class Problem:
    """A consistency or sizing problem; never silently emitted."""

    severity: str  # info | low | medium | high | critical
    code: str  # e.g. "connections-over-max"
    message: str
    citations: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryItem:
    """Resident memory of one component: ``bytes`` is the planning figure inside ``low_bytes``..``high_bytes``."""

    component: str
    bytes: int
    reason: str
    low_bytes: int = 0
    high_bytes: int = 0
    citations: tuple[str, ...] = ()


@dataclass(frozen=True)
class HardwareCheck:
    profile: str  # profile that was checked
    required_cores: int
    required_ram_bytes: int  # before the 90 % allowance
    ok: bool
    message: str


@dataclass(frozen=True)
class Plan:
    input: PlanInput
    release: Release
    profile: str  # profile recommended for the host count (or forced)
    profile_reason: str
    hardware: HardwareCheck
    largest_supported_profile: str | None
    tunables: dict[str, Tunable] = field(default_factory=dict)
    connection_budget: tuple[tuple[str, int], ...] = ()  # (consumer, connections)
    installer_connection_budget: tuple[tuple[str, int], ...] = ()  # the same consumers with the installer's values
    memory: tuple[MemoryItem, ...] = ()
    problems: tuple[Problem, ...] = ()
