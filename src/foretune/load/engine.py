"""The HTTP scenarios on Locust used as a library: closed ramps on a LocalRunner, open arrivals on a gevent pool.

Locust monkey-patches the standard library for gevent when it is imported, so it is imported only when a
run starts (``run``), in the process that runs the load; importing this module has no such effect.
"""

from __future__ import annotations

import contextlib
import logging
import random
import signal
import ssl
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from foretune.load import flows
from foretune.load.identity import server_context
from foretune.load.options import Options
from foretune.load.results import Recorder, classify

if TYPE_CHECKING:
    from locust import FastHttpUser
    from locust.env import Environment

TICK = 0.1


def _ssl_factory(opts: Options) -> Callable[..., ssl.SSLContext]:
    def factory(**_ignored: Any) -> ssl.SSLContext:  # geventhttpclient passes its own cafile=None
        context = server_context(opts)
        if opts.client_cert:
            context.load_cert_chain(opts.client_cert, opts.client_key)
        return context

    return factory


def user_class(opts: Options, rec: Recorder) -> type[FastHttpUser]:
    """A FastHttpUser whose one task is one iteration of the scenario."""
    from locust import FastHttpUser, constant, task  # start-up: Locust (and gevent) loads only when user_class runs
    from locust.exception import StopUser  # start-up: Locust (and gevent) loads only when user_class runs

    class LoadUser(FastHttpUser):
        host = opts.target
        wait_time = constant(0)
        network_timeout = opts.timeout
        connection_timeout = opts.timeout
        max_retries = 0
        insecure = opts.insecure
        ssl_context_factory = staticmethod(_ssl_factory(opts))

        def on_start(self) -> None:
            self.api_state = flows.ApiState()

        @task
        def iteration(self) -> None:
            try:
                if opts.scenario == "registration":
                    flows.registration(self.client, opts, rec)
                elif opts.scenario == "content":
                    flows.content(self.client, opts, rec)
                else:
                    flows.api(self.client, opts, rec, self.api_state)
            except flows.Exhausted:
                raise StopUser from None
            except Exception as exc:  # a bug or an answer the flow cannot read: counted, never silent
                rec.record("iteration", 0.0, "error", message=f"{type(exc).__name__}: {exc}", flow=True)

    return LoadUser


def _listener(rec: Recorder, stop: Callable[[str], None], cap: int) -> Callable[..., None]:
    def on_request(request_type: str, name: str, response_time: float, response_length: int, response: Any = None,
                   exception: BaseException | None = None, **_: Any) -> None:
        status = int(getattr(response, "status_code", 0) or 0)
        kind = classify(status, exception)
        message = ""
        if kind is not None:
            message = str(exception or "")
            if status >= 500:
                with contextlib.suppress(Exception):  # a body that cannot be read is still a failure of its status
                    message = response.text or message
        rec.record(name, float(response_time or 0.0), kind, int(response_length or 0), message)
        if cap and rec.requests >= cap:
            stop("request-cap")

    return on_request


def run(opts: Options, rec: Recorder) -> None:
    """Run the scenario until its levels or duration end, the time limit or request cap is hit, or Ctrl-C."""
    import gevent  # start-up: gevent loads only when run runs
    from locust.env import Environment  # start-up: Locust (and gevent) loads only when run runs

    logging.getLogger("locust").setLevel(logging.ERROR)
    # distributed: no host on the Environment, so Locust's spawn messages never carry the master's target to a
    # worker, and each worker sends to its own --target
    distributed_mode = bool(opts.master or opts.worker)
    env = Environment(user_classes=[user_class(opts, rec)], host=None if distributed_mode else opts.target)
    stopped: list[str] = []

    def stop(reason: str) -> None:
        if not stopped:
            stopped.append(reason)

    def interrupted() -> None:
        rec.interrupted = True
        stop("interrupt")

    if opts.worker:
        from foretune.load import distributed  # start-up: only when run runs

        assert isinstance(rec, distributed.Forwarder)
        env.events.request.add_listener(_listener(rec, lambda _reason: None, 0))  # type: ignore[no-untyped-call]
        distributed.run_worker(env, opts, rec)
        return
    rec.max_requests = opts.max_requests
    env.events.request.add_listener(_listener(rec, stop, opts.max_requests))  # type: ignore[no-untyped-call]
    handlers = [gevent.signal_handler(sig, interrupted) for sig in (signal.SIGINT, signal.SIGTERM)]
    if rec.interrupted:  # Ctrl-C before the handlers were in place
        interrupted()
    deadline = time.monotonic() + opts.time_limit
    try:
        if opts.arrival_rate:
            _open(env, opts, rec, stopped, deadline)
        else:
            _closed(env, opts, rec, stopped, deadline)
    finally:
        for handler in handlers:
            handler.cancel()
    rec.stopped_by = stopped[0] if stopped else "duration"
    rec.end()


def _wait(seconds: float, stopped: list[str], deadline: float, stop_reason: Callable[[str], None]) -> None:
    import gevent  # start-up: gevent loads only when _wait runs

    until = time.monotonic() + seconds
    while not stopped:
        now = time.monotonic()
        if now >= deadline:
            stop_reason("time-limit")
            return
        if now >= until:
            return
        gevent.sleep(min(TICK, until - now))


def _closed(env: Environment, opts: Options, rec: Recorder, stopped: list[str], deadline: float) -> None:
    runner: Any
    if opts.master:
        from foretune.load import distributed  # start-up: only when _closed runs

        def stop(reason: str) -> None:
            if not stopped:
                stopped.append(reason)

        runner = distributed.start_master(env, opts, rec, stop)
        deadline = time.monotonic() + opts.time_limit  # the limit counts from when the workers are there
    else:
        runner = env.create_local_runner()
    levels = opts.level_users()
    try:
        for index, users in enumerate(levels):
            rec.begin_level(users)
            runner.start(users, spawn_rate=max(users, 1))
            _wait(opts.duration, stopped, deadline, stopped.append)
            if stopped:
                break
            if opts.stop_on_failure and index + 1 < len(levels) and rec.level_failed():
                stopped.append("failures")
                break
    finally:
        if opts.master:
            runner.stop()  # waits for every worker's client_stopped, which follows its last records
        runner.quit()


def _open(env: Environment, opts: Options, rec: Recorder, stopped: list[str], deadline: float) -> None:
    """Poisson arrivals at ``arrival_rate``; at most ``users`` in flight, arrivals beyond that are counted as dropped."""
    import gevent  # start-up: gevent loads only when _open runs
    import gevent.pool  # start-up: gevent loads only when _open runs
    from locust.exception import StopUser  # start-up: Locust (and gevent) loads only when _open runs

    assert opts.arrival_rate
    cls = env.user_classes[0]
    pool = gevent.pool.Pool(opts.users)
    rec.begin_level(opts.users)
    end = min(time.monotonic() + opts.duration, deadline)

    def one() -> None:
        user: Any = cls(env)
        user.on_start()
        try:
            user.iteration()
        except StopUser:
            stopped.append("request-cap")

    try:
        while not stopped and time.monotonic() < end:
            gevent.sleep(random.expovariate(opts.arrival_rate))
            if pool.full():
                rec.record("arrival", 0.0, "dropped", flow=True)
                continue
            rec.record("arrival", 0.0, None, flow=True)
            pool.spawn(one)
        if time.monotonic() >= deadline and not stopped:
            stopped.append("time-limit")
        pool.join(timeout=max(0.0, min(opts.timeout, deadline - time.monotonic())))  # let started iterations finish
    finally:
        pool.kill(timeout=5)
