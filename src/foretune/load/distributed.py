"""Locust's distributed mode: a master that runs the levels and keeps the results, workers that send the requests.

The master sends only user counts (Locust's own spawn messages) and, when the request cap is reached, a
``foretune_capped`` message. Each worker sends to its own ``--target`` with its own credentials and options, and
forwards every completed request and flow to the master in ``foretune_records`` messages (every ``FLUSH_S``
seconds and when it stops, before Locust's ``client_stopped``), so the master's results are built from the same
records a local run keeps, request by request, not from Locust's aggregated statistics.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from foretune.load.options import Options
from foretune.load.results import Recorder

if TYPE_CHECKING:
    from locust.env import Environment
    from locust.runners import MasterRunner

FLUSH_S = 0.25
WORKER_WAIT_S = 60.0  # how long the master waits for --expect-workers before giving up, nothing sent
RECORDS = "foretune_records"
CAPPED = "foretune_capped"


class WorkersMissing(Exception):
    """Fewer workers than expected connected to the master in time."""


class Forwarder(Recorder):
    """A worker's recorder: keeps each record only until it is sent to the master."""

    def __init__(self, opts: Options, secrets: tuple[str, ...] = ()) -> None:
        super().__init__(opts.scenario, opts.target, opts.run, {}, secrets)
        self.batch: list[list[Any]] = []
        self.trace_batch: list[list[Any]] = []
        self.capped = False

    def record(self, step: str, ms: float, kind: str | None, size: int = 0, message: str = "",
               *, flow: bool = False) -> None:
        with self._lock:
            self.batch.append([step, ms, kind, size, self._clean(message) if message else "", flow])
            if not flow:
                self.requests += 1

    def trace(self, host: str, start: float, end: float, failure: str | None, step: str | None) -> None:
        with self._lock:
            self.trace_batch.append([host, start, end, failure, step])

    def exhausted(self) -> bool:
        return self.capped

    def take(self) -> tuple[list[list[Any]], list[list[Any]]]:
        with self._lock:
            batch, self.batch = self.batch, []
            traces, self.trace_batch = self.trace_batch, []
        return batch, traces


def start_master(env: Environment, opts: Options, rec: Recorder, stop: Callable[[str], None]) -> MasterRunner:
    """Bind the master, take the workers' records into ``rec`` and wait until ``opts.expect_workers`` are ready."""
    import gevent  # start-up: gevent loads only when start_master runs

    assert opts.master
    host, port = opts.master
    runner = env.create_master_runner(master_bind_host=host, master_bind_port=port)
    foreign: set[str] = set()
    runs: set[str] = set()

    def on_records(environment: Any, msg: Any, **_: Any) -> None:
        data = msg.data or {}
        if data.get("scenario") != opts.scenario:
            if msg.node_id not in foreign:
                foreign.add(msg.node_id)
                rec.notes.append(f"a worker runs {data.get('scenario')!r}, not {opts.scenario!r}: its records are left out")
            return
        if msg.node_id not in runs:
            runs.add(msg.node_id)
            if opts.scenario == "registration":
                run = str(data.get("run"))
                rec.notes.append(f"a worker registers hosts as run {run} (foretune-load-{run}-*; --cleanup {run} removes them)")
        for step, ms, kind, size, message, flow in data.get("records", []):
            rec.record(str(step), float(ms), kind, int(size), str(message), flow=bool(flow))
        for host, start, end, failure, failed_step in data.get("traces", []):
            rec.trace(str(host), float(start), float(end), failure, failed_step)
        if rec.exhausted():
            stop("request-cap")
            runner.send_message(CAPPED)

    runner.register_message(RECORDS, on_records)
    deadline = time.monotonic() + WORKER_WAIT_S
    while runner.worker_count < opts.expect_workers:
        if time.monotonic() >= deadline:
            found = runner.worker_count
            runner.quit()
            raise WorkersMissing(f"{found} of {opts.expect_workers} workers connected to {host}:{port} "
                                 f"within {WORKER_WAIT_S:.0f} s; nothing was sent")
        gevent.sleep(0.2)
    rec.notes.append(f"distributed: {runner.worker_count} workers")
    rec.started, rec.started_wall = time.monotonic(), time.time()  # the run starts when the workers are there
    return runner


def run_worker(env: Environment, opts: Options, fwd: Forwarder) -> None:
    """Connect to the master, send requests as it directs, forward the records; return when the master quits."""
    import gevent  # start-up: gevent loads only when run_worker runs

    assert opts.worker
    host, port = opts.worker
    runner = env.create_worker_runner(master_host=host, master_port=port)

    def flush(**_: Any) -> None:
        batch, traces = fwd.take()
        if batch or traces:
            runner.send_message(RECORDS, {"scenario": opts.scenario, "run": opts.run, "records": batch, "traces": traces})

    def capped(environment: Any, msg: Any, **_: Any) -> None:
        fwd.capped = True

    def flusher() -> None:
        while True:
            gevent.sleep(FLUSH_S)
            flush()

    runner.register_message(CAPPED, capped)
    env.events.test_stop.add_listener(flush)  # type: ignore[no-untyped-call]  # fires when the users are stopped, before client_stopped is sent
    loop = gevent.spawn(flusher)
    try:
        runner.greenlet.join(timeout=opts.time_limit)
    finally:
        loop.kill()
        if len(runner.greenlet):  # the worker's own --time-limit: stop its users and leave
            runner.quit()
