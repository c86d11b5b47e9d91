"""The planner's input and output: plain immutable records, shared by `plan`, `render` and `audit`.

They are named tuples rather than frozen dataclasses: `plan` starts in a few tens of milliseconds, and
importing `dataclasses` (with `inspect`) and generating these classes took a third of that
(bench/README.md). Copy with ``_replace``, convert with ``_asdict``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from foretune.knowledge.model import Release

NOT_CONFIGURED: Mapping[str, tuple[Any, str]] = MappingProxyType({})


class PlanInput(NamedTuple):
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
    configured: Mapping[str, tuple[Any, str]] = NOT_CONFIGURED
    # Hiera keys of ``configured`` whose site value stays (render --merge-into keeps it): the plan derives from it.
    kept: frozenset[str] = frozenset()
    # httpd file -> its includes (the httpd_includes fact): a 6.2 edit goes where httpd reads it (a vhost that
    # includes no 05-foreman-ssl.d/ gets the line itself)
    httpd_includes: Mapping[str, Any] = NOT_CONFIGURED
    # Satellite 6.2: the KeepAlive directives the Foreman vhost runs with (the apache fact: the vhost's own lines over
    # httpd.conf's), the installer column of a box whose files foretune edits
    httpd_keepalive: Mapping[str, Any] = NOT_CONFIGURED


class Input(NamedTuple):
    """One cited input of a formula: a constant, a module default, a guide figure or a fact about the box."""

    name: str
    value: Any
    citation: str  # citation id; "box" for a fact about the box (CPUs, RAM, hosts) given by the user or read from it


class Setting(NamedTuple):
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


class Fix(NamedTuple):
    """One change an admin applies; rendered by foretune.render for plan and audit alike.

    kind: "hiera" (target = hiera key, value = value), "limit" (target = systemd unit,
    value = LimitNOFILE), "sysctl" (target = name), "command" (target = shell command, value None),
    "installer" (target = installer option, value = value).
    """

    kind: str
    target: str
    value: Any = None


class Tunable(NamedTuple):
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


class Problem(NamedTuple):
    """A consistency or sizing problem; never silently emitted."""

    severity: str  # info | low | medium | high | critical
    code: str  # e.g. "connections-over-max"
    message: str
    citations: tuple[str, ...] = ()


class MemoryItem(NamedTuple):
    """Resident memory of one component: ``bytes`` is the planning figure inside ``low_bytes``..``high_bytes``."""

    component: str
    bytes: int
    reason: str
    low_bytes: int = 0
    high_bytes: int = 0
    citations: tuple[str, ...] = ()


class HardwareCheck(NamedTuple):
    """Whether the box meets the hardware the installer asks of a profile."""

    profile: str  # profile that was checked
    required_cores: int
    required_ram_bytes: int  # before the 90 % allowance
    ok: bool
    message: str


class Plan(NamedTuple):
    """Everything `plan` decided for one box: profile, tunables, budgets and problems."""

    input: PlanInput
    release: Release
    profile: str  # profile recommended for the host count (or forced)
    profile_reason: str
    hardware: HardwareCheck
    largest_supported_profile: str | None
    tunables: Mapping[str, Tunable] = MappingProxyType({})
    connection_budget: tuple[tuple[str, int], ...] = ()  # (consumer, connections)
    installer_connection_budget: tuple[tuple[str, int], ...] = ()  # the same consumers with the installer's values
    memory: tuple[MemoryItem, ...] = ()
    problems: tuple[Problem, ...] = ()
