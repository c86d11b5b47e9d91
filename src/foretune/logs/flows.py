"""Registration flows: the requests of one host's registration joined, from production.log events.

A Katello registration (the Global Registration template, theforeman/foreman
``app/views/unattended/provisioning_templates/registration/global_registration.erb``) is, seen from
the server: ``GET /register`` (the script), ``POST /rhsm/consumers`` (``subscription-manager
register``: the consumer create), requests naming the new consumer's UUID (``GET
/rhsm/consumers/<uuid>``, ``.../compliance``, ...), ``POST /register`` (the host record, the UUID in
its body), and about half a minute later the fact update ``PUT /rhsm/consumers/<uuid>``.

Requests carry no host name, so steps are joined by client address and order, oldest first:

- a consumer create takes the oldest script fetched from its address that finished before it began;
- the first request naming a UUID not seen before is joined to the oldest create from the same
  address that finished before it began and has no UUID yet; the host record likewise takes the
  oldest create from its address still without one;
- every step must start within ``window`` seconds of the create; later requests of the UUID are
  check-ins of a registered host and do not extend the flow; UUIDs without a create are no flow.

A Capsule or load balancer in front of many hosts gives all of them its address: there the
pairing follows arrival order and is approximate. Times have one-second resolution (log stamps)
plus the exact ``Completed`` durations.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from foretune.logs.sketch import Sketch

SCRIPT, HOST, CREATE, CONSUMER_GET, FACTS, PROFILES, COMPLIANCE, OTHER = range(8)

# (t, line number, step kind, client address, consumer uuid or b"") of a Started line
Started = tuple[int, int, int, bytes, bytes]
# a Started line and its Completed line's duration (ms) and HTTP status
Event = tuple[Started, float, str]


def step_of(method: bytes, path: bytes) -> tuple[int, bytes]:
    """The step kind (or -1) and consumer UUID of a request.

    >>> step_of(b"POST", b"/rhsm/consumers?owner=ACME"), step_of(b"GET", b"/register")
    ((2, b''), (0, b''))
    >>> step_of(b"GET", b"/rhsm/consumers/0b5a3f2c-1d2e-4f60-8a7b-9c0d1e2f3a4b/compliance")
    (6, b'0b5a3f2c-1d2e-4f60-8a7b-9c0d1e2f3a4b')
    >>> step_of(b"GET", b"/rhsm/consumers"), step_of(b"GET", b"/registered")
    ((-1, b''), (-1, b''))
    """
    w = path.find(b"?")
    if w >= 0:
        path = path[:w]
    if path.startswith(b"/register"):
        if path.rstrip(b"/") != b"/register":
            return -1, b""
        return (SCRIPT, b"") if method == b"GET" else (HOST, b"") if method == b"POST" else (-1, b"")
    if not path.startswith(b"/rhsm/consumers"):
        return -1, b""
    rest = path[15:]
    if rest in (b"", b"/"):
        return (CREATE, b"") if method == b"POST" else (-1, b"")
    if rest[:1] != b"/":
        return -1, b""
    s = rest.find(b"/", 1)
    uuid = rest[1:s] if s > 0 else rest[1:]
    if len(uuid) != 36 or uuid[8:9] != b"-" or uuid[23:24] != b"-":
        return -1, b""
    sub = rest[s + 1:].rstrip(b"/") if s > 0 else b""
    if not sub:
        return (CONSUMER_GET if method == b"GET" else FACTS if method == b"PUT" else OTHER), uuid
    if sub == b"compliance" and method == b"GET":
        return COMPLIANCE, uuid
    if sub in (b"profiles", b"packages", b"profile") and method == b"PUT":
        return PROFILES, uuid
    return OTHER, uuid


def _start(e: Event) -> int:
    return e[0][0]


def _end(e: Event) -> int:
    """The second the request ended in (start stamp plus duration): the earliest a follow-up can start."""
    return e[0][0] + int(e[1] // 1000)


class Flow:
    __slots__ = ("create", "facts", "host", "script", "steps", "uuid")

    def __init__(self, create: Event) -> None:
        self.create = create
        self.script: Event | None = None
        self.host: Event | None = None
        self.facts: Event | None = None
        self.uuid = b""
        self.steps: list[Event] = []  # requests naming the UUID

    def add(self, e: Event) -> None:
        self.steps.append(e)
        if e[0][2] == FACTS and self.facts is None:
            self.facts = e

    def duration_ms(self) -> float:
        """From the start of the first step to the end of the last one."""
        first = self.script or self.create
        joined = [self.create, *self.steps] + [x for x in (self.script, self.host) if x is not None]
        return max(e[0][0] * 1000.0 + e[1] for e in joined) - first[0][0] * 1000.0


def _create_start(f: Flow) -> int:
    return f.create[0][0]


def _create_end(f: Flow) -> int:
    return _end(f.create)


def _take(queues: dict[bytes, list[Any]], ip: bytes, now: int, window: int, start: Any, ready: Any) -> Any:
    """The oldest item queued for ``ip`` that is ``ready`` at ``now``; items started over ``window`` s before leave.

    A queue left empty is dropped: most addresses register one host, and a queue kept for each would
    hold memory for every address in the log.
    """
    queue = queues.get(ip)
    if not queue:
        return None
    expired = 0
    while expired < len(queue) and start(queue[expired]) < now - window:
        expired += 1
    del queue[:expired]
    found = next((i for i, item in enumerate(queue) if ready(item) <= now), None)
    item = queue.pop(found) if found is not None else None
    if not queue:
        del queues[ip]
    return item


def join(events: list[Event], window: int) -> list[Flow]:
    """One flow per consumer create, its other steps joined (see the module docstring)."""
    scripts: dict[bytes, list[Event]] = {}
    need_uuid: dict[bytes, list[Flow]] = {}
    need_host: dict[bytes, list[Flow]] = {}
    by_uuid: dict[bytes, Flow] = {}
    seen: set[bytes] = set()
    out: list[Flow] = []
    flow: Flow | None
    for e in sorted(events, key=itemgetter(0)):  # by start second, then line number
        t, _, kind, ip, uuid = e[0]
        if kind == SCRIPT:
            scripts.setdefault(ip, []).append(e)
        elif kind == CREATE:
            new = Flow(e)
            new.script = _take(scripts, ip, t, window, _start, _end)
            out.append(new)
            need_host.setdefault(ip, []).append(new)
            if not failed(e):
                need_uuid.setdefault(ip, []).append(new)
        elif kind == HOST:
            flow = _take(need_host, ip, t, window, _create_start, _create_end)
            if flow is not None:
                flow.host = e
        else:
            flow = by_uuid.get(uuid)
            if flow is not None:
                if t - flow.create[0][0] <= window:
                    flow.add(e)
                continue
            if uuid in seen:
                continue
            seen.add(uuid)
            flow = _take(need_uuid, ip, t, window, _create_start, _create_end)
            if flow is not None:
                flow.uuid = uuid
                by_uuid[uuid] = flow
                flow.add(e)
    return out


def failed(e: Event) -> bool:
    """Whether the request was answered with an HTTP error (status 400 and above)."""
    return e[2] >= "400"


def summary(events: list[Event], window: int, dropped: int) -> dict[str, Any]:
    """Counts and latencies of the registration flows in ``events`` (the ``registration_flows`` report key)."""
    found = join(events, window)
    joined = [f for f in found if f.uuid]
    duration = Sketch()
    steps = {name: Sketch() for name in ("script", "create", "host", "facts")}
    calls = {"compliance": 0, "consumer_get": 0}
    for f in joined:
        duration.add(f.duration_ms())
        steps["create"].add(f.create[1])
        for name, e in (("script", f.script), ("host", f.host), ("facts", f.facts)):
            if e is not None:
                steps[name].add(e[1])
        for e in f.steps:
            if e[0][2] == COMPLIANCE:
                calls["compliance"] += 1
            elif e[0][2] == CONSUMER_GET:
                calls["consumer_get"] += 1
    failures = sum(1 for f in found if failed(f.create))
    return {"window_seconds": window, "creates": len(found), "flows": len(joined),
            "with_facts": sum(1 for f in joined if f.facts is not None), "failed_creates": failures,
            "creates_without_uuid": len(found) - len(joined) - failures,
            "duration": duration.summary(), "steps": {k: v.summary() for k, v in steps.items()},
            "calls_per_flow": {k: round(v / len(joined), 2) if joined else None for k, v in calls.items()},
            "dropped_events": dropped}
