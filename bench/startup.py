"""Start-up cost of the CLI on an installed copy: median wall and CPU time of common invocations.

    python3 bench/startup.py [--runs N] [--before REV]

The installed copy is this checkout's package with its bytecode (what pip leaves in
site-packages). ``--before REV`` also measures the package as it was at git revision REV, for
before/after figures. CPU time is shown because a machine busy with other work inflates wall
time but not CPU time. Numbers are for this machine; see bench/README.md for recorded runs.
"""

from __future__ import annotations

import argparse
import io
import resource
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INVOCATIONS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "plan --help": ["plan", "--help"],
    "plan (table)": ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"],
    "plan (json)": ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G",
                    "--format", "json"],
    "profiles show": ["profiles", "show", "large", "--product", "satellite", "--version", "6.15"],
    "audit sosreport": ["audit", str(ROOT / "tests" / "fixtures" / "sosreports" / "satellite-6.15"), "--format", "json"],
}


def measure(argv: list[str], runs: int, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(median wall seconds, median CPU seconds) of running ``argv``."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=False, capture_output=True, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def install(site: Path, rev: str | None) -> None:
    """The package (from the work tree, or from git revision ``rev``) with bytecode, under ``site``."""
    if rev is None:
        shutil.copytree(ROOT / "src" / "foretune", site / "foretune", ignore=shutil.ignore_patterns("__pycache__"))
    else:
        data = subprocess.run(["git", "archive", rev, "src/foretune"], cwd=ROOT, check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(site / "tmp", filter="data")
        shutil.move(str(site / "tmp" / "src" / "foretune"), str(site / "foretune"))
        # the compiled knowledge is git-ignored: give the old copy this checkout's, as `dev.py` would have built
        # it there (foretune uses an entry only when its fingerprint matches that copy's YAML)
        compiled = ROOT / "src" / "foretune" / "knowledge" / "data" / "compiled.json"
        if compiled.exists():
            shutil.copy(compiled, site / "foretune" / "knowledge" / "data" / "compiled.json")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(site)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--before", metavar="REV", help="also measure the package at this git revision")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="foretune-startup-") as tmp:
        copies = {"now": Path(tmp) / "now"}
        install(copies["now"], None)
        if args.before:
            copies[args.before[:10]] = Path(tmp) / "before"
            install(copies[args.before[:10]], args.before)
        wall, cpu = measure([sys.executable, "-c", "pass"], args.runs)
        print(f"{'python -c pass':<26} {wall * 1000:7.1f} ms wall {cpu * 1000:7.1f} ms CPU (interpreter floor)")
        for name, argv in INVOCATIONS.items():
            for label, site in copies.items():
                env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
                w, c = measure([sys.executable, "-m", "foretune", *argv], args.runs, env)
                print(f"{name:<16} {label:<9} {w * 1000:7.1f} ms wall {c * 1000:7.1f} ms CPU  ({c / max(cpu, 1e-6):4.1f}x CPU floor)")


if __name__ == "__main__":
    main()
