"""The discrete-event simulation (SimPy): hosts send requests through Apache, Puma, the pools and the CPUs.

Each request holds an Apache slot for its whole life. Puma 6's accept rule: a worker accepts only while one
of its threads is free, so the rest wait in the socket backlog (``puma_backlog``, beyond it Apache answers
503); a thread is free again ``puma_handoff_s`` after its request (0 unless measured, as in the lab). A thread holds a connection of its worker's pool (checkout timeout 5 s) and, for Candlepin calls, a
Tomcat thread: beyond ``maxThreads`` the connection is accepted and its request waits for a thread, up to
``maxConnections`` open connections; beyond those, ``acceptCount`` wait in the OS backlog, then are refused.
Ruby code holds the worker's GVL and a share of the CPUs (:class:`foretune.model.cpu.SharedCpu`); Candlepin
and PostgreSQL work only the CPUs.
A client gives up after ``client_timeout_s``; the server finishes the abandoned request all the same.
A load generator on the server's own cores (the lab's ``foretune load``, ``Demands.client_cpu_s``) takes its CPU
per request through its one process before sending it.
Everything random comes from one seeded generator, so a seed gives the same result every time.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any, NamedTuple

from foretune.model.cpu import SharedCpu
from foretune.model.demands import Demands, Step
from foretune.model.network import Network
from foretune.model.workload import Workload

CHECKOUT_TIMEOUT_S = 5.0  # ActiveRecord's checkout_timeout default


class Pool:
    """A counted resource with a FIFO of waiters and a time integral of its use (for utilisation)."""

    def __init__(self, env: Any, capacity: int) -> None:
        self.env = env
        self.capacity = max(int(capacity), 1)
        self.in_use = 0
        self.waiters: deque[Any] = deque()
        self.area = 0.0
        self._last = 0.0
        self.peak_waiting = 0

    def _tick(self) -> None:
        now = self.env.now
        self.area += (now - self._last) * self.in_use
        self._last = now

    def acquire(self) -> Any:
        """None when granted at once (nothing to wait for), else an event that fires on the grant."""
        if self.in_use < self.capacity:
            self._tick()
            self.in_use += 1
            return None
        event = self.env.event()
        self.waiters.append(event)
        self.peak_waiting = max(self.peak_waiting, len(self.waiters))
        return event

    def cancel(self, event: Any) -> None:
        if event in self.waiters:
            self.waiters.remove(event)

    def release(self) -> None:
        if self.waiters:
            self.waiters.popleft().succeed()
        else:
            self._tick()
            self.in_use -= 1

    def utilisation(self, elapsed: float) -> float:
        self._tick()
        return self.area / (elapsed * self.capacity) if elapsed > 0 else 0.0


class Puma:
    """Workers x threads behind one socket; a worker takes a request only with a free thread (Puma 6).

    ``handoff_s``: a thread is free again only this long after its request ends (Puma's keep-alive fast track:
    after answering, a thread waits for the next request on the same connection, up to 0.2 s, and counts as busy
    meanwhile, so no other request is accepted on it); 0 frees it at once.
    """

    def __init__(self, env: Any, workers: int, threads: int, backlog: int, handoff_s: float = 0.0) -> None:
        self.env = env
        self.handoff_s = handoff_s
        self.free = [threads] * workers
        self.threads = threads
        self.backlog: deque[Any] = deque()
        self.limit = backlog
        self.busy = 0
        self.area = 0.0
        self._last = 0.0
        self.peak_backlog = 0

    def _tick(self) -> None:
        now = self.env.now
        self.area += (now - self._last) * self.busy
        self._last = now

    def accept(self) -> Any:
        """The worker index when one has a free thread, an event giving it later, or None when the backlog is full."""
        best = max(range(len(self.free)), key=self.free.__getitem__)
        if self.free[best] > 0:
            self._tick()
            self.free[best] -= 1
            self.busy += 1
            return best
        if len(self.backlog) >= self.limit:
            return None
        event = self.env.event()
        self.backlog.append(event)
        self.peak_backlog = max(self.peak_backlog, len(self.backlog))
        return event

    def release(self, worker: int) -> None:
        if self.handoff_s > 0:
            self.env.process(self._hand_over(worker))
        elif self.backlog:
            self.backlog.popleft().succeed(worker)
        else:
            self._tick()
            self.free[worker] += 1
            self.busy -= 1

    def _hand_over(self, worker: int) -> Any:
        """The thread idles ``handoff_s``, then takes the oldest waiting request, or is free if none waits."""
        yield self.env.timeout(self.handoff_s)
        if self.backlog:
            self.backlog.popleft().succeed(worker)
        else:
            self._tick()
            self.free[worker] += 1
            self.busy -= 1

    def utilisation(self, elapsed: float) -> float:
        self._tick()
        return self.area / (elapsed * self.threads * len(self.free)) if elapsed > 0 else 0.0


class ClassStats(NamedTuple):
    name: str
    calls: int
    ok: int
    failures: dict[str, int]
    p50_s: float
    p95_s: float
    p99_s: float
    mean_s: float
    throughput_per_s: float


class Result(NamedTuple):
    workload: Workload
    hosts: int
    succeeded: int
    success_ratio: float
    throughput_per_s: float  # first-try successes per second (registrations, downloads: packages/s, api: calls/s)
    p50_s: float  # per host (registration end to end) or per request
    p95_s: float
    p99_s: float
    mean_s: float
    window_s: float
    classes: tuple[ClassStats, ...]
    utilisation: dict[str, float]
    bottleneck: str
    failures: dict[str, int]
    notes: tuple[str, ...]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest-rank method; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 1))))
    return ordered[rank - 1]


class _Sim:
    def __init__(self, net: Network, dem: Demands, seed: int) -> None:
        import simpy  # start-up: SimPy loads only when __init__ runs

        self.env = simpy.Environment()
        self.net, self.dem = net, dem
        self.rng = random.Random(seed)
        cal = dem.calibration
        self.cpu = SharedCpu(self.env, net.cpus, cal.cpu_penalty, net.cpu_background)
        self.link = SharedCpu(self.env, 1, 0.0)
        self.apache = Pool(self.env, net.apache_slots)
        self.puma = Puma(self.env, net.puma_workers, net.puma_threads, net.puma_backlog, net.puma_handoff_s)
        self.gvl = [Pool(self.env, 1) for _ in range(net.puma_workers)]
        self.pools = [Pool(self.env, net.db_pool) for _ in range(net.puma_workers)]
        room = net.pg_max_connections - net.pg_other_connections
        self.pg_cap = max(1, room // max(net.puma_workers, 1))
        self.candlepin = Pool(self.env, net.candlepin_threads)
        self.hosts_queue = Pool(self.env, net.sidekiq_hosts_queue)
        self.serial = Pool(self.env, 1)
        self.sidekiq_gvl = Pool(self.env, 1)
        self.generator = Pool(self.env, 1)  # a load generator on the same cores: one process, one core at most
        self.content = [Pool(self.env, 1) for _ in range(max(net.content_workers, 1))]
        self.next_content = 0
        self.latencies: dict[str, list[float]] = {}
        self.counts: dict[str, int] = {}
        self.failures: dict[str, dict[str, int]] = {}
        self.ends: list[float] = []

    def exp(self, mean: float) -> float:
        return self.rng.expovariate(1.0 / mean) if mean > 0 else 0.0

    # --- pieces of one request -------------------------------------------------------------------------
    def ruby(self, gvl: Pool, demand: float) -> Any:
        grant = gvl.acquire()
        if grant is not None:
            yield grant
        stretch = 1.0 + self.dem.calibration.gvl_penalty * len(gvl.waiters)
        yield self.cpu.run(demand * stretch)
        gvl.release()

    def puma_request(self, ruby_s: float, backend_s: float, wait_s: float, candlepin: bool,
                     task_s: float = 0.0, serial_s: float = 0.0) -> Any:
        """The server side of one request; returns "ok" or a failure kind."""
        env, net = self.env, self.net
        if self.apache.in_use >= self.apache.capacity and len(self.apache.waiters) >= net.apache_backlog:
            return "refused"
        slot = self.apache.acquire()
        if slot is not None:
            yield slot
        accepted = self.puma.accept()
        if accepted is None:
            self.apache.release()
            return "503"
        entered = env.now
        worker = accepted if isinstance(accepted, int) else (yield accepted)
        pool = self.pools[worker]
        outcome = "ok"
        if pool.in_use >= self.pg_cap and pool.in_use < pool.capacity:
            outcome = "too-many-clients"
        else:
            checkout = pool.acquire()
            if checkout is not None:
                got = yield checkout | env.timeout(CHECKOUT_TIMEOUT_S)
                if checkout not in got:
                    pool.cancel(checkout)
                    outcome = "pool-timeout"
        if outcome == "ok":
            yield from self.ruby(self.gvl[worker], ruby_s / 2)
            open_limit = max(net.candlepin_max_connections, self.candlepin.capacity) + net.candlepin_accept
            if candlepin and self.candlepin.in_use + len(self.candlepin.waiters) >= open_limit:
                outcome = "candlepin-refused"
            else:
                if candlepin:
                    thread = self.candlepin.acquire()
                    if thread is not None:
                        yield thread
                yield self.cpu.run(backend_s)
                if wait_s > 0:
                    yield env.timeout(wait_s)
                if serial_s > 0:
                    turn = self.serial.acquire()
                    if turn is not None:
                        yield turn
                    yield env.timeout(serial_s)
                    self.serial.release()
                if candlepin:
                    self.candlepin.release()
                yield from self.ruby(self.gvl[worker], ruby_s / 2)
            pool.release()
        self.puma.release(worker)
        self.apache.release()
        if outcome == "ok" and env.now - entered > net.proxy_timeout_s:
            outcome = "proxy-timeout"
        if outcome == "ok" and task_s > 0:
            env.process(self.task(task_s))
        return outcome

    def task(self, ruby_s: float) -> Any:
        grant = self.hosts_queue.acquire()
        if grant is not None:
            yield grant
        yield from self.ruby(self.sidekiq_gvl, ruby_s)
        self.hosts_queue.release()

    def call(self, name: str, server: Any) -> Any:
        """Client side of one request; returns the outcome.

        A client that waits longer than the timeout has failed; since it then stops, judging it when the
        server finishes gives the same outcome as giving up at the deadline (the server works on either way).
        """
        start = self.env.now
        outcome = yield from server
        if outcome == "ok" and self.env.now - start > self.net.client_timeout_s:
            outcome = "client-timeout"
        self.counts[name] = self.counts.get(name, 0) + 1
        if outcome == "ok":
            self.latencies.setdefault(name, []).append(self.env.now - start)
        else:
            kinds = self.failures.setdefault(name, {})
            kinds[outcome] = kinds.get(outcome, 0) + 1
        return outcome

    # --- hosts -----------------------------------------------------------------------------------------
    def registration(self, host_latencies: list[float]) -> Any:
        start = self.env.now
        steps: list[Step] = list(self.dem.steps)
        think = self.dem.think_s / sum(s.lump for s in steps)
        for step in steps:
            for _ in range(step.lump):
                yield self.env.timeout(self.exp(think))
                if self.dem.client_cpu_s > 0:
                    yield from self.client_cpu()
                server = self.puma_request(self.exp(step.ruby_s), self.exp(step.backend_cpu_s), self.exp(step.wait_s),
                                           step.candlepin, self.exp(step.task_ruby_s), self.exp(step.serial_s))
                outcome = yield from self.call(step.name, server)
                if outcome != "ok":
                    return
        host_latencies.append(self.env.now - start)
        self.ends.append(self.env.now)

    def client_cpu(self) -> Any:
        """The load generator's work for one request: its one process's turn, then that CPU on the shared cores."""
        turn = self.generator.acquire()
        if turn is not None:
            yield turn
        yield self.cpu.run(self.exp(self.dem.client_cpu_s), counted=False)
        self.generator.release()

    def closed_host(self, host_latencies: list[float], until: float, started: list[int]) -> Any:
        """A host that registers again as soon as its registration ends (``foretune load``'s closed levels)."""
        while self.env.now < until:
            started[0] += 1
            yield from self.registration(host_latencies)

    def content_request(self) -> Any:
        if self.apache.in_use >= self.apache.capacity and len(self.apache.waiters) >= self.net.apache_backlog:
            return "refused"
        slot = self.apache.acquire()
        if slot is not None:
            yield slot
        loop = self.content[self.next_content % len(self.content)]
        self.next_content += 1
        # pulpcore-content is one asyncio event loop a process: a request waits for the loop, then runs on a
        # core: no GVL thread switching, and outside the penalty calibrated on the Foreman serving path
        turn = loop.acquire()
        if turn is not None:
            yield turn
        yield self.cpu.run(self.exp(self.dem.content_cpu_s), counted=False)
        loop.release()
        yield self.env.timeout(self.exp(self.dem.content_wait_s))
        bits = self.dem.package_kib * 1024 * 8
        yield self.link.run(bits / (self.net.network_mbps * 1e6))
        self.apache.release()
        return "ok"

    def downloader(self, packages: int, streams: int) -> Any:
        def stream(count: int) -> Any:
            for _ in range(count):
                outcome = yield from self.call("package", self.content_request())
                if outcome != "ok":
                    return False
            return True

        shares = [packages // streams + (1 if i < packages % streams else 0) for i in range(streams)]
        runs = [self.env.process(stream(n)) for n in shares if n]
        yield self.env.all_of(runs)
        if all(r.value for r in runs):
            self.ends.append(self.env.now)

    def api_call(self) -> Any:
        server = self.puma_request(self.exp(self.dem.api_ruby_s), self.exp(self.dem.api_backend_s), 0.0, False)
        outcome = yield from self.call("api", server)
        if outcome == "ok":
            self.ends.append(self.env.now)

    def api_arrivals(self, rate: float, duration: float) -> Any:
        calls = []
        while True:
            yield self.env.timeout(self.rng.expovariate(rate))
            if self.env.now >= duration:
                break
            calls.append(self.env.process(self.api_call()))
        yield self.env.all_of(calls)

    def arrivals(self, rate_per_s: float, duration: float, host_latencies: list[float], started: list[int]) -> Any:
        hosts = []
        while True:
            yield self.env.timeout(self.rng.expovariate(rate_per_s))
            if self.env.now >= duration:
                break
            started[0] += 1
            hosts.append(self.env.process(self.registration(host_latencies)))
        yield self.env.all_of(hosts)


def simulate(net: Network, dem: Demands, wl: Workload, seed: int = 1) -> Result:
    """Run ``wl`` on ``net`` with ``dem``; the same seed gives the same result."""
    sim = _Sim(net, dem, seed)
    env = sim.env
    host_latencies: list[float] = []
    notes: list[str] = []
    hosts = wl.concurrency
    started = [0]
    clients: list[Any] = []  # the run ends when every client is done (asynchronous server work left is cut)
    if wl.api_rate_per_s and wl.kind != "api":
        env.process(sim.api_arrivals(wl.api_rate_per_s, wl.duration_s))
    if wl.kind == "registrations" and wl.rate_per_min:
        clients.append(env.process(sim.arrivals(wl.rate_per_min / 60.0, wl.duration_s, host_latencies, started)))
    elif wl.kind == "registrations" and wl.closed_s:
        clients += [env.process(sim.closed_host(host_latencies, wl.closed_s, started)) for _ in range(hosts)]
    elif wl.kind == "registrations":
        clients += [env.process(sim.registration(host_latencies)) for _ in range(hosts)]
    elif wl.kind == "downloads":
        from foretune import knowledge  # start-up: only when simulate runs

        streams = int(knowledge.load_data("model.yaml")["content"]["parallel_downloads"]["value"])
        clients += [env.process(sim.downloader(wl.packages, streams)) for _ in range(hosts)]
    elif wl.kind == "api":
        clients.append(env.process(sim.api_arrivals(wl.api_rate_per_s, wl.duration_s)))
    elif wl.kind == "rex":
        reserve = 10
        connected = min(hosts, max(net.mosquitto_nofile - reserve, 0))
        if connected < hosts:
            notes.append(f"mosquitto's LimitNOFILE {net.mosquitto_nofile} admits about {connected} MQTT clients: "
                         f"{hosts - connected} hosts are refused and never get the job")
        clients += [env.process(sim.api_call()) for _ in range(connected)]
    env.run(until=env.all_of(clients))
    elapsed = env.now
    if wl.kind == "registrations" and (wl.rate_per_min or wl.closed_s):
        hosts = started[0]
    elif wl.kind == "api":
        hosts = sum(sim.counts.values())
    return _result(sim, wl, hosts, host_latencies, elapsed, notes)


def _result(sim: _Sim, wl: Workload, hosts: int, host_latencies: list[float], elapsed: float,
            notes: list[str]) -> Result:
    net = sim.net
    classes = []
    all_failures: dict[str, int] = {}
    for name in sorted(sim.counts):
        lat = sim.latencies.get(name, [])
        fails = sim.failures.get(name, {})
        for kind, n in fails.items():
            all_failures[kind] = all_failures.get(kind, 0) + n
        classes.append(ClassStats(name, sim.counts[name], len(lat), dict(sorted(fails.items())),
                                  percentile(lat, 0.5), percentile(lat, 0.95), percentile(lat, 0.99),
                                  sum(lat) / len(lat) if lat else 0.0, len(lat) / elapsed if elapsed else 0.0))
    if wl.kind == "downloads":
        per = sim.latencies.get("package", [])
        measured, ok_units = per, len(per)
        total = hosts
        succeeded = len(sim.ends)
    elif wl.kind in ("api", "rex"):
        measured = sim.latencies.get("api", [])
        ok_units = len(measured)
        total = hosts
        succeeded = ok_units
    else:
        measured, ok_units = host_latencies, len(host_latencies)
        total = hosts
        succeeded = ok_units
    burst = wl.kind == "registrations" and not wl.rate_per_min and not wl.closed_s
    window = max(sim.ends) if burst and sim.ends else elapsed
    util = {
        "cpu": sim.cpu.utilisation(elapsed),
        "puma_gvl": sum(g.utilisation(elapsed) for g in sim.gvl) / len(sim.gvl),
        "puma_threads": sim.puma.utilisation(elapsed),
        "apache_slots": sim.apache.utilisation(elapsed),
        "db_pool": sum(p.utilisation(elapsed) for p in sim.pools) / len(sim.pools),
        "candlepin_threads": sim.candlepin.utilisation(elapsed),
        "hosts_queue": sim.hosts_queue.utilisation(elapsed),
        "serialised_section": sim.serial.utilisation(elapsed),
        "content_workers": sum(c.utilisation(elapsed) for c in sim.content) / len(sim.content),
        "network": sim.link.utilisation(elapsed),
    }
    util = {k: round(v, 4) for k, v in util.items()}
    # the bottleneck is a resource on the clients' path (the hosts queue's Dynflow work runs after the answer)
    path = (("cpu", "content_workers", "apache_slots", "network") if wl.kind == "downloads" else
            ("cpu", "puma_gvl", "puma_threads", "apache_slots", "db_pool", "candlepin_threads", "serialised_section"))
    bottleneck = max(path, key=util.__getitem__)
    if sim.puma.peak_backlog:
        notes.append(f"Puma's socket backlog reached {sim.puma.peak_backlog} requests (limit {net.puma_backlog})")
    if sim.apache.peak_waiting:
        notes.append(f"Apache's listen backlog reached {sim.apache.peak_waiting} connections "
                     f"(limit {net.apache_backlog})")
    if sim.pg_cap < net.db_pool:
        notes.append(f"PostgreSQL max_connections {net.pg_max_connections} leaves {sim.pg_cap} connections per "
                     f"Puma worker, below the pool of {net.db_pool}")
    thr = (ok_units if wl.kind in ("downloads", "api", "rex") else succeeded) / window if window else 0.0
    return Result(wl, total, succeeded, succeeded / total if total else 1.0, thr,
                  percentile(measured, 0.5), percentile(measured, 0.95), percentile(measured, 0.99),
                  sum(measured) / len(measured) if measured else 0.0, window, tuple(classes), util, bottleneck,
                  dict(sorted(all_failures.items())), tuple(notes))
