"""Progress of a series of benchmark steps as one rich progress line with ETA, drawn only on a terminal."""

from __future__ import annotations

import time
from typing import Any, Literal, TextIO

from foretune.term import clean_line, progress_console


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


def fields(step: int, steps: int, label: str, percent: float, eta: float | None) -> dict[str, Any]:
    """What the line shows besides the bar: step counter, current step, percent of that step, ETA.

    >>> fields(1, 4, "seq-read", 50.0, 90)
    {'counter': '2/4', 'label': 'seq-read', 'percent': '50%', 'eta': 'ETA 1m30s'}
    """
    return {"counter": f"{step + 1}/{steps}", "label": label, "percent": f"{max(0.0, min(percent, 100.0)):.0f}%",
            "eta": f"ETA {format_duration(eta)}" if eta is not None else "ETA unknown"}


def fit(label: str, width: int) -> str:
    """``label`` shortened in the middle to ``width`` columns (at least 10), its start and end kept.

    >>> fit("seq-read /var/lib/pgsql/data", 20), fit("seq-read /tmp", 20)
    ('seq-read /…gsql/data', 'seq-read /tmp')
    """
    width = max(width, 10)
    if len(label) <= width:
        return label
    head = (width - 1) // 2 + (width - 1) % 2
    return label[:head] + "…" + label[len(label) - (width - 1 - head):]


class Progress:
    """A rich progress line on ``stream`` (a no-op when ``enabled`` is false, i.e. off a terminal).

    The bar covers all steps; it is redrawn at most five times a second and removed by :meth:`clear`.
    """

    def __init__(self, stream: TextIO, steps: int, *, enabled: bool, color: bool = True) -> None:
        self.stream = stream
        self.steps = steps
        self.enabled = enabled
        self.color = color
        self.step = 0
        self.label = ""
        self.remaining_after: float | None = 0.0  # estimated seconds of the steps after this one
        self._bar: Any = None
        self._task: Any = None
        self._last = 0.0

    def start(self, step: int, label: str, remaining_after: float | None, estimate: float | None = None) -> None:
        """Begin a step; ``estimate`` is its expected duration until the tool reports its own ETA."""

        self.step, self.label, self.remaining_after = step, clean_line(label), remaining_after
        self.update(0.0, estimate, force=True)

    def update(self, percent: float, step_eta: float | None, *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last < 0.2:
            return
        self._last = now
        eta = None if step_eta is None or self.remaining_after is None else step_eta + self.remaining_after
        shown = fields(self.step, self.steps, self.label, percent, eta)
        done = self.step + max(0.0, min(percent, 100.0)) / 100.0
        if self._bar is None:
            self._open()
        shown["label"] = fit(self.label, self._room())
        if self._task is None:
            self._task = self._bar.add_task("", total=max(self.steps, 1), completed=done, **shown)
            self._bar.start()
        else:
            self._bar.update(self._task, completed=done, **shown)
            self._bar.refresh()

    def _room(self) -> int:
        """Columns left for the label: the terminal's width less the bar, counter, percent and ETA."""
        width: int = self._bar.console.width
        return width - 24 - len(f"{self.steps}/{self.steps}") - 4 - len("ETA unknown") - 5

    def _open(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn  # start-up: rich, only when this is drawn
        from rich.table import Column  # start-up: rich, only when this is drawn


        def fixed(name: str, width: int, justify: Literal["left", "right"] = "right") -> TextColumn:
            return TextColumn(f"{{task.fields[{name}]}}", markup=False, justify=justify,
                              table_column=Column(no_wrap=True, min_width=width))

        # on a narrow terminal the step's label gives way (see update); counter, percent and ETA keep their place
        self._bar = Progress(BarColumn(bar_width=24, table_column=Column(no_wrap=True, min_width=24)),
                             fixed("counter", len(f"{self.steps}/{self.steps}")),
                             TextColumn("{task.fields[label]}", markup=False, table_column=Column(no_wrap=True)),
                             fixed("percent", 4), fixed("eta", len("ETA unknown"), "left"),
                             console=progress_console(self.stream, color=self.color), transient=True, auto_refresh=False)

    def clear(self) -> None:
        """Remove the line (the next :meth:`start` draws it again)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = self._task = None
