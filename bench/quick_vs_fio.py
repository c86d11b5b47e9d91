"""Print foretune's ``bench storage --quick`` figure next to the same fio command run directly.

foreman-maintain runs ``fio --name=job1 --rw=read --size=1g --output-format=json --directory=DIR
--direct=1 --unlink=1`` and reports ``jobs[0].read.bw / 1024`` as MB/sec. This script alternates
that command with ``foretune bench storage --quick --size SIZE --json DIR`` for a few rounds and
prints every figure. Each round's two runs happen back to back, so each round is one pair: the
verdict is the median of the per-round ratios foretune / fio, which a busy machine slowing down
whole rounds does not disturb. It exits 1 when that median ratio is more than --tolerance away
from 1.

usage: python3 bench/quick_vs_fio.py [--size 64m] [--rounds 3] [--tolerance 0.10] [DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def foretune_quick(directory: str, size: str) -> float:
    argv = [sys.executable, "-m", "foretune", "bench", "storage", "--quick", "--size", size, "--json", directory]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env={"PYTHONPATH": str(SRC), "PATH": "/usr/local/bin:/usr/bin:/bin"})
    if done.returncode not in (0, 1):
        raise SystemExit(f"foretune failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    return float(doc["results"][0]["read_mb_s"])


def fio_direct(directory: str, size: str) -> float:
    work = tempfile.mkdtemp(prefix="quick-vs-fio-", dir=directory)
    try:
        argv = ["fio", "--name=job1", "--rw=read", f"--size={size}", "--output-format=json", f"--directory={work}",
                "--direct=1", "--unlink=1"]
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        text = done.stdout[done.stdout.index("{"):]
        return float(json.loads(text)["jobs"][0]["read"]["bw"]) / 1024  # foreman-maintain's arithmetic
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", nargs="?", default=None)
    parser.add_argument("--size", default="64m")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tolerance", type=float, default=0.10)
    args = parser.parse_args()
    directory = args.directory or tempfile.mkdtemp(prefix="quick-vs-fio-")
    print(f"directory {directory}, size {args.size}, {args.rounds} rounds (alternating)")
    ours, theirs = [], []
    for number in range(1, args.rounds + 1):  # who goes first alternates, so neither gets a warmer disk
        if number % 2:
            ours.append(foretune_quick(directory, args.size))
            theirs.append(fio_direct(directory, args.size))
        else:
            theirs.append(fio_direct(directory, args.size))
            ours.append(foretune_quick(directory, args.size))
        print(f"round {number}: foretune --quick {ours[-1]:8.1f} MB/s   fio directly {theirs[-1]:8.1f} MB/s   "
              f"ratio {ours[-1] / theirs[-1]:.3f}")
    ratio = statistics.median(a / b for a, b in zip(ours, theirs))
    diff = abs(ratio - 1)
    print(f"median ratio foretune/fio over {args.rounds} rounds: {ratio:.3f}, difference {diff * 100:.1f} %")
    if args.directory is None:
        shutil.rmtree(directory, ignore_errors=True)
    return 0 if diff <= args.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
