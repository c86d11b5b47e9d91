"""``foretune model``: will this box hold the workload? A seeded queueing simulation beside an analytic bound."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from foretune.cli import new_parser
from foretune.commands._options import add_output, emit, output_format, positive

if TYPE_CHECKING:
    from foretune.env import Environment

FORMATS = ("text", "json")


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not 0 < value < 1e7:
        raise argparse.ArgumentTypeError(f"must be a positive number below 10000000: {text[:40]}")
    return value


def build_parser(prog: str) -> argparse.ArgumentParser:
    from foretune.commands.plan import add_plan_arguments  # start-up: only for a `model` run, not --help

    parser = new_parser(
        prog, "Simulate a workload on a box as plan describes it (Apache, Puma workers and threads, pools, Candlepin, "
              "CPUs, timeouts): throughput, latency, first-try success, the bottleneck and the knee, with an analytic "
              "bound beside it and --set what-ifs side by side.",
        "foretune model --product satellite --version 6.15 --cpus 8 --ram 32G --workload registrations "
        "--concurrency 1000 --set foreman.puma_threads=16")
    add_plan_arguments(parser)
    work = parser.add_argument_group("model workload")
    work.add_argument("--workload", default="registrations", choices=("registrations", "downloads", "api", "rex"),
                      help="what the hosts do (default registrations)")
    work.add_argument("--concurrency", type=positive, metavar="N",
                      help="hosts registering or downloading at once; the REX job's size for --workload rex")
    work.add_argument("--rate", type=_rate, metavar="PER_MIN", help="registrations per minute (open arrivals) instead "
                                                                    "of a burst")
    work.add_argument("--duration", type=_rate, metavar="SECONDS", help="how long --rate or --api-rate lasts "
                                                                       "(default 1800)")
    work.add_argument("--packages", type=positive, metavar="N", help="packages each host downloads (default 10)")
    work.add_argument("--api-rate", type=_rate, metavar="PER_S", help="API calls per second, alone (--workload api) "
                                                                      "or beside the workload")
    what = parser.add_argument_group("what-ifs and calibration")
    what.add_argument("--set", action="append", metavar="TUNABLE=VALUE",
                      help="run a what-if beside the box as it is, e.g. foreman.puma_threads=16 or puma.workers=8 "
                           "(repeatable; all applied together)")
    what.add_argument("--recommend", action="store_true",
                      help="search the smallest change of Puma workers, threads and MaxRequestWorkers that holds the "
                           "workload (>= 99 %% first-try success), and the best configuration")
    what.add_argument("--demands", metavar="FILE",
                      help="service demands measured on this server: the JSON of foretune load (steps[] with name "
                           "and p50_ms) replaces the cited idle latencies of the steps it names")
    what.add_argument("--seed", type=positive, default=1, help="random seed (default 1): the same seed, the same answer")
    what.add_argument("--no-knee", dest="knee", action="store_false",
                      help="skip the search for the knee (most concurrent registrations at >= 99 %% success)")
    out = parser.add_argument_group("output")
    add_output(out, FORMATS, "text")
    return parser


def run(args: argparse.Namespace, env: Environment) -> int:
    from foretune.commands.plan import plan_and_facts  # start-up: only for a `model` run, not --help
    from foretune.errors import UsageError  # start-up: only for a `model` run, not --help
    from foretune.model import (  # start-up: only for a `model` run, not --help
        bound,
        demands,
        network,
        output,
        recommend,
        workload,
    )
    from foretune.model.engine import simulate  # start-up: only for a `model` run, not --help

    wl = workload.make(args.workload, args.concurrency, args.rate, args.duration, args.packages, args.api_rate)
    sets = network.parse_sets(args.set)
    if args.hosts is None and not args.source:
        args.hosts = max(wl.concurrency, int(wl.rate_per_min * wl.duration_s / 60.0), 1)
    plan, _facts = plan_and_facts(args, env)
    if plan.input.role == "capsule" and wl.kind != "downloads":  # type: ignore[attr-defined]
        raise UsageError("a Capsule proxies registrations, API calls and REX results to its server: model the "
                         "server, or --workload downloads for the Capsule's content")
    net = network.from_plan(plan)
    measured = None
    source = ""
    if args.demands:
        from foretune.safeio import read_text  # start-up: only for a `model` run, not --help

        measured, notes = demands.from_load_result(read_text(args.demands), args.demands)
        for note in notes:
            env.warn(note)
        source = f"{args.demands} (foretune load), cited defaults for the other steps"
    dem = demands.build(measured_ms=measured, source=source)
    scenarios: list[tuple[str, network.Network, dict[str, float]]] = [("as planned", net, {})]
    if sets:
        scenarios.append(("with " + ", ".join(f"{k}={v:g}" for k, v in sets.items()), network.apply_sets(net, sets),
                          sets))
    runs = []
    for label, n, applied in scenarios:
        result = simulate(n, dem, wl, args.seed)
        b = bound.bound(n, dem, wl)
        knee = recommend.knee(n, dem, args.seed) if args.knee and wl.kind == "registrations" else None
        runs.append(output.Scenario(label, n, applied, result, b, bound.compare(result.throughput_per_s, b,
                                                                                 result.bottleneck), knee))
    rec = recommend.recommend(scenarios[-1][1], dem, wl, args.seed) if args.recommend else None
    report = output.Report(plan, wl, dem, tuple(runs), rec, args.seed)
    text = output.to_json(report) if output_format(args) == "json" else output.to_text(report)
    emit(args, env, text)
    return 0
