"""foretune's --quick figure agrees with foreman-maintain's fio command run directly, round by round."""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_quick_mode_agrees_with_fio_run_directly_pair_by_pair(tmp_path: Path) -> None:
    # Five rounds, alternating who goes first, of 32 MiB direct 4 KiB reads on the same filesystem. The two runs of a
    # round are back to back, so a busy machine slows both: compare per-round pairs (median of the ratios), never the
    # medians of two independent series. Absolute figures belong to bench/quick_vs_fio.py and bench/README.md.
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "quick_vs_fio.py"), "--size", "32m", "--rounds", "5", "--tolerance", "0.10",
         str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    rounds = re.findall(r"foretune --quick\s+([\d.]+) MB/s\s+fio directly\s+([\d.]+) MB/s\s+ratio ([\d.]+)", done.stdout)
    assert len(rounds) == 5, done.stdout + done.stderr
    pairs = [(float(a), float(b)) for a, b, _ in rounds]
    assert all(a > 0 and b > 0 for a, b in pairs)
    ratio = statistics.median(a / b for a, b in pairs)  # recomputed here from the printed figures
    assert abs(ratio - 1) <= 0.10, done.stdout
    printed = re.search(r"median ratio foretune/fio over 5 rounds: ([\d.]+)", done.stdout)
    assert printed and abs(float(printed.group(1)) - ratio) < 0.002, done.stdout
    assert done.returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # both sides cleaned up
