"""Size of the single-file zipapp and its start-up: median wall time of --help and a plan, next to the interpreter floor.

    python3 bench/pyz.py [RUNS]

Builds dist-like ``foretune.pyz`` in a temporary directory with this Python (as ``python3 dev.py zipapp``
does) and runs it with ``python -I`` (only the archive on the path). Budgets: --help < 150 ms, plan < 300 ms.
Then, interleaved run by run, the CPU time (user + system) of the zipapp's ``plan`` beside the installed
``foretune plan`` of this Python's environment: the target is a ratio of at most 1.3. CPU time is read from
``getrusage`` and is far less sensitive than wall time to other work on a shared machine.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "--help": ["--help"],
    "plan (table)": ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"],
}
BUDGET_MS = {"--help": 150, "plan (table)": 300}


def median_ms(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def cpu_ms(argv: list[str]) -> float:
    """User + system CPU time of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def zipapp_vs_installed(pyz: Path, runs: int) -> float:
    """Median CPU ms of the zipapp's and the installed ``plan``, run alternately; prints both and returns the ratio."""
    plan = CASES["plan (table)"]
    zipped, installed = [], []
    for _ in range(runs):
        zipped.append(cpu_ms([sys.executable, "-I", str(pyz), *plan]))
        installed.append(cpu_ms([sys.executable, "-m", "foretune", *plan]))
    z, i = statistics.median(zipped), statistics.median(installed)
    print(f"plan CPU: zipapp {z:6.1f} ms, installed {i:6.1f} ms (medians of {runs}, interleaved): {z / i:.2f}x (target 1.3x)")
    return z / i


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    sys.path.insert(0, str(ROOT))
    import dev

    with tempfile.TemporaryDirectory() as tmp:
        pyz = dev.build_zipapp(Path(tmp) / "foretune.pyz", sys.executable)
        print(f"zipapp: {pyz.stat().st_size / 1024:.0f} KiB (Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f})")
        floor = median_ms([sys.executable, "-I", "-c", "pass"], runs)
        print(f"python -I -c pass: {floor:6.1f} ms (interpreter floor)")
        status = 0
        for name, argv in CASES.items():
            ms = median_ms([sys.executable, "-I", str(pyz), *argv], runs)
            over = ms > BUDGET_MS[name]
            status |= over
            print(f"foretune.pyz {name:<13} {ms:6.1f} ms (median of {runs}; budget {BUDGET_MS[name]} ms{', OVER' if over else ''})")
        status |= zipapp_vs_installed(pyz, runs) > 1.3
    return status


if __name__ == "__main__":
    sys.exit(main())
