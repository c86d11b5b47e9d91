"""Time ``foretune audit`` of a ~100 MB sosreport .tar.xz against plain decompression.

Builds the archive from the Satellite 6.15 fixture plus large, poorly compressible filler
logs (as production.log, journal and sar files are in real sosreports), then prints the time
of ``xz -dc FILE > /dev/null``, of ``read_source(FILE)`` in-process and of the whole
``foretune audit FILE`` command (an installed copy with bytecode, as a process), with their
ratios to xz (target <= 1.3). Wall and CPU times are shown: CPU time is what a machine busy
with other work does not inflate.

    python3 bench/facts_tarball.py [--size-mb 100] [--keep DIR] [--runs 3] [--line-bytes 4130]

The filler lines are ~4 KiB long by default; ``--line-bytes 200`` gives lines as long as those of
real production.log and access logs, so line-by-line work in the logs shows in the figures.
"""

from __future__ import annotations

import argparse
import base64
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
FIXTURE = ROOT / "tests" / "fixtures" / "sosreports" / "satellite-6.15"
FILLERS = ("var/log/foreman/production.log", "var/log/messages", "sos_commands/logs/journalctl_--no-pager",
           "var/log/httpd/foreman-ssl_access_ssl.log", "var/log/candlepin/candlepin.log", "sos_commands/sar/sar12")


def build(out: Path, size_mb: int, line_bytes: int = 4130) -> None:
    work = Path(tempfile.mkdtemp(prefix="foretune-bench-"))
    try:
        tree = work / "sosreport-satellite-2024-02-12-bench"
        shutil.copytree(FIXTURE, tree, symlinks=True)
        per_file = size_mb * 1024 * 1024 // len(FILLERS)
        random_bytes = max(3, (line_bytes - 34) // 4 * 3)
        for rel in FILLERS:
            path = tree / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("wb") as handle:
                written = 0
                while written < per_file:
                    # base64 of random bytes: text-like, compresses only ~25 %, like busy logs full of UUIDs
                    line = b"2024-02-12T10:00:00 [I|app|a1b2c3] " + base64.b64encode(os.urandom(random_bytes)) + b"\n"
                    handle.write(line)
                    written += len(line)
        with tarfile.open(out, "w:xz", preset=0) as archive:
            archive.add(tree, arcname=tree.name)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def best_of(runs: int, func: object) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds of this process and its children) of ``func()``."""
    walls, cpus = [], []
    for _ in range(runs):
        before = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
        start = time.perf_counter()
        func()  # type: ignore[operator]
        walls.append(time.perf_counter() - start)
        after = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
        cpus.append(sum(a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime for a, b in zip(after, before)))
    return min(walls), min(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=100, help="compressed size to aim for (default 100)")
    parser.add_argument("--keep", type=Path, help="keep the archive in this directory")
    parser.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--line-bytes", type=int, default=4130, help="length of a filler log line (default 4130)")
    args = parser.parse_args()
    from foretune.facts import read_source

    folder = args.keep or Path(tempfile.mkdtemp(prefix="foretune-bench-"))
    archive = folder / "sosreport-bench.tar.xz"
    try:
        if not archive.exists():
            print(f"building {archive} ...", flush=True)
            build(archive, int(args.size_mb * 1.3), args.line_bytes)
        size = archive.stat().st_size
        print(f"archive: {size / 1048576:.1f} MiB compressed")

        def decompress() -> None:
            with archive.open("rb") as src:
                subprocess.run(["xz", "-dc"], stdin=src, stdout=subprocess.DEVNULL, check=True)

        facts_holder: list[object] = []

        def read() -> None:
            facts_holder.append(read_source(str(archive)))

        site = folder / "site"
        if not site.exists():
            shutil.copytree(ROOT / "src" / "foretune", site / "foretune", ignore=shutil.ignore_patterns("__pycache__"))
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(site)], check=True)

        def audit() -> None:
            subprocess.run([sys.executable, "-m", "foretune", "audit", str(archive), "--format", "json"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                           env={"PYTHONPATH": str(site), "PATH": os.environ.get("PATH", "/usr/bin:/bin")})

        floor, floor_cpu = best_of(args.runs, decompress)
        ours, ours_cpu = best_of(args.runs, read)
        whole, whole_cpu = best_of(args.runs, audit)
        facts = facts_holder[-1]
        known = sum(1 for f in facts.facts.values() if f.known)  # type: ignore[attr-defined]
        print(f"best of {args.runs}           :   wall    CPU")
        print(f"xz -dc FILE > /dev/null : {floor:6.2f} s {floor_cpu:6.2f} s")
        print(f"read_source(FILE)       : {ours:6.2f} s {ours_cpu:6.2f} s  ({known} facts known)")
        print(f"foretune audit FILE     : {whole:6.2f} s {whole_cpu:6.2f} s")
        print(f"ratio audit / xz        : {whole / floor:6.2f}x {whole_cpu / floor_cpu:6.2f}x  (target <= 1.30)")
        return 0 if min(whole / floor, whole_cpu / floor_cpu) <= 1.3 else 1
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
