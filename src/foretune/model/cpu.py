"""The CPUs as one processor-sharing server: every runnable burst progresses at the same rate.

With ``n`` runnable bursts on ``cores`` cores each runs at ``min(1, cores / n)`` of a core, further slowed
by ``penalty`` for every runnable burst of the Foreman serving path (Puma's Ruby, Candlepin's Java,
PostgreSQL) beyond the cores: the cost the guide's "8 workers on 4 CPUs" row shows (context switches
between large processes, cache misses). It is calibrated on registrations only; pulpcore-content's bursts
(one asyncio loop a process, nothing the worker tables measured) share the cores without adding to it. Processor sharing is exact: a virtual-work clock advances at
the per-burst rate and every burst finishes when the clock passes its own finish mark. ``background``: cores
taken by other work (a shared box, measured as the CPU it consumed). The kernel reserves no cores for it: its
runnable tasks share the cores with the bursts by time, so it counts as that many more runnable bursts (each burst
runs at ``cores / (n + background)`` of a core, at most one).
"""

from __future__ import annotations

import heapq
from typing import Any


class SharedCpu:
    """``run(demand)`` returns an event that fires when ``demand`` CPU seconds have been served."""

    def __init__(self, env: Any, cores: float, penalty: float, background: float = 0.0) -> None:
        self.env = env
        self.cores = float(cores)
        self.penalty = penalty
        self.background = background  # other work, as that many runnable bursts (never done, never penalised)
        self._jobs: list[tuple[float, int, Any, bool]] = []
        self._counted = 0  # runnable bursts that count towards the penalty
        self._virtual = 0.0
        self._last = 0.0
        self._seq = 0
        self._version = 0
        self.busy_area = 0.0  # integral of cores in use over time
        self.runnable_area = 0.0  # integral of runnable bursts over time

    def rate(self, runnable: int, counted: int) -> float:
        """Service rate of one burst (CPU seconds per second): ``runnable`` bursts, ``counted`` of them penalised."""
        if runnable <= 0:
            return 1.0
        over = max(0.0, counted - self.cores) / self.cores
        return min(1.0, self.cores / (runnable + self.background)) / (1.0 + self.penalty * over)

    def _advance(self) -> None:
        now = self.env.now
        elapsed = now - self._last
        if elapsed > 0:
            n = len(self._jobs)
            self._virtual += elapsed * self.rate(n, self._counted)
            self.busy_area += elapsed * min(n, self.cores)
            self.runnable_area += elapsed * n
            self._last = now

    def run(self, demand: float, counted: bool = True) -> Any:
        """An event fired when ``demand`` CPU seconds are served; ``counted``: the burst adds to the penalty."""
        self._advance()
        done = self.env.event()
        self._seq += 1
        self._counted += counted
        heapq.heappush(self._jobs, (self._virtual + max(demand, 0.0), self._seq, done, counted))
        self._schedule()
        return done

    def _schedule(self) -> None:
        self._version += 1
        if not self._jobs:
            return
        delay = max(0.0, (self._jobs[0][0] - self._virtual) / self.rate(len(self._jobs), self._counted))
        timer = self.env.timeout(delay)
        version = self._version
        timer.callbacks.append(lambda _event: self._fire(version))

    def _fire(self, version: int) -> None:
        if version != self._version:
            return
        self._advance()
        while self._jobs and self._jobs[0][0] <= self._virtual + 1e-9:
            _, _, done, counted = heapq.heappop(self._jobs)
            self._counted -= counted
            done.succeed()
        self._schedule()

    def utilisation(self, elapsed: float) -> float:
        self._advance()
        return self.busy_area / (elapsed * self.cores) if elapsed > 0 else 0.0
