"""Hardware per profile: host ranges, recommendations, and what the installer enforces."""

from __future__ import annotations

from typing import Any, NamedTuple

from foretune.knowledge import load_data
from foretune.knowledge.model import SIZES
from foretune.knowledge.releases import version_key

GIB = 1024**3


class Requirement(NamedTuple):
    """The installer's minimum CPUs and RAM for one tuning profile."""

    profile: str
    cores: int
    ram_gib: float
    citation: str

    @property
    def ram_bytes(self) -> int:
        return int(self.ram_gib * GIB)

    def met_by(self, cpus: int, ram_bytes: int) -> bool:
        """The installer's test: logical CPUs and RAM with the 90 % allowance."""
        return cpus >= self.cores and ram_bytes >= self.ram_bytes * ram_allowance()


def _data() -> dict[str, Any]:
    return dict(load_data("hardware.yaml"))


def ram_allowance() -> float:
    return float(_data()["ram_allowance"]["value"])


def profile_for_hosts(hosts: int) -> str:
    """The smallest size profile meant for ``hosts`` managed hosts.

    >>> profile_for_hosts(5000), profile_for_hosts(5001), profile_for_hosts(70000)
    ('default', 'medium', 'extra-extra-large')
    """
    for name in SIZES:
        limit = _data()["profiles"]["sizes"][name]["max_hosts"]
        if limit is None or hosts <= limit:
            return name
    return SIZES[-1]


def host_range(profile: str) -> tuple[int, int | None]:
    sizes = _data()["profiles"]["sizes"]
    index = SIZES.index(profile)
    low = 0 if index == 0 else sizes[SIZES[index - 1]]["max_hosts"] + 1
    return low, sizes[profile]["max_hosts"]


def recommended(profile: str) -> Requirement:
    """The guides' hardware for ``profile``."""
    data = _data()["profiles"]
    entry = data["development"] if profile == "development" else data["sizes"][profile]
    return Requirement(profile, int(entry["cores"]), float(entry["ram_gib"]), data["citation"])


def puma_worker_range(profile: str) -> tuple[int, int]:
    low, high = _data()["profiles"]["sizes"]["default" if profile == "development" else profile]["puma_workers"]
    return int(low), int(high)


def enforced(profile: str, foreman_version: str) -> Requirement | None:
    """What the installer of ``foreman_version`` refused below, or None when it did not check."""
    checks: dict[str, Any] = {}
    citation = ""
    for step in _data()["installer_enforcement"]:
        if version_key(step["since"]) <= version_key(foreman_version):
            checks, citation = step["checks"], step["citation"]
    entry = checks.get(profile)
    return Requirement(profile, int(entry["cores"]), float(entry["ram_gib"]), citation) if entry else None


def largest_accepted(cpus: int, ram_bytes: int, foreman_version: str, below: str) -> str | None:
    """The largest size profile under ``below`` that the installer of ``foreman_version`` accepts on this box (a
    profile it did not check counts as accepted); None when it accepts none."""
    accepted = [name for name in SIZES[:SIZES.index(below)]
                if (need := enforced(name, foreman_version)) is None or need.met_by(cpus, ram_bytes)]
    return accepted[-1] if accepted else None


def largest_supported(cpus: int, ram_bytes: int) -> str | None:
    """The largest size profile whose recommended hardware this box meets (90 % RAM rule)."""
    best = None
    for name in SIZES:
        if recommended(name).met_by(cpus, ram_bytes):
            best = name
    return best
