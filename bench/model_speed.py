"""How long `foretune model`'s simulation takes for a registration burst: wall and CPU seconds per size.

    .venv/bin/python bench/model_speed.py [HOSTS ...]     (default 1000 5000 10000)

Runs the engine in-process on a 16 CPU Satellite 6.15 box with 16 workers x 16 threads and 1024 Apache
slots, seed 1, and prints wall and CPU time with the number of simulated requests.
"""

from __future__ import annotations

import sys
import time

from foretune.model import demands, engine, network
from foretune.model.workload import Workload
from foretune.plan import PlanInput, make_plan


def main(argv: list[str]) -> int:
    sizes = [int(a) for a in argv] or [1000, 5000, 10000]
    plan = make_plan(PlanInput(product="satellite", version="6.15", hosts=10000, cpus=16, ram_bytes=64 * 2**30))
    net = network.apply_sets(network.from_plan(plan), {"puma.workers": 16, "foreman.puma_threads": 16,
                                                       "apache.max_request_workers": 1024})
    dem = demands.build()
    for hosts in sizes:
        wall, cpu = time.perf_counter(), time.process_time()
        result = engine.simulate(net, dem, Workload("registrations", hosts), 1)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        calls = sum(c.calls for c in result.classes)
        print(f"{hosts:>6} hosts  {calls:>7} requests  {wall:6.2f} s wall  {cpu:6.2f} s CPU  "
              f"success {result.success_ratio:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
