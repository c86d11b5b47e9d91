"""foretune's --quick figure agrees with foreman-maintain's fio command run directly."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO


def test_quick_mode_agrees_with_fio_run_directly_within_ten_percent(tmp_path: Path) -> None:
    # Five rounds, alternating who goes first, of 32 MiB direct 4 KiB reads on the same filesystem; medians compared.
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "quick_vs_fio.py"), "--size", "32m", "--rounds", "5", "--tolerance", "0.10",
         str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    rounds = re.findall(r"foretune --quick\s+([\d.]+) MB/s\s+fio directly\s+([\d.]+) MB/s", done.stdout)
    assert len(rounds) == 5, done.stdout + done.stderr
    median = re.search(r"median: foretune ([\d.]+) MB/s, fio ([\d.]+) MB/s, difference ([\d.]+) %", done.stdout)
    assert median, done.stdout
    ours, theirs, diff = (float(g) for g in median.groups())
    assert ours > 0 and theirs > 0
    assert abs(ours - theirs) / theirs <= 0.10, done.stdout
    assert done.returncode == 0 and diff <= 10.0
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # both sides cleaned up
