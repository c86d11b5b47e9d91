"""Time `foretune logs` against GoAccess and `wc -l` on 1 GB logs, side by side, in one run.

Writes (once) a production.log and an Apache access log of --size-mb each with bench/gen_logs.py,
then runs on each: ``wc -l``, ``foretune logs FILE --format json`` with one process and with
--jobs processes, and (access log) ``goaccess FILE --log-format=COMBINED -o OUT.json``. GoAccess is
installed with apt-get when missing (as root). Prints seconds, MB/s, lines/s, the ratio to
``wc -l`` and peak memory of each, and checks the targets: access log at least GoAccess's
throughput and within 3x of ``wc -l``; production.log within 4x of ``wc -l``.

    python3 bench/logs_speed.py [--size-mb 1024] [--dir /var/tmp/foretune-logs-bench] [--jobs 2] [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int, float]:
    """(wall seconds, peak RSS MiB, exit status, CPU seconds of it and its workers) of one command, output discarded."""
    import tempfile

    with tempfile.TemporaryFile() as errors:  # a pipe could fill up and stall the tool (GoAccess writes progress)
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errors.seek(0)
            sys.stderr.write(errors.read().decode("utf-8", "replace")[-400:])
    # ru_maxrss of wait4 is this child's peak (KiB on Linux); for a process pool it is the parent's only
    return elapsed, usage.ru_maxrss / 1024, proc.returncode, usage.ru_utime + usage.ru_stime


def best(runs: int, argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int, float]:
    results = [timed(argv, env) for _ in range(runs)]
    return min(results, key=lambda r: r[0])


def ensure_goaccess() -> str | None:
    found = shutil.which("goaccess")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "goaccess"], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elif os.geteuid() == 0 and shutil.which("dnf"):
        subprocess.run(["dnf", "install", "-y", "goaccess"], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return shutil.which("goaccess")


def generate(kind: str, path: Path, size_mb: int) -> None:
    if path.exists() and path.stat().st_size >= size_mb * 1024 * 1024:
        return
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_logs.py"), "--kind", kind, "--size-mb", str(size_mb), str(path)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp/foretune-logs-bench"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    files = {"access": args.dir / "foreman-ssl_access_ssl.log", "production": args.dir / "production.log"}
    for kind, path in files.items():
        generate(kind, path, args.size_mb)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    foretune = [sys.executable, "-m", "foretune", "logs"]
    goaccess = ensure_goaccess()
    ok = True
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, best of {args.runs}, "
          f"load average {os.getloadavg()[0]:.1f} at the start (other work on the machine slows every tool alike)")
    for kind, path in files.items():
        size = path.stat().st_size / 1048576
        lines = int(subprocess.run(["wc", "-l", str(path)], capture_output=True, text=True, check=True).stdout.split()[0])
        print(f"\n{path.name}: {size:,.0f} MiB, {lines:,} lines")
        print(f"  {'tool':<34} {'seconds':>8} {'CPU s':>8} {'MiB/s':>8} {'lines/s':>11} {'x wc -l':>8} {'peak MiB':>9}")
        rows: dict[str, float] = {}

        def show(label: str, result: tuple[float, float, int, float], rows: dict[str, float] = rows, size: float = size,
                 lines: int = lines) -> None:
            seconds, rss, code, cpu = result
            rows[label] = seconds
            ratio = seconds / rows["wc -l"] if "wc -l" in rows else 1.0
            flag = "" if code == 0 else f"  (exit {code})"
            print(f"  {label:<34} {seconds:8.2f} {cpu:8.2f} {size / seconds:8.1f} {lines / seconds:11,.0f} {ratio:8.1f} {rss:9.0f}{flag}")

        show("wc -l", best(args.runs, ["wc", "-l", str(path)]))
        show("foretune logs (1 process)", best(args.runs, [*foretune, str(path), "--jobs", "1", "--format", "json"], env))
        show(f"foretune logs ({args.jobs} processes)", best(args.runs, [*foretune, str(path), "--jobs", str(args.jobs), "--format", "json"], env))
        fastest = min(v for k, v in rows.items() if k.startswith("foretune"))
        if kind == "access":
            if goaccess:
                out = args.dir / "goaccess.json"
                show("goaccess --log-format=COMBINED", best(args.runs, [goaccess, str(path), "--log-format=COMBINED", "--no-progress", "-o", str(out)]))
                verdict = fastest <= rows["goaccess --log-format=COMBINED"]
                ok &= verdict
                print(f"  target: at least GoAccess's throughput: {'met' if verdict else 'NOT met'}")
            else:
                print("  goaccess: not installed and could not be installed (run as root with apt-get or dnf)")
            limit = 3.0
        else:
            limit = 4.0
        verdict = fastest <= limit * rows["wc -l"]
        ok &= verdict
        print(f"  target: within {limit:.0f}x of wc -l: {'met' if verdict else 'NOT met'} ({fastest / rows['wc -l']:.1f}x)")
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
