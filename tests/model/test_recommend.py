"""--recommend and the knee: the search agrees with the guides' headline advice."""

from __future__ import annotations

from foretune.model import demands, engine, network, recommend
from foretune.model.workload import Workload
from foretune.plan import PlanInput, make_plan


def box(cpus: int, ram_gib: int, **sets: float) -> network.Network:
    plan = make_plan(PlanInput(product="satellite", version="6.15", hosts=5000, cpus=cpus, ram_bytes=ram_gib * 2**30))
    return network.apply_sets(network.from_plan(plan), sets)


def test_best_configuration_is_16_threads_and_workers_up_to_the_cpus() -> None:
    """The guide: "we recommend 16 threads with all the tuning profiles"; "Use 8 – 12 workers on a medium setup
    (8 CPUs)"; the model may pick fewer workers, never more than 1.5 x CPUs."""
    net = box(8, 32, **{"apache.max_request_workers": 1024})
    rec = recommend.recommend(net, demands.build(), Workload("registrations", 600), 1)
    assert rec.best.sets["foreman.puma_threads"] == 16
    assert 4 <= rec.best.sets["puma.workers"] <= 12


def test_smallest_change_holds_and_changes_little() -> None:
    net = box(8, 32, **{"apache.max_request_workers": 1024, "puma.workers": 2, "foreman.puma_threads": 8})
    dem, wl = demands.build(), Workload("registrations", 1200)
    assert engine.simulate(net, dem, wl, 1).success_ratio < recommend.HOLDS  # the box as it is does not hold
    rec = recommend.recommend(net, dem, wl, 1)
    assert rec.smallest is not None and rec.smallest.holds
    changed = {k for k, v in rec.smallest.sets.items()
               if v != {"puma.workers": 2, "foreman.puma_threads": 8, "apache.max_request_workers": 1024}[k]}
    assert len(changed) == 1


def test_knee_is_where_success_falls_below_99_percent() -> None:
    net, dem = box(8, 32, **{"apache.max_request_workers": 1024}), demands.build()
    knee = recommend.knee(net, dem, 1, limit=4000)
    assert knee > 0
    assert engine.simulate(net, dem, Workload("registrations", knee), 1).success_ratio >= 0.99
    assert engine.simulate(net, dem, Workload("registrations", int(knee * 1.25) + 20), 1).success_ratio < 0.99


def test_on_16_cpus_the_best_is_16_threads_and_workers_up_to_the_cpus() -> None:
    """The guide's headline advice holds for every size: 16 threads, and workers up to the CPUs."""
    net = box(16, 64, **{"apache.max_request_workers": 1024})
    rec = recommend.recommend(net, demands.build(), Workload("registrations", 600), 1)
    assert rec.best.sets["foreman.puma_threads"] == 16
    assert rec.best.sets["puma.workers"] <= 16


def test_on_4_cpus_the_best_is_16_threads_and_workers_up_to_the_cpus() -> None:
    net = box(4, 20, **{"apache.max_request_workers": 1024})
    rec = recommend.recommend(net, demands.build(), Workload("registrations", 600), 1)
    assert rec.best.sets["foreman.puma_threads"] == 16
    assert rec.best.sets["puma.workers"] <= 4
