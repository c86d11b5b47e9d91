"""The simulation's mechanisms, each shown by a run that would fail without it; seeded runs repeat exactly."""

from __future__ import annotations

from typing import Any

import simpy

from foretune.model import demands, engine, network
from foretune.model.workload import Workload
from foretune.plan import PlanInput, make_plan


def box(cpus: int = 8, **sets: float) -> network.Network:
    plan = make_plan(PlanInput(product="foreman", version="3.12", hosts=5000, cpus=cpus, ram_bytes=32 * 2**30))
    return network.apply_sets(network.from_plan(plan), {k.replace("__", "."): v for k, v in sets.items()})


def test_the_same_seed_gives_the_same_answer_and_another_seed_another() -> None:
    net, dem, wl = box(), demands.build(), Workload("registrations", 200)
    first, again, other = (engine.simulate(net, dem, wl, seed) for seed in (7, 7, 8))
    assert first == again
    assert first.throughput_per_s != other.throughput_per_s


def test_a_few_hosts_register_at_idle_speed() -> None:
    dem = demands.build()
    result = engine.simulate(box(), dem, Workload("registrations", 5), 1)
    assert result.success_ratio == 1.0 and result.failures == {}
    # hand reckoning: 7.0 s of idle server time (the trace's steps) plus 14 s of client time per registration
    assert 10 < result.mean_s < 40


def test_puma_6_leaves_requests_in_the_socket_backlog_when_threads_are_busy() -> None:
    result = engine.simulate(box(puma__workers=1, foreman__puma_threads=2), demands.build(),
                             Workload("registrations", 50), 1)
    assert any("socket backlog reached" in note for note in result.notes)
    assert result.utilisation["puma_threads"] > 0.9


def test_a_full_socket_backlog_is_503() -> None:
    result = engine.simulate(box(puma__workers=1, foreman__puma_threads=1, sysctl__somaxconn=2), demands.build(),
                             Workload("registrations", 50), 1)
    assert result.failures.get("503", 0) > 0


def test_clients_give_up_after_their_timeout() -> None:
    result = engine.simulate(box(cpus=2, puma__workers=1, foreman__puma_threads=4), demands.build(),
                             Workload("registrations", 1500), 1)
    assert result.failures.get("client-timeout", 0) > 0
    assert result.success_ratio < 0.99


def test_a_short_client_timeout_fails_more_hosts() -> None:
    dem, wl = demands.build(), Workload("registrations", 400)
    patient = engine.simulate(box(), dem, wl, 1)
    hasty = engine.simulate(box(client_timeout=20), dem, wl, 1)
    assert hasty.success_ratio < patient.success_ratio


def test_a_pool_below_threads_times_out_checkouts() -> None:
    result = engine.simulate(box(puma__workers=1, foreman__puma_threads=16, foreman__db_pool=1), demands.build(),
                             Workload("registrations", 200), 1)
    assert result.failures.get("pool-timeout", 0) > 0


def test_postgresql_max_connections_below_the_pools_refuses_connections() -> None:
    result = engine.simulate(box(puma__workers=4, foreman__puma_threads=16, postgresql__max_connections=110),
                             demands.build(), Workload("registrations", 300), 1)
    assert result.failures.get("too-many-clients", 0) > 0
    assert any("max_connections 110" in note for note in result.notes)


def test_apache_refuses_beyond_slots_and_listen_backlog() -> None:
    result = engine.simulate(box(apache__max_request_workers=5, apache__listen_backlog=5), demands.build(),
                             Workload("registrations", 300), 1)
    assert result.failures.get("refused", 0) > 0


def test_mosquitto_descriptors_cap_a_pull_rex_job() -> None:
    result = engine.simulate(box(mosquitto__limit_nofile=64), demands.build(), Workload("rex", 100), 1)
    # 64 descriptors less the 10 mosquitto keeps for itself: 54 of the 100 hosts connect, and all of those finish
    assert result.succeeded == 54
    assert "mosquitto's LimitNOFILE 64 admits about 54 MQTT clients: 46 hosts are refused and never get the job" in result.notes
    # the control: with the plan's limit every host gets the job
    assert engine.simulate(box(), demands.build(), Workload("rex", 100), 1).succeeded == 100


def test_more_cpus_shorten_downloads_when_the_cpu_is_the_limit() -> None:
    dem, wl = demands.build(), Workload("downloads", 300, packages=6)
    four = engine.simulate(box(cpus=4), dem, wl, 1)
    eight = engine.simulate(box(cpus=8), dem, wl, 1)
    assert eight.mean_s < four.mean_s
    assert four.bottleneck in ("cpu", "content_workers")


def test_registrations_per_minute_are_open_arrivals() -> None:
    result = engine.simulate(box(), demands.build(), Workload("registrations", rate_per_min=30, duration_s=300), 1)
    assert 100 < result.hosts < 200  # 30 a minute for 5 minutes, Poisson
    assert result.success_ratio == 1.0


def test_api_rate_beside_registrations_is_counted_as_its_own_class() -> None:
    result = engine.simulate(box(), demands.build(), Workload("registrations", 100, api_rate_per_s=5, duration_s=60), 1)
    names = {c.name for c in result.classes}
    assert "api" in names and "consumer_create" in names
    api = next(c for c in result.classes if c.name == "api")
    assert api.calls > 0 and api.ok == api.calls  # 5 calls/s beside 100 registrations: light load, none fails
    assert 3 < api.throughput_per_s < 6  # about the 5/s asked for (Poisson arrivals, seeded)
    plain = engine.simulate(box(), demands.build(), Workload("registrations", 100, duration_s=60), 1)
    assert "api" not in {c.name for c in plain.classes}  # the control: no API rate, no API class


def test_percentile_is_nearest_rank() -> None:
    assert engine.percentile([5.0, 1.0, 3.0, 2.0, 4.0], 0.5) == 3.0
    assert engine.percentile([1.0, 2.0], 0.95) == 2.0
    assert engine.percentile([], 0.5) == 0.0


def test_candlepin_queues_requests_beyond_its_threads_and_refuses_only_beyond_max_connections() -> None:
    """Tomcat's NIO connector accepts a connection beyond maxThreads and its request waits for a thread; only
    beyond maxConnections (8192 by default) do connections wait in the OS backlog (acceptCount 100) or fail."""
    dem, wl = demands.build(), Workload("registrations", 600)
    # 16 x 16 = 256 Puma threads against Candlepin's 150 threads: more than threads + acceptCount (250)
    wide: dict[str, float] = {"puma__workers": 16, "foreman__puma_threads": 16, "apache__max_request_workers": 1024}
    queued = engine.simulate(box(cpus=16, **wide), dem, wl, 1)
    assert queued.failures.get("candlepin-refused", 0) == 0
    # the control: with connections capped at the threads, the 100 accept slots fill and Tomcat refuses
    capped = engine.simulate(box(cpus=16, candlepin__max_connections=150, **wide), dem, wl, 1)
    assert capped.failures.get("candlepin-refused", 0) > 0


def _puma_ends(arrivals: list[float], handoff_s: float) -> tuple[list[float], Any]:
    """End times of requests of 1 s sent at ``arrivals`` to one Puma thread, and the Puma."""
    env = simpy.Environment()
    puma = engine.Puma(env, 1, 1, 10, handoff_s=handoff_s)
    done: list[float] = []

    def request(at: float) -> Any:
        yield env.timeout(at)
        got = puma.accept()
        worker = got if isinstance(got, int) else (yield got)
        yield env.timeout(1.0)
        puma.release(worker)
        done.append(env.now)

    for at in arrivals:
        env.process(request(at))
    env.run()
    return done, puma


def test_a_puma_thread_is_free_again_only_its_handoff_after_its_request() -> None:
    """One thread, hand-off 0.5 s, requests of 1 s. Three at time 0: the first ends at 1, the second waited in the
    backlog and starts at 1.5 (ends 2.5), the third at 3 (ends 4). One at 0 and one at 1.2: the second waits for the
    hand-off (starts 1.5, ends 2.5). Without a hand-off the thread is free at once (1, 2, 3 and 1, 2.2)."""
    for arrivals, handoff, ends in (([0.0] * 3, 0.5, [1.0, 2.5, 4.0]), ([0.0, 1.2], 0.5, [1.0, 2.5]),
                                    ([0.0] * 3, 0.0, [1.0, 2.0, 3.0]), ([0.0, 1.2], 0.0, [1.0, 2.2])):
        done, puma = _puma_ends(arrivals, handoff)
        assert done == ends, (arrivals, handoff)
        assert puma.free == [1] and puma.busy == 0
