"""Requests as they complete -> per step and level: count, failures by kind, p50/p95/p99 latency, rate.

The document is versioned (``SCHEMA``; its JSON Schema is ``schema/load-v1.json``). Failure kinds: ``503``,
``timeout``, ``tls``, ``refused``, ``reset`` (connection closed or reset), any other HTTP status as its
number (``500``, ``404``), and ``error`` for anything else.
"""

from __future__ import annotations

import errno
import math
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "foretune-load/1"
MAX_EXAMPLES = 3  # distinct error messages kept per step
EXAMPLE_CHARS = 200


def classify(status: int, exc: BaseException | None) -> str | None:
    """The failure kind of one request, or None when it succeeded.

    >>> classify(200, None), classify(503, None), classify(0, ConnectionRefusedError()), classify(0, TimeoutError())
    (None, '503', 'refused', 'timeout')
    """
    if exc is not None and status in (0, None):
        return _kind_of_exception(exc)
    if status >= 400:
        return str(status)
    if exc is not None:
        return _kind_of_exception(exc)
    return None


def _kind_of_exception(exc: BaseException) -> str:
    for _ in range(4):  # a client library's wrapper: classify what it wraps
        inner = next((getattr(exc, a) for a in ("original", "reason", "__cause__", "__context__")
                      if isinstance(getattr(exc, a, None), BaseException)), None)
        if inner is None:
            break
        exc = inner
    if isinstance(exc, (ssl.SSLError, ssl.CertificateError)):
        return "tls"
    if isinstance(exc, ConnectionRefusedError):
        return "refused"
    if isinstance(exc, (TimeoutError, socket.timeout)):
        return "timeout"
    if isinstance(exc, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
        return "reset"
    if isinstance(exc, OSError) and exc.errno in (errno.ECONNREFUSED,):
        return "refused"
    name = type(exc).__name__.lower()
    for word, kind in (("timeout", "timeout"), ("timed out", "timeout"), ("ssl", "tls"), ("certificate", "tls"),
                       ("refused", "refused"), ("reset", "reset")):
        if word in name or word in str(exc).lower():
            return kind
    return "error"


def percentile(ordered: list[float], q: float) -> float | None:
    """The nearest-rank ``q`` percentile of sorted values.

    >>> percentile([1.0, 2.0, 3.0, 4.0], 50), percentile([1.0, 2.0, 3.0, 4.0], 99), percentile([], 50)
    (2.0, 4.0, None)
    """
    if not ordered:
        return None
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class StepStats:
    latencies: list[float] = field(default_factory=list)  # ms, successes and failures alike
    failures: dict[str, int] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)
    bytes: int = 0

    def add(self, ms: float, kind: str | None, size: int, message: str) -> None:
        self.latencies.append(ms)
        self.bytes += size
        if kind is not None:
            self.failures[kind] = self.failures.get(kind, 0) + 1
            text = " ".join(message.split())[:EXAMPLE_CHARS]
            if text and text not in self.examples and len(self.examples) < MAX_EXAMPLES:
                self.examples.append(text)


@dataclass
class Level:
    users: int
    started: float
    ended: float | None = None
    steps: dict[str, StepStats] = field(default_factory=dict)


class Recorder:
    """Collects every completed request (and composite flow) into the level running when it started."""

    def __init__(self, scenario: str, target: str, run: str, shape: dict[str, Any], secrets: tuple[str, ...] = ()) -> None:
        self.scenario = scenario
        self.target = target
        self.run = run
        self.shape = shape
        self.started_wall = time.time()
        self.started = time.monotonic()
        self.levels: list[Level] = []
        self.requests = 0
        self.max_requests: int | None = None
        self.stopped_by = "duration"
        self.interrupted = False
        self.notes: list[str] = []
        self.traces: list[dict[str, Any]] = []  # registration: one per host, as satperf records them
        self._lock = threading.Lock()
        self._secrets = tuple(sorted((x for x in secrets if x), key=len, reverse=True))

    def note_once(self, text: str) -> None:
        """Add ``text`` to the report's notes unless it is there already."""
        with self._lock:
            if text not in self.notes:
                self.notes.append(text)

    def _clean(self, text: str) -> str:
        """``text`` with the run's own credentials and anything that looks like a secret masked."""
        from foretune.host.redact import redact_text  # start-up: only when _clean runs

        for secret in self._secrets:
            text = text.replace(secret, "[redacted]")
        return redact_text(text)

    def begin_level(self, users: int) -> None:
        now = time.monotonic()
        if self.levels and self.levels[-1].ended is None:
            self.levels[-1].ended = now
        self.levels.append(Level(users, now))

    def end(self) -> None:
        if self.levels and self.levels[-1].ended is None:
            self.levels[-1].ended = time.monotonic()

    def record(self, step: str, ms: float, kind: str | None, size: int = 0, message: str = "",
               *, flow: bool = False) -> None:
        with self._lock:
            if not self.levels:
                self.begin_level(0)
            self.levels[-1].steps.setdefault(step, StepStats()).add(ms, kind, size, message)
            if not flow:
                self.requests += 1

    def trace(self, host: str, start: float, end: float, failure: str | None, step: str | None) -> None:
        """One registration: its host, wall-clock start and end, and whether it succeeded at the first try."""
        with self._lock:
            self.traces.append({"host": host, "start": start, "end": end, "first_try_ok": failure is None,
                                "failure": failure, "failed_step": step})

    def exhausted(self) -> bool:
        """The request cap is reached: no user may send another request."""
        return self.max_requests is not None and self.requests >= self.max_requests

    def level_failed(self) -> bool:
        return bool(self.levels) and any(s.failures for s in self.levels[-1].steps.values())

    def document(self) -> dict[str, Any]:
        from foretune import __version__  # start-up: only when document runs

        redact_text = self._clean
        self.end()
        levels: list[dict[str, Any]] = []
        for level in self.levels:
            seconds = max((level.ended or time.monotonic()) - level.started, 1e-9)
            steps = [_step(name, stats, seconds, redact_text) for name, stats in level.steps.items()]
            levels.append({"users": level.users, "duration_s": round(seconds, 3), "steps": steps})
        overall: dict[str, StepStats] = {}
        for level in self.levels:
            for name, stats in level.steps.items():
                total = overall.setdefault(name, StepStats())
                total.latencies += stats.latencies
                total.bytes += stats.bytes
                for kind, n in stats.failures.items():
                    total.failures[kind] = total.failures.get(kind, 0) + n
                for text in stats.examples:
                    if text not in total.examples and len(total.examples) < MAX_EXAMPLES:
                        total.examples.append(text)
        elapsed = max(time.monotonic() - self.started, 1e-9)
        saturation = next((lv["users"] for lv in levels if any(s["failures_total"] for s in lv["steps"])), None)
        return {
            "schema": SCHEMA, "foretune": __version__, "scenario": self.scenario, "target": redact_text(self.target),
            "run": self.run, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started_wall)),
            "duration_s": round(elapsed, 3), "shape": self.shape, "requests": self.requests,
            "stopped_by": self.stopped_by, "interrupted": self.interrupted,
            "saturation_users": saturation,
            "steps": [_step(name, stats, elapsed, redact_text) for name, stats in overall.items()],
            "levels": levels, "notes": [redact_text(n) for n in self.notes],
            **({"registrations": _registrations(self.traces, self.started_wall)} if self.scenario == "registration" else {}),
        }


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _step(name: str, stats: StepStats, seconds: float, redact: Any) -> dict[str, Any]:
    ordered = sorted(stats.latencies)
    count = len(ordered)
    failed = sum(stats.failures.values())
    return {
        "name": name, "count": count, "failures": dict(sorted(stats.failures.items())), "failures_total": failed,
        "p50_ms": _ms(percentile(ordered, 50)), "p95_ms": _ms(percentile(ordered, 95)),
        "p99_ms": _ms(percentile(ordered, 99)), "max_ms": _ms(ordered[-1] if ordered else None),
        "rps": round(count / seconds, 3), "ok_rps": round((count - failed) / seconds, 3),
        "mb_per_s": round(stats.bytes / seconds / 1e6, 3), "examples": [redact(t) for t in stats.examples],
    }


def _registrations(traces: list[dict[str, Any]], started: float) -> dict[str, Any]:
    """First-try success over the run and the per-host trace (start and end in seconds from the run's start)."""
    ordered = sorted(traces, key=lambda t: t["start"])
    ok = sum(1 for t in ordered if t["first_try_ok"])
    return {"total": len(ordered), "first_try_ok": ok,
            "first_try_rate": round(ok / len(ordered), 4) if ordered else None,
            "hosts": [{"host": t["host"], "start_s": round(t["start"] - started, 3), "end_s": round(t["end"] - started, 3),
                       "first_try_ok": t["first_try_ok"], "failure": t["failure"], "failed_step": t["failed_step"]}
                      for t in ordered]}
