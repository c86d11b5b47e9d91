"""Size of the single-file zipapp and its start-up: median wall time of --help and a plan, next to the interpreter floor.

    python3 bench/pyz.py [RUNS]

Builds dist-like ``foretune.pyz`` in a temporary directory with this Python (as ``python3 dev.py zipapp``
does) and runs it with ``python -I`` (only the archive on the path). Budgets: --help < 150 ms, plan < 300 ms.
"""

from __future__ import annotations

import os
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
    return status


if __name__ == "__main__":
    sys.exit(main())
