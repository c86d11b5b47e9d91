"""foretune's --quick figure is foreman-maintain's: the same fio command, and its arithmetic on that very run.

The two figures are compared on one fio run, not on two runs timed one after the other: throughput of separate
runs on a shared machine differs by more than any tolerance a test could hold. How close the two come when run
back to back is measured by bench/quick_vs_fio.py (figures in bench/README.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

# foreman-maintain's disk check (definitions/checks/disk/performance.rb via ForemanMaintain::Utils::Disk::Device):
# fio --name=job1 --rw=read --size=1g --output-format=json --directory=DIR --direct=1 --unlink=1, MB/s = jobs[0].read.bw / 1024
FOREMAN_MAINTAIN = ["--name=job1", "--rw=read", "--size=32m", "--output-format=json", "--direct=1", "--unlink=1"]


def test_quick_mode_is_foreman_maintains_fio_command_and_arithmetic(tmp_path: Path) -> None:
    real = shutil.which("fio")
    assert real, "fio is installed by dev.py for the tests"
    shim = tmp_path / "bin" / "fio"  # records the command and keeps fio's JSON, then is the real fio
    shim.parent.mkdir()
    log = tmp_path / "fio-argv"
    shim.write_text(f"""#!/bin/sh
printf '%s\\n' "$@" "--" >> {log}
{real} "$@"; rc=$?
for arg in "$@"; do case "$arg" in --output=*) cp "${{arg#--output=}}" {log}.json;; esac; done
exit $rc
""")
    shim.chmod(0o755)
    data = tmp_path / "data"
    data.mkdir()
    env = {**os.environ, "PATH": f"{shim.parent}:{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "-m", "foretune", "bench", "storage", "--quick", "--size", "32m", "--json", str(data)],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=300, check=False)
    verdicts = [r["verdict"] for r in json.loads(done.stdout)["results"]]
    assert done.returncode == (1 if "fail" in verdicts else 0), done.stderr  # 1 = a verdict below the threshold, on a slow disk
    runs = [run.strip().splitlines() for run in log.read_text().split("--\n") if "--rw=read" in run]
    assert len(runs) == 1, runs  # one job (other calls, such as fio --version, are not jobs)
    argv = runs[0]
    directory = [a for a in argv if a.startswith("--directory=")]
    assert len(directory) == 1 and Path(directory[0].split("=", 1)[1]).parent == data
    assert [a for a in argv if not a.startswith(("--directory=", "--output=", "--eta"))] == FOREMAN_MAINTAIN
    raw = json.loads(Path(f"{log}.json").read_text())
    theirs = raw["jobs"][0]["read"]["bw"] / 1024  # foreman-maintain's figure of this run
    ours = json.loads(done.stdout)["results"][0]["read_mb_s"]
    assert ours > 0 and abs(ours - theirs) <= 0.05 + 1 / 1024, (ours, theirs)  # foretune rounds to 0.1; bw is whole KiB/s
    assert sorted(p.name for p in data.iterdir()) == []  # fio's file and foretune's work directory are gone
