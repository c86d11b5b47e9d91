"""The guide's measurements as model runs: calibration rows (fitted) and validation rows (never fitted).

Each row names a box and two or more configurations; the model's figure is the relative change the guide
reports (registration throughput, or average time per package for downloads). The lab rows (``LAB_CASES``)
predict the lab of ``foretune load`` from its own low-load demands; tests/model/test_lab_validation.py measures them.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

# Registration throughput is measured as in the vendor's concurrent-registration test: a burst of this many
# hosts registering at once, first-try successes per second.
CALIBRATION_HOSTS = 480
DOWNLOAD_HOSTS = 700
DOWNLOAD_PACKAGES = 10


class Case(NamedTuple):
    """One configuration: CPUs, Puma workers and threads (registrations) or a Capsule's CPUs (downloads)."""

    cpus: int
    workers: int = 0
    threads: int = 0
    ram_gib: int = 40


class Row(NamedTuple):
    id: str
    use: str  # calibration | validation
    source: str  # guide | lab
    what: str
    metric: str  # throughput (registrations) | package_time (downloads) | monotone
    base: Case
    cases: tuple[Case, ...]
    published: tuple[float, ...]  # percent change against base, as the guide prints it (nan: none published)
    citation: str


def _w(cpus: int, workers: int, threads: int = 16, ram: int = 40) -> Case:
    return Case(cpus, workers, threads, ram)


ROWS: tuple[Row, ...] = (
    Row("workers-4cpu", "calibration", "guide", "4 CPUs, 16 threads: 4, 6, 8 workers against 2", "throughput",
        _w(4, 2, ram=20), (_w(4, 4, ram=20), _w(4, 6, ram=20), _w(4, 8, ram=20)), (26, 22, -8),
        "model-gf-workers-4cpu"),
    Row("workers-8cpu", "calibration", "guide", "8 CPUs, 16 threads: 4, 8, 12, 16 workers against 2", "throughput",
        _w(8, 2, ram=32), (_w(8, 4, ram=32), _w(8, 8, ram=32), _w(8, 12, ram=32), _w(8, 16, ram=32)),
        (51, 52, 52, 42), "model-gf-workers-8cpu"),
    Row("threads-4w", "calibration", "guide", "4 workers (4 CPUs assumed): 8, 16, 32 threads against 4", "throughput",
        _w(4, 4, 4, 20), (_w(4, 4, 8, 20), _w(4, 4, 16, 20), _w(4, 4, 32, 20)), (14, 23, 10), "model-gf-threads"),
    Row("4x8-vs-2x16", "validation", "guide", "8 CPUs: 4 workers x 8 threads against 2 x 16", "throughput",
        _w(8, 2, 16), (_w(8, 4, 8),), (11,), "model-gf-4x8-2x16"),
    Row("capsule-downloads", "validation", "guide", "Capsule, 700 hosts downloading: 8 and 16 CPUs against 4, "
        "16 against 8", "package_time", Case(4, ram_gib=12), (Case(8, ram_gib=24), Case(16, ram_gib=46)),
        (50, 70), "model-gf-capsule-downloads"),
    Row("capsule-downloads-8-16", "validation", "guide", "Capsule, 700 hosts downloading: 16 CPUs against 8",
        "package_time", Case(8, ram_gib=24), (Case(16, ram_gib=46),), (40,), "model-gf-capsule-downloads"),
    Row("workers-16cpu", "validation", "guide", "16 CPUs, 16 threads: 4, 8, 16 workers against 2 (each step must "
        "add performance; figures withheld)", "monotone", _w(16, 2),
        (_w(16, 4), _w(16, 8), _w(16, 16)), (float("nan"),) * 3, "model-gf-16cpu"),
)

TOLERANCE_PP = 10.0  # validation: within this many percentage points of the published figure


class Outcome(NamedTuple):
    row: Row
    predicted: tuple[float, ...]
    errors_pp: tuple[float, ...]  # predicted - published (nan where nothing is published)
    ok: bool


def _network(case: Case, role: str = "server") -> Any:
    from foretune.model import network  # start-up: only when _network runs
    from foretune.plan import PlanInput, make_plan  # start-up: only when _network runs

    plan = make_plan(PlanInput(product="foreman", version="3.12", hosts=5000, cpus=case.cpus,
                               ram_bytes=case.ram_gib * 2**30, role=role))
    net = network.from_plan(plan)
    sets: dict[str, float] = {"apache.max_request_workers": 1024}
    if case.workers:
        sets.update({"puma.workers": case.workers, "foreman.puma_threads": case.threads})
    return network.apply_sets(net, sets)


def measure(row: Row, case: Case, demands: Any, seed: int) -> float:
    """The row's metric for one configuration: registrations/s, or mean seconds per package."""
    from foretune.model import engine  # start-up: only when measure runs
    from foretune.model.workload import Workload  # start-up: only when measure runs

    if row.metric == "package_time":
        result = engine.simulate(_network(case, "capsule"), demands,
                                 Workload("downloads", DOWNLOAD_HOSTS, packages=DOWNLOAD_PACKAGES), seed)
        return result.mean_s
    result = engine.simulate(_network(case), demands, Workload("registrations", CALIBRATION_HOSTS), seed)
    return result.throughput_per_s


def change_pct(row: Row, base: float, value: float) -> float:
    """The change the guide prints: throughput gain, or the drop in time per package."""
    if row.metric == "package_time":
        return 100.0 * (1.0 - value / base) if base else 0.0
    return 100.0 * (value / base - 1.0) if base else 0.0


def evaluate(row: Row, demands: Any = None, seed: int = 1) -> Outcome:
    from foretune.model import demands as demands_mod  # start-up: only when evaluate runs

    dem = demands or demands_mod.build()
    base = measure(row, row.base, dem, seed)
    values = [measure(row, case, dem, seed) for case in row.cases]
    predicted = tuple(change_pct(row, base, v) for v in values)
    if row.metric == "monotone":
        chain = [base, *values]
        ok = all(b > a for a, b in zip(chain, chain[1:]))
        return Outcome(row, predicted, tuple(float("nan") for _ in predicted), ok)
    errors = tuple(p - m for p, m in zip(predicted, row.published))
    return Outcome(row, predicted, errors, all(abs(e) <= TOLERANCE_PP for e in errors))


def _case(case: Case, metric: str) -> str:
    if metric == "package_time":
        return f"{case.cpus} CPUs"
    return f"{case.workers} x {case.threads} on {case.cpus} CPUs"


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:+.0f} %"


def table(outcomes: list[Outcome]) -> str:
    """The Markdown table of docs/model.md: one line per configuration against its row's base."""
    lines = ["| use | source | configuration (against) | prediction | measurement | error | within |",
             "|---|---|---|---|---|---|---|"]
    for out in outcomes:
        row = out.row
        previous = 0.0
        for case, pred, pub, err in zip(row.cases, out.predicted, row.published, out.errors_pp):
            if row.metric == "monotone":
                up = pred > previous
                previous = pred
                verdict = "yes" if up else "no"
                measured = "more workers, more performance"
                error = "up from the step before" if up else "down from the step before"
            else:
                within = abs(err) <= TOLERANCE_PP
                verdict = ("yes" if within else "no") if row.use == "validation" else "(fitted)"
                measured = _pct(pub)
                error = f"{err:+.0f} pp"
            lines.append(f"| {row.use} | {row.source} ({row.citation}) | {_case(case, row.metric)} "
                         f"({_case(row.base, row.metric)}) | {_pct(pred)} | {measured} | {error} | {verdict} |")
    return "\n".join(lines) + "\n"


# --- the lab of `foretune load` (tests/support/lab) ------------------------------------------------------------
# The lab's Rack app calls its Candlepin-like backend on these registration steps (tests/support/lab/app/foreman_app.rb)
LAB_BACKEND_STEPS = ("status", "consumer_create", "serials", "certificates", "accessible_content", "compliance")
LAB_TOLERANCE = 0.15  # lab rows: predicted throughput within this share of the measured one


class LabCase(NamedTuple):
    """A lab configuration (the keyword arguments of tests.support.lab.Lab) and the closed levels it is loaded at."""

    name: str
    lab: dict[str, Any]
    levels: tuple[int, ...]  # users per closed level


LAB_CASES: tuple[LabCase, ...] = (
    LabCase("1 x 4, pool 4", {"puma_workers": 1, "puma_threads": 4, "pool": 4, "backend_ms": 10,
                              "consumer_create_ms": 50}, (3, 6, 9)),
    LabCase("1 x 8, pool 8", {"puma_workers": 1, "puma_threads": 8, "pool": 8, "backend_ms": 10,
                              "consumer_create_ms": 50}, (4, 8, 12)),
    LabCase("2 x 2, pool 2", {"puma_workers": 2, "puma_threads": 2, "pool": 2, "backend_ms": 10,
                              "consumer_create_ms": 50}, (3, 6, 9)),
)
# Puma's hand-off, measured apart from every level: one worker with one thread and one user. The time per request
# less the request's own time is what the one thread idles between requests: the client's turnaround and, when the
# next request comes on another connection, the fast track's wait for the old one (up to 0.2 s)
LAB_HANDOFF = LabCase("1 x 1, pool 1", {"puma_workers": 1, "puma_threads": 1, "pool": 1, "backend_ms": 10,
                                        "consumer_create_ms": 50}, (1,))


def lab_network(lab: dict[str, Any], cpus: int = 2, other_cores: float = 0.0, handoff_s: float = 0.0) -> Any:
    """The lab's serving path as the model's network: its knobs, on ``cpus`` cores shared with ``other_cores`` of the
    box's other work; ``handoff_s``: how long a Puma thread stays busy after each request (Puma's fast track)."""
    from foretune.model.network import Network  # start-up: only when lab_network runs

    threads = int(lab.get("puma_threads", 5))
    slots = int(lab.get("max_request_workers") or lab.get("server_limit", 4) * lab.get("threads_per_child", 16))
    return Network(cpus=cpus, ram_gib=4, apache_slots=slots, apache_backlog=int(lab.get("listen_backlog", 511)),
                   puma_workers=max(int(lab.get("puma_workers", 2)), 1), puma_threads=threads, puma_backlog=4096,
                   db_pool=int(lab.get("pool", threads)), pg_max_connections=int(lab.get("max_connections", 100)),
                   pg_other_connections=0, candlepin_threads=int(lab.get("backend_threads", 16)), candlepin_accept=100,
                   sidekiq_hosts_queue=5, content_workers=1, mosquitto_nofile=int(lab.get("mosquitto_nofile", 1024)),
                   client_timeout_s=180.0, proxy_timeout_s=900.0, network_mbps=10000.0, generation="lab",
                   cpu_background=other_cores, puma_handoff_s=handoff_s)


def lab_demands(calls: list[tuple[str, int]], p50_ms: dict[str, float], puma_cpu_s: float, other_cpu_s: float,
                client_cpu_s: float = 0.0, gap_s: float = 0.0) -> Any:
    """A registration of the lab's flow: ``calls``, the (step, count) ``foretune load`` makes, each with the
    latency measured at low load; ``puma_cpu_s`` (Puma's Ruby, on its worker's GVL) and ``other_cpu_s`` (Apache,
    PostgreSQL, the backend) are the CPU seconds one registration costs, shared out over the steps in proportion to
    their time. The rest of each step is waiting (the backend's service time, the network). ``client_cpu_s``: the
    CPU one request costs the load generator, which runs on the same cores; ``gap_s``: the generator's turnaround
    between a response and its next request (its CPU included), the rest of which is the client's think time."""
    from foretune.model import demands  # start-up: only when lab_demands runs

    missing = [step for step, _ in calls if step not in p50_ms]
    if missing:
        raise ValueError(f"the low-load run has no {', '.join(missing)} step")
    totals = {step: p50_ms[step] / 1000.0 * count for step, count in calls}
    whole = sum(totals.values()) or 1.0
    steps = []
    for step, count in calls:
        total = totals[step]
        ruby, backend = puma_cpu_s * total / whole, other_cpu_s * total / whole
        steps.append(demands.Step(step, count, count, ruby / count, backend / count,
                                  max(total - ruby - backend, 0.0) / count, step in LAB_BACKEND_STEPS))
    think_s = max(gap_s - client_cpu_s, 0.0) * sum(count for _, count in calls)
    return demands.build()._replace(steps=tuple(steps), think_s=think_s, client_cpu_s=client_cpu_s,
                                    source="the lab's low-load runs")


def lab_predict(case: LabCase, calls: list[tuple[str, int]], p50_ms: dict[str, float], puma_cpu_s: float,
                other_cpu_s: float, users: int, other_cores: float = 0.0, client_cpu_s: float = 0.0,
                gap_s: float = 0.0, handoff_s: float = 0.0, seconds: float = 60.0, seed: int = 1) -> float:
    """Registrations per second the model predicts for ``users`` closed users on the lab configuration, with
    ``other_cores`` of the box taken by other work. ``gap_s``: the client's turnaround between a response and its
    next request; ``handoff_s``: how long a Puma thread stays busy after each request (Puma's fast track)."""
    from foretune.model import engine  # start-up: only when lab_predict runs
    from foretune.model.workload import Workload  # start-up: only when lab_predict runs

    result = engine.simulate(lab_network(case.lab, other_cores=other_cores, handoff_s=handoff_s),
                             lab_demands(calls, p50_ms, puma_cpu_s, other_cpu_s, client_cpu_s, gap_s),
                             Workload("registrations", users, closed_s=seconds), seed)
    return float(result.succeeded) / result.window_s if result.window_s else 0.0
