"""Audit of a small sosreport by foretune against insights-core parsing the same files.

Installs insights-core into a temporary virtual environment (never a foretune dependency), then
times, as separate processes and best of N runs each:

- ``foretune audit SOSREPORT --format json`` (the installed copy of this checkout, with bytecode);
- a Python process that imports insights-core and runs its parsers for the files foretune reads
  (meminfo, lscpu, installed-rpms, sysctl, mounts, df, tuned, THP, httpd, PostgreSQL, ...)
  over the same sosreport directory.

    python3 bench/insights_compare.py [--runs 5] [--sosreport DIR] [--keep-venv DIR]

Target (issue: fast on small inputs): foretune at least 5x faster.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "sosreports" / "satellite-6.15"
INSIGHTS_PARSERS = (
    "insights.parsers.meminfo.MemInfo", "insights.parsers.lscpu.LsCPU", "insights.parsers.installed_rpms.InstalledRpms",
    "insights.parsers.sysctl.Sysctl", "insights.parsers.mount.ProcMounts", "insights.parsers.df.DiskFree_AL",
    "insights.parsers.tuned.Tuned", "insights.parsers.transparent_hugepage.ThpEnabled",
    "insights.parsers.transparent_hugepage.ThpDefrag", "insights.parsers.httpd_conf.HttpdConf",
    "insights.parsers.postgresql_conf.PostgreSQLConf", "insights.parsers.redis_conf.RedisConf",
    "insights.parsers.systemd.config.SystemdSystemConf", "insights.parsers.lsblk.LSBlockPairs",
    "insights.parsers.foreman_tasks_config.ForemanTasksConfig", "insights.parsers.tomcat_xml.TomcatServerXml",
    "insights.parsers.systemctl_show.SystemctlShowServiceAll", "insights.parsers.hostname.Hostname",
)
INSIGHTS_SCRIPT = """
import importlib, sys
from insights import run
import insights.specs.sos_archive  # the sosreport file layout
components = []
for dotted in sys.argv[2:]:
    module, _, name = dotted.rpartition(".")
    try:
        components.append(getattr(importlib.import_module(module), name))
    except (ImportError, AttributeError):
        pass
broker = run(components, root=sys.argv[1])
print(sum(1 for c in components if c in broker), "of", len(components), "parsers produced a result")
"""


def best_of(runs: int, argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(best wall seconds, best CPU seconds of the child, last line of its output)."""
    walls, cpus, out = [], [], ""
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip()[-200:]
    return min(walls), min(cpus), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sosreport", type=Path, default=FIXTURE)
    parser.add_argument("--keep-venv", type=Path, help="reuse/keep the insights-core virtual environment here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="foretune-insights-"))
    venv = args.keep_venv or work / "venv"
    try:
        if not (venv / "bin" / "python").exists():
            print(f"installing insights-core into {venv} ...", flush=True)
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "insights-core"], check=True)
        version = subprocess.run([str(venv / "bin" / "python"), "-c", "import importlib.metadata as m; print(m.version('insights-core'))"],
                                 capture_output=True, text=True, check=False).stdout.strip()
        # an installed copy of foretune: the package with its bytecode, as pip leaves it
        site = work / "site"
        shutil.copytree(ROOT / "src" / "foretune", site / "foretune", ignore=shutil.ignore_patterns("__pycache__"))
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(site)], check=True)
        env = {"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"}
        floor, floor_cpu, _ = best_of(args.runs, [sys.executable, "-c", "pass"])
        ours, ours_cpu, _ = best_of(args.runs, [sys.executable, "-m", "foretune", "audit", str(args.sosreport), "--format", "json"], env)
        theirs, theirs_cpu, their_out = best_of(args.runs, [str(venv / "bin" / "python"), "-c", INSIGHTS_SCRIPT,
                                                            str(args.sosreport), *INSIGHTS_PARSERS])
        print(f"sosreport: {args.sosreport}  (best of {args.runs}; wall time, and CPU time which a busy machine does not inflate)")
        print(f"python -c pass                 : {floor * 1000:7.1f} ms wall {floor_cpu * 1000:7.1f} ms CPU")
        print(f"foretune audit (installed copy): {ours * 1000:7.1f} ms wall {ours_cpu * 1000:7.1f} ms CPU")
        print(f"insights-core {version:<8} parsers : {theirs * 1000:7.1f} ms wall {theirs_cpu * 1000:7.1f} ms CPU  ({their_out})")
        print(f"insights-core / foretune       : {theirs / ours:7.1f}x wall {theirs_cpu / max(ours_cpu, 1e-6):7.1f}x CPU  (target >= 5)")
        return 0 if theirs_cpu / max(ours_cpu, 1e-6) >= 5 else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
