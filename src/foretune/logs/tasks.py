"""foreman-tasks and Dynflow CSV exports of a sosreport (``foreman_tasks_tasks``, ``dynflow_steps``).

Tasks: duration (``ended_at - started_at``) by label, paused and stopped-with-error counts, the
slowest tasks. Steps: execution time by action class. The exports' times are UTC (GMT), unlike
the text logs.
"""

from __future__ import annotations

import csv
import heapq
from collections.abc import Iterable, Iterator
from typing import Any

from foretune.logs.base import Analyzer
from foretune.logs.sketch import Sketch
from foretune.logs.timeutil import epoch, iso

TOP = 15


def stamp(text: str) -> int | None:
    """``2024-01-15 10:30:45.123+00`` -> epoch seconds; None when empty or malformed.

    >>> stamp("1970-01-02 00:00:01.5+00"), stamp("")
    (86401, None)
    """
    text = text.strip()
    if len(text) < 19:
        return None
    try:
        return epoch(int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]), int(text[14:16]), int(text[17:19]))
    except ValueError:
        return None


def _decoded(lines: Iterable[bytes]) -> Iterator[str]:
    for line in lines:
        yield line.decode("utf-8", "replace")


class TasksCsv(Analyzer):
    """Either export; the header says which."""

    kind = "tasks"

    def __init__(self, path: str, window: Any = None) -> None:
        super().__init__(path, window)
        self.labels: dict[str, Sketch] = {}
        self.states: dict[str, int] = {}
        self.paused = 0
        self.stopped_error = 0
        self.slowest: list[tuple[float, str, str, str]] = []  # (seconds, label, id, started)
        self.steps: dict[str, list[float]] = {}  # action class -> [count, total execution s, max s]

    def consume(self, lines: Iterable[bytes]) -> None:
        text = _decoded(lines)
        try:
            first = next(text)
        except StopIteration:
            return
        self.lines += 1
        delimiter = ";" if first.count(";") > first.count(",") else ","
        try:
            header = [h.strip() for h in next(csv.reader([first], delimiter=delimiter))]
        except (csv.Error, StopIteration):  # e.g. a header longer than csv's field limit
            header = []
        if "label" in header and "state" in header:
            self._tasks(csv.reader(text, delimiter=delimiter), header)
        elif "execution_time" in header:
            self._steps(csv.reader(text, delimiter=delimiter), header)
        else:
            self._bad(first.encode())
            for line in text:
                self.lines += 1
                self._bad(line.encode())

    def _time(self, t: int) -> None:
        """Widen the span only: export rows follow no time order, so an earlier row is no clock jump."""
        self.first = t if self.first is None else min(self.first, t)
        self.last = t if self.last is None else max(self.last, t)

    def _rows(self, reader: Iterator[list[str]], header: list[str]) -> Iterator[dict[str, str]]:
        width = len(header)
        try:
            for row in reader:
                self.lines += 1
                if len(row) != width:
                    if row:
                        self._bad(",".join(row).encode())
                    continue
                yield dict(zip(header, row))
        except csv.Error as exc:
            self.problems.append(f"{self.path}: {exc}; the rows before count")

    def _tasks(self, reader: Iterator[list[str]], header: list[str]) -> None:
        for row in self._rows(reader, header):
            started, ended = stamp(row.get("started_at", "")), stamp(row.get("ended_at", ""))
            if started is not None and not self.window.open and started not in self.window:
                self.outside += 1
                continue
            if started is not None:
                self._time(started)
            state, result = row.get("state", ""), row.get("result", "")
            self.states[state] = self.states.get(state, 0) + 1
            self.paused += state == "paused"
            self.stopped_error += state == "stopped" and result == "error"
            if started is None or ended is None:
                continue
            seconds = float(max(0, ended - started))
            label = row.get("label") or "(no label)"
            sketch = self.labels.get(label)
            if sketch is None:
                sketch = self.labels[label] = Sketch()
            sketch.add(seconds)
            item = (seconds, label, row.get("id", ""), iso(started) or "")
            if len(self.slowest) < TOP:
                heapq.heappush(self.slowest, item)
            elif item > self.slowest[0]:
                heapq.heapreplace(self.slowest, item)

    def _steps(self, reader: Iterator[list[str]], header: list[str]) -> None:
        for row in self._rows(reader, header):
            try:
                seconds = float(row.get("execution_time") or 0)
            except ValueError:
                self._bad(",".join(row.values()).encode())
                continue
            started = stamp(row.get("started_at", ""))
            if started is not None and not self._kept(started):
                continue
            name = row.get("action_class") or row.get("class") or "(unknown)"
            entry = self.steps.setdefault(name, [0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += seconds
            entry[2] = max(entry[2], seconds)

    def merge_more(self, other: TasksCsv) -> None:
        for k, s in other.labels.items():
            if k in self.labels:
                self.labels[k].merge(s)
            else:
                self.labels[k] = s
        for k, v in other.states.items():
            self.states[k] = self.states.get(k, 0) + v
        self.paused += other.paused
        self.stopped_error += other.stopped_error
        self.slowest = heapq.nlargest(TOP, self.slowest + other.slowest)
        heapq.heapify(self.slowest)
        for k, row in other.steps.items():
            mine = self.steps.setdefault(k, [0, 0.0, 0.0])
            mine[0] += row[0]
            mine[1] += row[1]
            mine[2] = max(mine[2], row[2])

    def summary(self) -> dict[str, Any]:
        labels = [{"label": k, **s.summary()} for k, s in sorted(self.labels.items(), key=lambda kv: -kv[1].sum)[:TOP]]
        steps = [{"action_class": k, "count": int(v[0]), "execution_s": round(v[1], 1), "max_s": round(v[2], 1)}
                 for k, v in sorted(self.steps.items(), key=lambda kv: -kv[1][1])[:TOP]]
        slowest = [{"seconds": round(s, 1), "label": label, "id": tid, "started": when}
                   for s, label, tid, when in sorted(self.slowest, reverse=True)]
        return {**self.common(), "tasks": sum(self.states.values()), "states": dict(sorted(self.states.items())),
                "paused": self.paused, "stopped_with_error": self.stopped_error, "by_label": labels,
                "slowest_tasks": slowest, "steps": steps, "times_are_utc": True}
