"""A one-line progress bar with ETA for a series of benchmark steps, drawn only on a terminal."""

from __future__ import annotations

import time
from typing import TextIO

WIDTH = 24


def format_duration(seconds: float) -> str:
    """``75`` -> ``'1m15s'``; ``3723`` -> ``'1h02m'``.

    >>> format_duration(75), format_duration(3723), format_duration(9)
    ('1m15s', '1h02m', '9s')
    """
    seconds = max(0, round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def render(step: int, steps: int, label: str, percent: float, eta: float | None, width: int = WIDTH) -> str:
    """One progress line: overall bar, step counter, current step, percent of that step, ETA.

    >>> render(1, 4, "seq-read", 50.0, 90)
    '[#########...............] 2/4 seq-read  50%  ETA 1m30s'
    """
    done = (step + max(0.0, min(percent, 100.0)) / 100.0) / max(steps, 1)
    filled = int(done * width)
    tail = f"ETA {format_duration(eta)}" if eta is not None else "ETA unknown"
    return f"[{'#' * filled}{'.' * (width - filled)}] {step + 1}/{steps} {label}  {percent:.0f}%  {tail}"


class Progress:
    """Draws :func:`render` lines on ``stream`` (a no-op when it is not a terminal)."""

    def __init__(self, stream: TextIO, steps: int, *, enabled: bool) -> None:
        self.stream = stream
        self.steps = steps
        self.enabled = enabled
        self.step = 0
        self.label = ""
        self.remaining_after: float | None = 0.0  # estimated seconds of the steps after this one
        self._drawn = 0
        self._last = 0.0

    def start(self, step: int, label: str, remaining_after: float | None, estimate: float | None = None) -> None:
        """Begin a step; ``estimate`` is its expected duration until the tool reports its own ETA."""
        self.step, self.label, self.remaining_after = step, label, remaining_after
        self.update(0.0, estimate, force=True)

    def update(self, percent: float, step_eta: float | None, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        eta = None if step_eta is None or self.remaining_after is None else step_eta + self.remaining_after
        line = render(self.step, self.steps, self.label, percent, eta)
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def clear(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0
