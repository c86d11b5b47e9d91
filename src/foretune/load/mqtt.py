"""``rex-pull``: N MQTT clients subscribed as the pull-REX client (yggdrasil) is, a publisher fanning out job
notifications, and each client fetching its job over HTTP.

paho-mqtt's clients run on one selector (its external-loop callbacks), not a thread each, so thousands fit in
one process. Steps: ``mqtt_connect`` (to CONNACK; a connection the broker closes or refuses before CONNACK is
``refused``, which is how a broker at its descriptor limit answers), ``mqtt_subscribe`` (to SUBACK),
``notification`` (publish to receipt) and ``job_fetch``.
"""

from __future__ import annotations

import contextlib
import json
import resource
import selectors
import ssl
import time
import urllib.request
import uuid as uuidlib
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from foretune.load import plan
from foretune.load.options import Options
from foretune.load.results import Recorder, classify


class _Host:
    __slots__ = ("client", "connected", "done", "name", "started", "subscribed", "uuid")

    def __init__(self, name: str) -> None:
        self.name = name
        self.uuid = str(uuidlib.uuid4())
        self.client: Any = None
        self.started = 0.0
        self.connected = False
        self.subscribed = False
        self.done = False


class _Loop:
    """One selector for every client's socket, through paho's external-loop callbacks."""

    def __init__(self) -> None:
        self.selector = selectors.DefaultSelector()

    def attach(self, client: Any) -> None:
        client.on_socket_open = lambda c, _u, sock: self._register(c, sock)
        client.on_socket_close = lambda _c, _u, sock: self._unregister(sock)
        client.on_socket_register_write = lambda c, _u, sock: self._modify(c, sock, True)
        client.on_socket_unregister_write = lambda c, _u, sock: self._modify(c, sock, False)

    def _register(self, client: Any, sock: Any) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.register(sock, selectors.EVENT_READ, client)

    def _unregister(self, sock: Any) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(sock)

    def _modify(self, client: Any, sock: Any, write: bool) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.modify(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if write else 0), client)

    def pump(self, timeout: float) -> None:
        for key, mask in self.selector.select(timeout):
            if mask & selectors.EVENT_READ:
                key.data.loop_read()
            if mask & selectors.EVENT_WRITE:
                key.data.loop_write()

    def misc(self, clients: list[Any]) -> None:
        for client in clients:
            client.loop_misc()


def _raise_nofile(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard == resource.RLIM_INFINITY else min(hard, max(needed, soft)), hard))


def run(opts: Options, rec: Recorder) -> None:
    import signal  # start-up: only when run runs

    import paho.mqtt.client as mqtt  # start-up: paho-mqtt loads only when run runs

    assert opts.mqtt is not None
    _raise_nofile(opts.users * 2 + 64)
    loop = _Loop()
    stopped: list[str] = []

    def interrupted(_signum: int, _frame: object) -> None:
        rec.interrupted = True
        stopped.append("interrupt")

    saved = {sig: signal.signal(sig, interrupted) for sig in (signal.SIGINT, signal.SIGTERM)}
    if rec.interrupted:  # Ctrl-C before the handlers were in place
        stopped.append("interrupt")
    started = time.monotonic()
    deadline = started + opts.time_limit
    end = min(started + opts.duration, deadline)
    rec.begin_level(opts.users)
    hosts = [_Host(plan.host_name(opts.run, n)) for n in range(1, opts.users + 1)]
    fetches = ThreadPoolExecutor(max_workers=min(32, opts.users))
    left: dict[str, int] = {"notification": 0, "job_fetch": 0}  # in flight when the run was stopped: not failures
    try:
        for host in hosts:
            _connect(mqtt, loop, host, opts, rec)
            loop.pump(0)
        _until(loop, hosts, lambda: all(h.done for h in hosts), min(deadline, time.monotonic() + opts.timeout), stopped)
        for host in hosts:
            if not host.done:
                host.done = True
                rec.record("mqtt_connect", (time.monotonic() - host.started) * 1000, "timeout", message="no CONNACK")
        ready = [h for h in hosts if h.subscribed]
        publisher = _publisher(mqtt, loop, opts, rec, stopped, deadline)
        while publisher is not None and ready and not stopped and time.monotonic() < end and rec.requests < opts.max_requests:
            _round(loop, publisher, ready, opts, rec, fetches, stopped, min(end + opts.timeout, deadline), left)
        if time.monotonic() >= deadline and not stopped:
            stopped.append("time-limit")
        if rec.requests >= opts.max_requests and not stopped:
            stopped.append("request-cap")
    finally:
        fetches.shutdown(wait=True, cancel_futures=True)  # only fetches queued past their round's timeout are left
        for host in hosts:
            if host.client is not None:
                host.client.disconnect()
        loop.pump(0)
        for sig, previous in saved.items():
            signal.signal(sig, previous)
    if left["notification"] or left["job_fetch"]:
        rec.notes.append(f"stopped ({stopped[0] if stopped else 'duration'}) with {left['notification']} notifications "
                         f"not yet delivered and {left['job_fetch']} job fetches not yet done: left out, not counted as failures")
    rec.stopped_by = stopped[0] if stopped else "duration"
    rec.end()


def _until(loop: _Loop, hosts: list[_Host], done: Any, until: float, stopped: list[str]) -> None:
    last_misc = 0.0
    while not done() and not stopped and time.monotonic() < until:
        loop.pump(0.05)
        if time.monotonic() - last_misc > 1:
            loop.misc([h.client for h in hosts if h.client is not None])
            last_misc = time.monotonic()


def _connect(mqtt: Any, loop: _Loop, host: _Host, opts: Options, rec: Recorder) -> None:
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=host.uuid, protocol=mqtt.MQTTv311)
    loop.attach(client)

    def on_connect(_c: Any, _u: Any, _flags: Any, reason: Any, _props: Any) -> None:
        host.done = True
        ms = (time.monotonic() - host.started) * 1000
        if getattr(reason, "is_failure", False):
            rec.record("mqtt_connect", ms, "refused", message=f"CONNACK {reason}")
            return
        host.connected = True
        rec.record("mqtt_connect", ms, None)
        host.started = time.monotonic()
        subscribe = plan.rex_call("mqtt_subscribe")
        client.subscribe(subscribe.path.format(uuid=host.uuid), qos=subscribe.qos)

    def on_subscribe(_c: Any, _u: Any, _mid: Any, _codes: Any, _props: Any) -> None:
        host.subscribed = True
        rec.record("mqtt_subscribe", (time.monotonic() - host.started) * 1000, None)

    def on_disconnect(_c: Any, _u: Any, _flags: Any, reason: Any, _props: Any) -> None:
        if not host.done:
            host.done = True
            rec.record("mqtt_connect", (time.monotonic() - host.started) * 1000, "refused",
                       message=f"the broker closed the connection before CONNACK ({reason})")

    client.on_connect = on_connect
    client.on_subscribe = on_subscribe
    client.on_disconnect = on_disconnect
    host.client = client
    host.started = time.monotonic()
    try:
        client.connect(opts.mqtt[0], opts.mqtt[1], keepalive=60)  # type: ignore[index]
    except OSError as exc:
        host.done = True
        host.client = None
        rec.record("mqtt_connect", (time.monotonic() - host.started) * 1000, classify(0, exc) or "error", message=str(exc))


def _publisher(mqtt: Any, loop: _Loop, opts: Options, rec: Recorder, stopped: list[str], deadline: float) -> Any:
    """The smart proxy's side: one client publishing the notifications."""
    host = _Host(plan.host_name(opts.run, 0) + "-publisher")
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=host.name, protocol=mqtt.MQTTv311)
    loop.attach(client)
    client.on_connect = lambda *_a: setattr(host, "connected", True)
    try:
        client.connect(opts.mqtt[0], opts.mqtt[1], keepalive=60)  # type: ignore[index]
    except OSError as exc:
        rec.notes.append(f"the publisher could not connect: {exc}")
        return None
    _until(loop, [], lambda: host.connected, min(deadline, time.monotonic() + opts.timeout), stopped)
    if not host.connected:
        rec.notes.append("the publisher got no CONNACK")
        return None
    return client


def _round(loop: _Loop, publisher: Any, ready: list[_Host], opts: Options, rec: Recorder, fetches: ThreadPoolExecutor,
           stopped: list[str], until: float, left: dict[str, int]) -> None:
    """Notify every subscribed host once, wait for each receipt and then for each job fetch (a pull client fetches
    its job before it takes the next one), each within the per-request timeout; so every delivered notification
    has its job fetch. What is still in flight when the run is stopped (Ctrl-C, the time limit) is counted in
    ``left``, not as a failure."""
    waiting: dict[str, float] = {}
    jobs: list[Future[None]] = []
    notify = plan.rex_call("notification")
    for host in ready:
        job = str(uuidlib.uuid4())
        waiting[host.uuid] = time.monotonic()

        def on_message(_c: Any, _u: Any, message: Any, host: _Host = host) -> None:
            sent = waiting.pop(host.uuid, None)
            if sent is None:
                return
            rec.record("notification", (time.monotonic() - sent) * 1000, None, len(message.payload))
            job_id = json.loads(message.payload).get("job", "")
            jobs.append(fetches.submit(_fetch, opts, rec, job_id))

        host.client.on_message = on_message
        publisher.publish(notify.path.format(uuid=host.uuid), json.dumps({"job": job, "type": "data"}), qos=notify.qos)
    round_end = min(until, time.monotonic() + opts.timeout)
    _until(loop, [], lambda: not waiting, round_end, stopped)
    if stopped or time.monotonic() >= until:
        left["notification"] += len(waiting)
        waiting.clear()
    for uuid in list(waiting):
        rec.record("notification", (time.monotonic() - waiting.pop(uuid)) * 1000, "timeout", message="not delivered")
    pending = set(jobs)
    fetch_end = min(until, time.monotonic() + opts.timeout)
    while pending and not stopped and time.monotonic() < fetch_end:
        _done, pending = wait(pending, timeout=0.1)
    if stopped or time.monotonic() >= until:  # not started: left out; a running fetch is recorded when it ends
        left["job_fetch"] += sum(1 for job in pending if job.cancel())


def _fetch(opts: Options, rec: Recorder, job: str) -> None:
    started = time.monotonic()
    try:
        context = None
        if opts.target.startswith("https"):
            context = ssl.create_default_context(cafile=opts.ca)
            if opts.insecure:
                context.check_hostname = False
                context.verify_mode = ssl.CERT_NONE
            if opts.client_cert:
                context.load_cert_chain(opts.client_cert, opts.client_key)
        path = plan.rex_call("job_fetch").path.format(job=job)
        with urllib.request.urlopen(f"{opts.target}{path}", timeout=opts.timeout, context=context) as response:
            size = len(response.read())
        rec.record("job_fetch", (time.monotonic() - started) * 1000, None, size)
    except urllib.error.HTTPError as exc:
        rec.record("job_fetch", (time.monotonic() - started) * 1000, classify(exc.code, None), message=str(exc))
    except OSError as exc:
        rec.record("job_fetch", (time.monotonic() - started) * 1000, classify(0, getattr(exc, "reason", exc)) or "error", message=str(exc))
