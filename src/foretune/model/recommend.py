"""``--recommend``: the smallest change of plan tunables that holds a workload, and the best configuration.

Candidates change Puma workers (up to the CPUs and 1.5 x CPUs, within RAM at about 1 GiB a worker), Puma
threads (with the pool following) and Apache's MaxRequestWorkers. "Smallest" orders candidates by the
number of tunables changed, then by how far they move. A workload holds at >= 99 % first-try success.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

from foretune.model.demands import Demands
from foretune.model.network import Network, apply_sets
from foretune.model.workload import Workload

HOLDS = 0.99


class Candidate(NamedTuple):
    sets: dict[str, float]
    result: Any  # engine.Result

    @property
    def holds(self) -> bool:
        return bool(self.result.success_ratio >= HOLDS)


class Recommendation(NamedTuple):
    smallest: Candidate | None  # None: nothing in the search holds the workload
    best: Candidate  # highest first-try throughput of the search
    tried: int


def options(net: Network) -> dict[str, list[float]]:
    """Values each tunable may take: the current one first."""
    ram_workers = max(1, int(net.ram_gib * 0.5))  # about 1 GiB a worker, half the RAM left to Puma at most
    workers = sorted({net.puma_workers, *(w for w in (2, net.cpus // 2, net.cpus, int(net.cpus * 1.5))
                                           if 2 <= w <= ram_workers)})
    threads = sorted({net.puma_threads, 8, 16, 32})
    slots = sorted({net.apache_slots, 1024})
    return {"puma.workers": [float(w) for w in workers], "foreman.puma_threads": [float(t) for t in threads],
            "apache.max_request_workers": [float(s) for s in slots]}


def _distance(net: Network, sets: dict[str, float]) -> tuple[int, float]:
    current = {"puma.workers": net.puma_workers, "foreman.puma_threads": net.puma_threads,
               "apache.max_request_workers": net.apache_slots}
    changed = {k: v for k, v in sets.items() if v != current[k]}
    return len(changed), sum(abs(v - current[k]) / current[k] for k, v in changed.items())


def recommend(net: Network, dem: Demands, wl: Workload, seed: int = 1) -> Recommendation:
    from foretune.model import engine  # start-up: only when recommend runs

    opts = options(net)
    combos = [dict(zip(opts, values)) for values in itertools.product(*opts.values())]
    combos.sort(key=lambda sets: _distance(net, sets))
    smallest = None
    best = None
    for sets in combos:
        result = engine.simulate(apply_sets(net, sets), dem, wl, seed)
        cand = Candidate(sets, result)
        if smallest is None and cand.holds:
            smallest = cand
        if best is None or (result.success_ratio, result.throughput_per_s) > (best.result.success_ratio,
                                                                               best.result.throughput_per_s):
            best = cand
    assert best is not None
    return Recommendation(smallest, best, len(combos))


def knee(net: Network, dem: Demands, seed: int = 1, limit: int = 10000) -> int:
    """The most concurrent registrations at >= 99 % first-try success (to within about 5 %), up to ``limit``."""
    from foretune.model import engine  # start-up: only when knee runs

    def holds(n: int) -> bool:
        return engine.simulate(net, dem, Workload("registrations", n), seed).success_ratio >= HOLDS

    low, high = 0, 100
    while high <= limit and holds(high):
        low, high = high, high * 2
    if high > limit:
        if holds(limit):
            return limit
        high = limit
    while high - low > max(10, low // 20):
        mid = (low + high) // 2
        if holds(mid):
            low = mid
        else:
            high = mid
    return low
