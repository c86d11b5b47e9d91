"""A mergeable quantile sketch: a histogram over fixed logarithmic buckets.

Every value ``v > 0`` falls into bucket ``ceil(log(v) / log(GAMMA))``; a quantile is answered with
the bucket's geometric middle ``2 * GAMMA**i / (GAMMA + 1)``, so any reported quantile is within
``RELATIVE_ERROR`` (about 1 %) of a value really present at that rank. Count, sum, min and max are
exact. Memory is one counter per occupied bucket (at most a few hundred for durations from 1 µs to
days), whatever the number of values; two sketches merge by adding counters.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import reduce
from itertools import repeat
from operator import add, truediv
from typing import Any

GAMMA = 1.02
RELATIVE_ERROR = (GAMMA - 1) / (GAMMA + 1)
_LOG_GAMMA = math.log(GAMMA)


MAX_VALUE = 1e300  # larger values (and infinity) count as this: their logarithm bucket stays a finite integer


class Sketch:
    """Streaming count/sum/min/max and quantiles of non-negative values."""

    __slots__ = ("buckets", "count", "max", "min", "sum", "zeros")

    def __init__(self) -> None:
        self.buckets: dict[int, int] = {}
        self.zeros = 0
        self.count = 0
        self.sum = 0.0
        self.min = math.inf
        self.max = 0.0

    def add(self, value: float) -> None:
        if not math.isfinite(value) or value > MAX_VALUE:  # "1e400ms" and the like: no duration, a damaged line
            value = MAX_VALUE if value == value and value > 0 else 0.0
        self.count += 1
        self.sum += value
        if value < self.min:
            self.min = value
        if value > self.max:
            self.max = value
        if value <= 0:
            self.zeros += 1
            return
        key = math.ceil(math.log(value) / _LOG_GAMMA)
        self.buckets[key] = self.buckets.get(key, 0) + 1

    def add_many(self, values: list[float]) -> None:
        """:meth:`add` each of ``values`` in order, the loops in C where every value is an ordinary one.

        >>> a, b = Sketch(), Sketch()
        >>> for v in (0.0, 3.5, 120.0, 3.5): a.add(v)
        >>> b.add_many([0.0, 3.5, 120.0, 3.5])
        >>> (a.count, a.sum, a.min, a.max, a.zeros, a.buckets) == (b.count, b.sum, b.min, b.max, b.zeros, b.buckets)
        True
        """
        if not values:
            return
        low, high = min(values), max(values)
        total = reduce(add, values, self.sum)
        if not (low >= 0.0 and high <= MAX_VALUE and math.isfinite(total)):  # NaN, infinite, negative: one at a time
            for value in values:
                self.add(value)
            return
        self.count += len(values)
        self.sum = total
        if low < self.min:
            self.min = low
        if high > self.max:
            self.max = high
        positive = list(filter(None, values))
        self.zeros += len(values) - len(positive)
        buckets = self.buckets
        for key, n in Counter(map(math.ceil, map(truediv, map(math.log, positive), repeat(_LOG_GAMMA)))).items():
            buckets[key] = buckets.get(key, 0) + n

    def merge(self, other: Sketch) -> None:
        self.count += other.count
        self.sum += other.sum
        self.min = min(self.min, other.min)
        self.max = max(self.max, other.max)
        self.zeros += other.zeros
        for key, n in other.buckets.items():
            self.buckets[key] = self.buckets.get(key, 0) + n

    def quantile(self, q: float) -> float | None:
        """The value at rank ``ceil(q * count)`` (within RELATIVE_ERROR); None when empty.

        >>> s = Sketch()
        >>> for v in range(1, 101): s.add(v)
        >>> abs(s.quantile(0.5) - 50) <= 50 * RELATIVE_ERROR, s.quantile(1.0)
        (True, 100.0)
        """
        if self.count == 0:
            return None
        rank = max(1, math.ceil(q * self.count))
        if rank >= self.count:
            return float(self.max)
        seen = self.zeros
        if rank <= seen:
            return 0.0
        for key in sorted(self.buckets):
            seen += self.buckets[key]
            if seen >= rank:
                middle = 2 * GAMMA ** key / (GAMMA + 1)
                return min(max(middle, self.min), self.max)
        return float(self.max)

    @property
    def mean(self) -> float | None:
        return self.sum / self.count if self.count else None

    def summary(self) -> dict[str, Any]:
        """count, sum, min, mean, p50, p95, p99, max (rounded to 0.1)."""
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 1)
        return {"count": self.count, "sum": r(self.sum), "min": r(self.min if self.count else None), "mean": r(self.mean),
                "p50": r(self.quantile(0.50)), "p95": r(self.quantile(0.95)), "p99": r(self.quantile(0.99)),
                "max": r(self.max if self.count else None)}
