"""What the hosts do: a registration burst or rate, content downloads, an API rate, a REX job."""

from __future__ import annotations

from typing import NamedTuple

from foretune.errors import UsageError

KINDS = ("registrations", "downloads", "api", "rex")


class Workload(NamedTuple):
    kind: str  # registrations | downloads | api | rex
    concurrency: int = 0  # hosts starting at once (registrations, downloads) or REX job size
    rate_per_min: float = 0.0  # registrations per minute (open arrivals) instead of a burst
    duration_s: float = 1800.0  # how long arrivals last with rate_per_min
    packages: int = 10  # packages each downloading host fetches
    api_rate_per_s: float = 0.0  # background API calls per second (any workload)
    closed_s: float = 0.0  # registrations: each of ``concurrency`` hosts registers again and again for this long

    def label(self) -> str:
        if self.kind == "registrations" and self.rate_per_min:
            return f"{self.rate_per_min:g} registrations/min for {self.duration_s:g} s"
        if self.kind == "registrations" and self.closed_s:
            return f"{self.concurrency} hosts registering one after another for {self.closed_s:g} s"
        if self.kind == "registrations":
            return f"{self.concurrency} concurrent registrations"
        if self.kind == "downloads":
            return f"{self.concurrency} hosts downloading {self.packages} packages each"
        if self.kind == "rex":
            return f"a pull-REX job on {self.concurrency} hosts"
        return f"{self.api_rate_per_s:g} API calls/s for {self.duration_s:g} s"


def make(kind: str, concurrency: int | None, rate: float | None, duration: float | None, packages: int | None,
         api_rate: float | None) -> Workload:
    """Check the combination of options; one clear line for a wrong one."""
    if kind not in KINDS:
        raise UsageError(f"--workload {kind}: one of {', '.join(KINDS)}")
    if concurrency is not None and rate is not None:
        raise UsageError("give --concurrency or --rate, not both")
    if kind == "registrations" and concurrency is None and rate is None:
        raise UsageError("--workload registrations needs --concurrency N (hosts at once) or --rate N (per minute)")
    if kind in ("downloads", "rex") and concurrency is None:
        raise UsageError(f"--workload {kind} needs --concurrency N (hosts)")
    if rate is not None and kind != "registrations":
        raise UsageError("--rate is for --workload registrations; use --api-rate for API calls")
    if kind == "api" and not api_rate:
        raise UsageError("--workload api needs --api-rate N (calls per second)")
    return Workload(kind, concurrency or 0, rate or 0.0, duration or 1800.0, packages or 10, api_rate or 0.0)
