"""Start-up cost of the CLI: median wall time of common invocations, and what they import.

    python3 bench/startup.py [RUNS]

Prints one line per invocation. Numbers are for this machine; see bench/README.md for recorded runs.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
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
}


def measure(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "foretune", *argv], cwd=ROOT, check=True, capture_output=True,
                       env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"})
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def baseline(runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    print(f"python -c pass: {baseline(runs) * 1000:6.1f} ms (interpreter floor)")
    for name, argv in INVOCATIONS.items():
        print(f"foretune {name:<14} {measure(argv, runs) * 1000:6.1f} ms (median of {runs})")


if __name__ == "__main__":
    main()
