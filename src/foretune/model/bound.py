"""The fast analytic bound beside the simulation: asymptotic (utilisation) bounds of a closed network.

Every resource caps throughput at its capacity over the demand one registration (or request) puts on it;
the population caps it at N over the unloaded cycle time. The smallest cap is the bound and names the
bottleneck. The simulation can only come in below it; :func:`compare` says when the two disagree.
"""

from __future__ import annotations

from typing import NamedTuple

from foretune.model.demands import Demands
from foretune.model.network import Network
from foretune.model.workload import Workload


class Bound(NamedTuple):
    throughput_per_s: float
    bottleneck: str
    caps: dict[str, float]  # resource -> throughput cap (per second)
    cycle_s: float  # unloaded time of one registration or request, client time included


def registration_bound(net: Network, dem: Demands, hosts: int) -> Bound:
    ruby = sum(s.ruby_s * s.lump for s in dem.steps)
    backend = sum(s.backend_cpu_s * s.lump for s in dem.steps)
    hold = sum((s.ruby_s + s.backend_cpu_s + s.wait_s + s.serial_s) * s.lump for s in dem.steps)
    candlepin = sum((s.backend_cpu_s + s.wait_s + s.serial_s) * s.lump for s in dem.steps if s.candlepin)
    serial = sum(s.serial_s * s.lump for s in dem.steps)
    caps = {
        "puma_gvl": net.puma_workers / ruby if ruby else float("inf"),
        "cpu": net.cpus / (ruby + backend) if ruby + backend else float("inf"),
        "puma_threads": net.puma_workers * net.puma_threads / hold,
        "db_pool": net.puma_workers * min(net.db_pool, net.puma_threads) / hold,
        "apache_slots": net.apache_slots / hold,
        "candlepin_threads": net.candlepin_threads / candlepin if candlepin else float("inf"),
        "serialised_section": 1.0 / serial if serial else float("inf"),
        "hosts": hosts / (hold + dem.think_s) if hosts else float("inf"),
    }
    name = min(caps, key=caps.__getitem__)
    return Bound(caps[name], name, caps, hold + dem.think_s)


def download_bound(net: Network, dem: Demands, hosts: int, streams: int) -> Bound:
    """Packages per second."""
    per = dem.content_cpu_s + dem.content_wait_s + dem.package_kib * 8192 / (net.network_mbps * 1e6)
    caps = {
        "cpu": net.cpus / dem.content_cpu_s,
        "content_workers": net.content_workers / dem.content_cpu_s,
        "network": net.network_mbps * 1e6 / (dem.package_kib * 8192),
        "apache_slots": net.apache_slots / per,
        "hosts": hosts * streams / per,
    }
    name = min(caps, key=caps.__getitem__)
    return Bound(caps[name], name, caps, per)


def api_bound(net: Network, dem: Demands, rate: float) -> Bound:
    hold = dem.api_ruby_s + dem.api_backend_s
    caps = {
        "puma_gvl": net.puma_workers / dem.api_ruby_s,
        "cpu": net.cpus / hold,
        "puma_threads": net.puma_workers * net.puma_threads / hold,
        "offered": rate,
    }
    name = min(caps, key=caps.__getitem__)
    return Bound(caps[name], name, caps, hold)


def bound(net: Network, dem: Demands, wl: Workload) -> Bound:
    from foretune import knowledge  # start-up: only when bound runs

    if wl.kind == "downloads":
        streams = int(knowledge.load_data("model.yaml")["content"]["parallel_downloads"]["value"])
        return download_bound(net, dem, wl.concurrency, streams)
    if wl.kind in ("api", "rex"):
        return api_bound(net, dem, wl.api_rate_per_s or float(wl.concurrency))
    hosts = wl.concurrency or 10**9
    out = registration_bound(net, dem, hosts)
    if wl.rate_per_min:
        offered = wl.rate_per_min / 60.0
        if offered < out.throughput_per_s:
            caps = dict(out.caps, offered=offered)
            return Bound(offered, "offered", caps, out.cycle_s)
    return out


def compare(simulated: float, b: Bound, sim_bottleneck: str) -> str:
    """One sentence on how the simulation and the bound relate."""
    if b.throughput_per_s <= 0:
        return "no bound"
    ratio = simulated / b.throughput_per_s
    if ratio > 1.05:
        return (f"disagree: the simulation ({simulated:.3g}/s) exceeds the bound ({b.throughput_per_s:.3g}/s); "
                "the demands or the network are inconsistent")
    if ratio < 0.5:
        return (f"disagree: the simulation reaches {ratio:.0%} of the bound: queueing, timeouts and failures, not "
                f"raw capacity, limit this run (the bound's bottleneck is {b.bottleneck})")
    if b.bottleneck not in (sim_bottleneck, "hosts", "offered"):
        return (f"agree on throughput ({ratio:.0%} of the bound) but not on the bottleneck: the bound names "
                f"{b.bottleneck}, the simulation {sim_bottleneck}")
    return f"agree: the simulation reaches {ratio:.0%} of the bound"
