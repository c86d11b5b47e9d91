"""One `foretune load` process against the lab, side by side with a bare Locust FastHttpUser on the same URLs.

Starts the lab (tests/support/lab), then runs in turn, each in its own process, for --duration seconds with
--users users:

- ``foretune``: the load engine (src/foretune/load/engine.py: the scenario's flow, the request cap gate, every
  request recorded per step for the report), as ``foretune load`` runs it;
- ``locust``: a FastHttpUser whose one task GETs a URL of the same mix, with the same weights and the same
  authentication, reported by Locust's own statistics.

Three targets: ``api`` (the API mix, through Apache -> Puma -> PostgreSQL: the server is the limit),
``stub`` (the same API mix answered by Apache alone from fixed JSON files under the lab's ``/stub``: a
target that costs next to nothing, so the generator is the limit) and ``static`` (the content scenario's
files served by Apache alone, 1 KiB packages). Prints per run the requests/s, p50 and p99 of every request, the generator's CPU seconds per 1,000
requests, and per target foretune's added p99 and its requests/s against Locust's. Also prints the load
average before and after, since the machine it runs on may be shared.

    python3 bench/load_throughput.py [--users 32] [--duration 20] [--targets api,stub,static] [--rounds 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FORETUNE = r'''
import json, resource, sys, time
import locust.env  # noqa: F401  (imported before the CPU count starts, as in the baseline)
from foretune.load import engine
from foretune.load.options import Options
from foretune.load.results import Recorder

cfg = json.loads(sys.argv[1])
opts = Options(scenario=cfg["scenario"], target=cfg["target"], run="bench", users=cfg["users"],
               duration=cfg["duration"], time_limit=cfg["duration"] + 60, max_requests=10_000_000,
               repo=cfg.get("repo", ""), packages=cfg.get("packages", 5), credentials=cfg["credentials"])
rec = Recorder(opts.scenario, opts.target, opts.run, {})
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
engine.run(opts, rec)
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
level = rec.levels[0]
flows = {"download", "iteration"}
lat = sorted(ms for name, s in level.steps.items() if name not in flows for ms in s.latencies)
failures = sum(sum(s.failures.values()) for name, s in level.steps.items() if name not in flows)
seconds = (level.ended or time.monotonic()) - level.started
pick = lambda q: lat[max(0, int(q * len(lat)) - 1)] if lat else None
print(json.dumps({"requests": len(lat), "failures": failures, "seconds": seconds, "p50": pick(0.50), "p99": pick(0.99),
                  "cpu": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)}))
'''

BASELINE = r'''
import json, random, resource, sys, time
import gevent
from locust import FastHttpUser, constant, task
from locust.env import Environment

cfg = json.loads(sys.argv[1])
paths = [p for p, _ in cfg["mix"]]
weights = [w for _, w in cfg["mix"]]
auth = tuple(cfg["auth"]) if cfg["auth"] else None

class Bare(FastHttpUser):
    host = cfg["target"]
    wait_time = constant(0)

    @task
    def one(self):
        self.client.get(random.choices(paths, weights=weights)[0], auth=auth)

env = Environment(user_classes=[Bare])
runner = env.create_local_runner()
cpu0 = resource.getrusage(resource.RUSAGE_SELF)
runner.start(cfg["users"], spawn_rate=cfg["users"])
started = time.monotonic()
gevent.sleep(cfg["duration"])
runner.quit()
seconds = time.monotonic() - started
cpu1 = resource.getrusage(resource.RUSAGE_SELF)
total = env.stats.total
print(json.dumps({"requests": total.num_requests, "failures": total.num_failures, "seconds": seconds,
                  "p50": total.get_response_time_percentile(0.5), "p99": total.get_response_time_percentile(0.99),
                  "cpu": (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)}))
'''


def child(code: str, cfg: dict[str, object]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(cfg)], capture_output=True, text=True, env=env,
                          timeout=float(cfg["duration"]) + 180, check=False)  # type: ignore[arg-type]
    if proc.returncode:
        raise SystemExit(f"bench child failed ({proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def api_mix(lab: object) -> list[tuple[str, int]]:
    """The API mix's URLs with their weights, ids and pages filled in as the scenario fills them."""
    from foretune.load import plan

    ids = [int(x) for x in lab.psql("SELECT id FROM hosts ORDER BY id LIMIT 20").split()]  # type: ignore[attr-defined]
    mix: list[tuple[str, int]] = []
    for call, weight in plan.api_mix():
        if "{page}" in call.path:
            mix += [(call.path.format(page=p), weight // 3 or 1) for p in (1, 2, 3)]
        elif "{id}" in call.path:
            mix += [(call.path.format(id=i), max(1, weight // len(ids))) for i in ids]
        else:
            mix.append((call.path, weight))
    return mix


def static_mix(lab: object) -> list[tuple[str, int]]:
    """The content scenario's requests per iteration of 5 packages: repomd, primary, filelists once, packages 5 times."""
    import gzip
    import re
    import urllib.request

    repo = lab.content_path  # type: ignore[attr-defined]
    with urllib.request.urlopen(f"{lab.url}{repo}/repodata/primary.xml.gz", timeout=30) as response:  # type: ignore[attr-defined]
        locations = re.findall(rb'<location href="([^"]+)"', gzip.decompress(response.read()))
    mix = [(f"{repo}/repodata/{name}", 20 * len(locations)) for name in ("repomd.xml", "primary.xml.gz", "filelists.xml.gz")]
    return mix + [(f"{repo}/{loc.decode()}", 100) for loc in locations]


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=32)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--targets", default="api,stub,static")
    parser.add_argument("--rounds", type=int, default=1, help="alternate foretune and locust this many times per target")
    args = parser.parse_args()

    from tests.support.lab import Lab

    print(f"cores {os.cpu_count()}, load average before: {loadavg()}", flush=True)
    with Lab(puma_workers=2, puma_threads=8, pool=8, threads_per_child=32, max_request_workers=256,
             packages=20, package_kib=1) as lab:
        # a few hosts for the index and show calls
        subprocess.run([sys.executable, "-m", "foretune", "load", "registration", "--target", lab.url, "--organization",
                        "Lab", "--activation-key", "lab-key", "--profile-packages", "10", "--users", "2", "--duration",
                        "3", "--yes", "--format", "json"], env={**os.environ, **lab.credentials,
                        "PYTHONPATH": str(ROOT / "src")}, capture_output=True, check=False, timeout=120)
        user, token = lab.credentials["FORETUNE_LOAD_USER"], lab.credentials["FORETUNE_LOAD_TOKEN"]
        for target in args.targets.split(","):
            if target in ("api", "stub"):
                url = lab.url + ("/stub" if target == "stub" else "")
                common = {"target": url, "users": args.users, "duration": args.duration}
                ours = {**common, "scenario": "api", "credentials": lab.credentials}
                bare = {**common, "mix": api_mix(lab), "auth": [user, token]}
            else:
                common = {"target": lab.url, "users": args.users, "duration": args.duration}
                ours = {**common, "scenario": "content", "repo": lab.content_path, "packages": 5, "credentials": {}}
                bare = {**common, "mix": static_mix(lab), "auth": None}
            results: dict[str, list[dict[str, float]]] = {"foretune": [], "locust": []}
            for _ in range(args.rounds):
                results["foretune"].append(child(FORETUNE, ours))
                results["locust"].append(child(BASELINE, bare))
            summary = {}
            for name, runs in results.items():
                best = max(runs, key=lambda r: r["requests"] / r["seconds"])
                rps = best["requests"] / best["seconds"]
                cpu_per_k = best["cpu"] / max(best["requests"], 1) * 1000
                summary[name] = (rps, best["p99"])
                print(f"{target:<7} {name:<9} {rps:8.0f} req/s  p50 {best['p50']:7.1f} ms  p99 {best['p99']:7.1f} ms  "
                      f"failures {best['failures']:<5} CPU {cpu_per_k:6.2f} s per 1,000 requests  "
                      f"({best['requests']} requests in {best['seconds']:.1f} s)", flush=True)
            (ours_rps, ours_p99), (bare_rps, bare_p99) = summary["foretune"], summary["locust"]
            print(f"{target:<7} foretune/locust requests/s {ours_rps / bare_rps:.2f}, p99 added "
                  f"{ours_p99 - bare_p99:+.1f} ms", flush=True)
    print(f"load average after: {loadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
