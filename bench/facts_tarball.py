"""Every ratio of the sosreport performance targets, measured side by side in one run, in one table.

Builds a sosreport from the Satellite 6.15 fixture plus a production.log and an Apache access log
written by ``bench/gen_logs.py`` (the logs' real formats, not filler), packs it three ways (a
single-block ``.tar.xz``, a multi-block ``.tar.xz`` as ``xz -T2`` writes, a ``.tar.gz``) and runs,
interleaved round by round so that the load of a shared machine falls on every command alike:

- ``xz -dc``, ``xz -T0 -dc``, ``gzip -dc``, ``pigz -dc`` (the floors) and ``foretune audit FILE
  --format json`` on each archive (an installed copy with bytecode, as a process), with the system's
  decompressor and with ``FORETUNE_DECODER=python``, and the audit of a ``--before`` revision;
- ``wc -l`` and ``foretune logs`` on production.log, GoAccess and ``foretune logs`` on the access log;
- the zipapp's ``plan`` beside the installed ``plan`` (each ten times a round, summed).

CPU time is user + system of each process and everything it waited for (``os.wait4``), which other
people's work on the machine does not inflate; wall time is shown too. Medians over the rounds.

    python3 bench/facts_tarball.py [--logs-mb 256] [--rounds 3] [--keep DIR] [--before REV] [--only-logs]

``--only-logs`` writes only the two logs and times only ``wc -l``, ``foretune logs`` (and the
``--before`` revision's) and GoAccess.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
FIXTURE = ROOT / "tests" / "fixtures" / "sosreports" / "satellite-6.15"
TOP = "sosreport-satellite-2024-02-12-bench"
PRODUCTION = "var/log/foreman/production.log"
ACCESS = "var/log/httpd/foreman-ssl_access_ssl.log"


def run(argv: list[str], env: dict[str, str] | None = None, stdin: Path | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s of the process and what it waited for, peak RSS MiB) of one command, output discarded."""
    with tempfile.TemporaryFile() as errors, (stdin.open("rb") if stdin else open(os.devnull, "rb")) as source:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=source, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):  # audit exits 1 when it has findings
            errors.seek(0)
            sys.stderr.write(f"{argv[:4]}: exit {code}: " + errors.read().decode("utf-8", "replace")[-400:] + "\n")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


PLAN_RUNS = 10  # a plan takes about 50 ms: one round times ten runs of it, so the clock's grain and one slow start weigh less


def repeated(times: int, argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """:func:`run` ``times`` times: summed wall and CPU seconds, the highest peak."""
    runs = [run(argv, env) for _ in range(times)]
    return sum(r[0] for r in runs), sum(r[1] for r in runs), max(r[2] for r in runs)


def build(folder: Path, logs_mb: int, only_logs: bool = False) -> dict[str, Path]:
    """The tree, its logs and the three archives (kept in ``folder`` and reused when present)."""
    tree = folder / TOP
    paths = {"production": tree / PRODUCTION, "access": tree / ACCESS, "xz": folder / "single.tar.xz",
             "xz-blocks": folder / "blocks.tar.xz", "gz": folder / "sosreport.tar.gz"}
    if all(p.exists() for p in paths.values()) or (only_logs and paths["production"].exists() and paths["access"].exists()):
        return paths
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(FIXTURE, tree, symlinks=True)
    for kind, share in (("production", 0.6), ("access", 0.4)):
        target = paths[kind]
        if only_logs and target.exists():
            continue
        target.unlink(missing_ok=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_logs.py"), "--kind", kind, "--size-mb",
                        str(max(1, int(logs_mb * share))), str(target)], check=True)
    if only_logs:
        return paths
    plain = folder / "sosreport.tar"
    with tarfile.open(plain, "w") as archive:
        archive.add(tree, arcname=TOP)
    with paths["xz"].open("wb") as out:  # one thread writes one block
        subprocess.run(["xz", "-T1", "-0", "-c", str(plain)], stdout=out, check=True)
    with paths["xz-blocks"].open("wb") as out:
        subprocess.run(["xz", "-T2", "-0", "-c", str(plain)], stdout=out, check=True)
    with paths["gz"].open("wb") as out:
        subprocess.run(["gzip", "-c", str(plain)], stdout=out, check=True)
    plain.unlink()
    return paths


def installed(folder: Path, name: str, rev: str | None) -> Path:
    """An installed-like copy (sources with bytecode and compiled knowledge) of this tree or of ``rev``."""
    site = folder / name
    if site.exists() and rev is not None:  # a revision's copy is reused; this tree's is made again (it may have changed)
        return site
    shutil.rmtree(site, ignore_errors=True)
    (site / "foretune").parent.mkdir(parents=True)
    if rev is None:
        shutil.copytree(ROOT / "src" / "foretune", site / "foretune", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src/foretune"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(site), "--strip-components=1"], input=archive, check=True)
    compiled = ROOT / "src" / "foretune" / "knowledge" / "data" / "compiled.json"
    if compiled.exists() and not (site / "foretune" / "knowledge" / "data" / "compiled.json").exists():
        shutil.copy(compiled, site / "foretune" / "knowledge" / "data" / "compiled.json")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(site)], check=True)
    return site


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs-mb", type=int, default=256, help="MiB of generated logs in the sosreport (default 256)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds; medians are shown (default 3)")
    parser.add_argument("--keep", type=Path, help="keep the archives and copies in this directory (the archives and a --before copy are reused; this tree's copy and zipapp are made again)")
    parser.add_argument("--before", help="also audit with the package at this git revision (peak memory, CPU)")
    parser.add_argument("--only-logs", action="store_true", help="time only wc -l, foretune logs and GoAccess on the logs")
    args = parser.parse_args()
    import dev  # start-up: the zipapp builder, for the bench only
    from logs_speed import ensure_goaccess  # start-up: bench helper

    folder = args.keep or Path(tempfile.mkdtemp(prefix="foretune-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        print(f"building in {folder} ...", flush=True)
        paths = build(folder, args.logs_mb, args.only_logs)
        now = installed(folder, "site-now", None)
        before = installed(folder, f"site-{args.before}", args.before) if args.before else None
        pyz = folder / "foretune.pyz"
        if not args.only_logs:  # built again each run: it is this tree's
            dev.build_zipapp(pyz, sys.executable)
        base_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": "UTC"}
        env_now = {**base_env, "PYTHONPATH": str(now)}
        env_python = {**env_now, "FORETUNE_DECODER": "python"}
        py = sys.executable
        goaccess = ensure_goaccess()
        plan = ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]

        def audit(kind: str, env: dict[str, str]) -> Callable[[], tuple[float, float, float]]:
            return lambda: run([py, "-m", "foretune", "audit", str(paths[kind]), "--format", "json"], env)

        commands: dict[str, Callable[[], tuple[float, float, float]]] = {
            "xz -dc single.tar.xz": lambda: run(["xz", "-dc"], stdin=paths["xz"]),
            "audit single.tar.xz": audit("xz", env_now),
            "audit single.tar.xz (python decoder)": audit("xz", env_python),
            "xz -T0 -dc blocks.tar.xz": lambda: run(["xz", "-T0", "-dc"], stdin=paths["xz-blocks"]),
            "xz -dc blocks.tar.xz": lambda: run(["xz", "-dc"], stdin=paths["xz-blocks"]),
            "audit blocks.tar.xz": audit("xz-blocks", env_now),
            "gzip -dc sosreport.tar.gz": lambda: run(["gzip", "-dc"], stdin=paths["gz"]),
            "audit sosreport.tar.gz": audit("gz", env_now),
            "audit sosreport.tar.gz (python decoder)": audit("gz", env_python),
            "wc -l production.log": lambda: run(["wc", "-l", str(paths["production"])]),
            "logs production.log": lambda: run([py, "-m", "foretune", "logs", str(paths["production"]), "--format", "json", "--jobs", "1"], env_now),
            "logs production.log --jobs 2": lambda: run([py, "-m", "foretune", "logs", str(paths["production"]), "--format", "json", "--jobs", "2"], env_now),
            "logs access.log": lambda: run([py, "-m", "foretune", "logs", str(paths["access"]), "--format", "json", "--jobs", "1"], env_now),
            "wc -l access.log": lambda: run(["wc", "-l", str(paths["access"])]),
            "plan (installed)": lambda: repeated(PLAN_RUNS, [py, "-m", "foretune", *plan], env_now),
            "plan (zipapp)": lambda: repeated(PLAN_RUNS, [py, "-I", str(pyz), *plan], base_env),
        }
        if shutil.which("pigz"):
            commands["pigz -dc sosreport.tar.gz"] = lambda: run(["pigz", "-dc"], stdin=paths["gz"])
        if goaccess:
            out = folder / "goaccess.json"
            commands["goaccess access.log"] = lambda: run([goaccess, str(paths["access"]), "--log-format=COMBINED",
                                                          "--no-progress", "-o", str(out)])
        if before is not None:
            env_before = {**base_env, "PYTHONPATH": str(before)}
            commands[f"audit single.tar.xz ({args.before})"] = audit("xz", env_before)
            commands[f"audit sosreport.tar.gz ({args.before})"] = audit("gz", env_before)
            commands[f"logs production.log ({args.before})"] = lambda: run(
                [py, "-m", "foretune", "logs", str(paths["production"]), "--format", "json", "--jobs", "1"], env_before)
            commands[f"logs access.log ({args.before})"] = lambda: run(
                [py, "-m", "foretune", "logs", str(paths["access"]), "--format", "json", "--jobs", "1"], env_before)
        if args.only_logs:
            commands = {k: v for k, v in commands.items() if k.startswith(("wc -l", "logs ", "goaccess"))}
        results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        loads = [os.getloadavg()]
        for r in range(args.rounds):
            for name, command in commands.items():
                results[name].append(command())
            loads.append(os.getloadavg())
            print(f"round {r + 1} of {args.rounds} done, load {loads[-1][0]:.1f}", flush=True)

        med = {name: tuple(statistics.median(x[i] for x in rows) for i in range(3)) for name, rows in results.items()}
        print()
        print(f"Python {sys.version.split()[0]}, {subprocess.run(['xz', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}, "
              f"logs {args.logs_mb} MiB, {args.rounds} interleaved rounds, medians")
        print("load average (1 min) at each round's end: " + ", ".join(f"{la[0]:.1f}" for la in loads))
        print("uptime: " + subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        sizes = {k: paths[k].stat().st_size / 1048576 for k in ("xz", "xz-blocks", "gz", "production", "access") if paths[k].exists()}
        print("sizes MiB: " + ", ".join(f"{k} {v:.1f}" for k, v in sizes.items()))
        print()
        print(f"{'command':<44} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}")
        for name, (wall, cpu, rss) in med.items():
            print(f"{name:<44} {wall:8.2f} {cpu:8.2f} {rss:9.0f}")

        def ratio(a: str, b: str) -> float:
            return med[a][1] / med[b][1]

        rows = [] if args.only_logs else [
            ("audit / xz -dc, single-block .tar.xz", ratio("audit single.tar.xz", "xz -dc single.tar.xz"), "<= 2"),
            ("audit / xz -T0 -dc, multi-block .tar.xz", ratio("audit blocks.tar.xz", "xz -T0 -dc blocks.tar.xz"), "<= 1.5"),
            ("audit / gzip -dc, .tar.gz", ratio("audit sosreport.tar.gz", "gzip -dc sosreport.tar.gz"), "<= 2.5"),
            ("zipapp plan / installed plan", ratio("plan (zipapp)", "plan (installed)"), "<= 1.3"),
        ]
        rows += [
            ("logs / wc -l, production.log", ratio("logs production.log", "wc -l production.log"), "<= 50"),
            ("logs --jobs 2 / wc -l, production.log", ratio("logs production.log --jobs 2", "wc -l production.log"), "<= 50"),
        ]
        if args.before:
            rows.append((f"logs {args.before} / wc -l, production.log", ratio(f"logs production.log ({args.before})", "wc -l production.log"), "<= 50"))
        if goaccess:
            rows.append(("goaccess / logs, access log", ratio("goaccess access.log", "logs access.log"), ">= 2.5"))
            if args.before:
                rows.append((f"goaccess / logs {args.before}, access log", ratio("goaccess access.log", f"logs access.log ({args.before})"), ">= 2.5"))
        print()
        print(f"{'ratio of CPU time':<44} {'measured':>9} {'target':>8}")
        for label, value, target in rows:
            print(f"{label:<44} {value:8.2f}x {target:>8}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
