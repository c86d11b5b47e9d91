#!/usr/bin/env python3
"""Developer entry point; needs only python3 (>= 3.9), git and a package manager.

    python3 dev.py demo     set up and audit the bundled example sosreport
    python3 dev.py test     set up (incl. fio, PostgreSQL, Chromium) and run lint, types, the golden-commit check and
                            tests (pytest arguments pass through, e.g. -m "not slow" for a quick run)
    python3 dev.py guides   run only the guide-quote checks (pytest -m needs_guides); needs the guide texts
                            (../shared/seeds or FORETUNE_SEEDS); CI's second step after `test` on a plain clone
    python3 dev.py zipapp   build dist/foretune.pyz (runs with a bare python3)
    python3 dev.py docs     regenerate docs/cli-reference.md, the man page docs/foretune.1 and docs/rules/
    python3 dev.py lab      start the lab (Apache, Puma, PostgreSQL, mosquitto on 127.0.0.1) for `foretune load`
    python3 dev.py fuzz N   run N (default 10,000) generated hostile inputs; print crashes, hangs, memory, leaks
"""

from __future__ import annotations

import glob
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / "bin"

# executable -> (Debian package, RHEL package)
SYSTEM_TOOLS = {
    "fio": ("fio", "fio"),
    "initdb": ("postgresql", "postgresql-server"),
    "pgbench": ("postgresql-contrib", "postgresql-contrib"),
    "chromium": ("chromium", "chromium"),
    "xz": ("xz-utils", "xz"),
    "pigz": ("pigz", "pigz"),  # a .tar.gz's decoder on other cores (tests/facts/test_decoders.py runs it)
    "pdftotext": ("poppler-utils", "poppler-utils"),
    # the lab behind `foretune load`'s tests (tests/support/lab): Apache, Debian's Puma and mosquitto
    "apache2": ("apache2", "httpd"),
    "puma": ("puma", "rubygem-puma"),
    "mosquitto": ("mosquitto", "mosquitto"),
    "openssl": ("openssl", "openssl"),
}
# Ruby libraries the lab's Rack app loads (Debian package -> what `ruby -e 'require ...'` needs)
LAB_RUBY = {"ruby-activerecord": "active_record", "ruby-pg": "pg", "ruby-rack": "rack"}

# Pure-Python libraries bundled into the zipapp (import name -> directory in site-packages).
# Their optional C extensions (*.so) are left out: each has a pure-Python fallback.
BUNDLED = ("yaml", "shtab", "rich", "markdown_it", "mdurl", "pygments", "jinja2", "markupsafe", "ruamel", "simpy")

SOURCE_DATA = ("foretune/facts/collector_template.py", "foretune/host/redact.py")  # zipapp: .py files read as data
LINTED = ("src", "tests", "bench", "tools", "dev.py")
DEMO = [["audit", "examples/sosreport-satellite-6.15-mistuned"]]


def sh(*argv: str | Path, check: bool = True, **kw: object) -> int:
    print("+", " ".join(str(a) for a in argv), flush=True)
    return subprocess.run([str(a) for a in argv], check=check, cwd=ROOT, **kw).returncode  # type: ignore[call-overload]


def have(tool: str) -> bool:
    if shutil.which(tool):
        return True
    return bool(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}") or glob.glob(f"/usr/pgsql-*/bin/{tool}"))


def ensure_venv(extras: str = "") -> None:
    venv_missing = not (BIN / "python").exists()
    if venv_missing and subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=False).returncode != 0:
        install_system(["python3-venv"], ["python3"])
        sh(sys.executable, "-m", "venv", VENV)
    stamp = VENV / f".installed{extras}"
    inputs = max((ROOT / "pyproject.toml").stat().st_mtime, (ROOT / "dev.py").stat().st_mtime)
    if not stamp.exists() or stamp.stat().st_mtime < inputs:
        sh(BIN / "python", "-m", "pip", "install", "-q", "--upgrade", "pip")
        sh(BIN / "python", "-m", "pip", "install", "-q", "-e", f".{extras}")
        stamp.touch()
    # the bundled knowledge as JSON (git-ignored; foretune falls back to the YAML when it is stale)
    subprocess.run([str(BIN / "python"), str(ROOT / "tools" / "compile_knowledge.py")], check=True)


def install_system(debian: list[str], rhel: list[str]) -> None:
    sudo = [] if os.geteuid() == 0 else (["sudo", "-n"] if shutil.which("sudo") else None)
    if sudo is None:
        print(f"cannot install {', '.join(debian)}: not root and no sudo", file=sys.stderr)
        return
    if shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([*sudo, "apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run([*sudo, "apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y", "-qq",
                        *debian], check=True, env=env)
    elif shutil.which("dnf"):
        subprocess.run([*sudo, "dnf", "install", "-y", "-q", *rhel], check=True)
    else:
        print(f"no apt-get or dnf: install {', '.join(rhel)} yourself", file=sys.stderr)


def ensure_system_tools() -> None:
    missing = [tool for tool in SYSTEM_TOOLS if not have(tool)]
    if shutil.which("apt-get"):
        ruby = shutil.which("ruby")
        debian = [pkg for pkg, lib in LAB_RUBY.items()
                  if not ruby or subprocess.run([ruby, "-e", f"require '{lib}'"], capture_output=True, check=False).returncode]
        if debian:
            install_system(debian, [])
    if missing:
        install_system([SYSTEM_TOOLS[t][0] for t in missing], [SYSTEM_TOOLS[t][1] for t in missing])


def find_oldest_python() -> str | None:
    """A working Python 3.9 (the oldest supported), if this machine has one."""
    candidates = [shutil.which("python3.9") or "", *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3.9")))]
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 9)"],
                          check=False, capture_output=True).returncode == 0:
            return candidate
    return None




def build_zipapp(out: Path = ROOT / "dist" / "foretune.pyz", python: Path | str = BIN / "python") -> Path:
    """Bundle foretune and the pure-Python ``BUNDLED`` packages (from ``python``'s site-packages) into one file.

    Its __main__.py is tools/zipapp_main.py, which refuses an unsupported Python in one line. The
    knowledge data is compiled to JSON and every module to bytecode for ``python``'s version
    (unchecked-hash .pyc beside where each .py would be, stored: inflating costs more than reading).
    The sources are one member, ``sources.zip``, so that the directory Python parses at every start
    lists only bytecode and data; __main__.py's importer compiles them on another Python version.
    ``SOURCE_DATA`` are read as data too and stay members of their own.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.pyc", "*.c", "*.pyi", "py.typed")
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        shutil.copytree(ROOT / "src" / "foretune", stage / "foretune", ignore=skip)
        code = ("import importlib, os, sys\n"
                "for name in sys.argv[1:]:\n"
                "    module = importlib.import_module(name if name != 'ruamel' else 'ruamel.yaml')\n"
                "    print(os.path.dirname(module.__file__) if name != 'ruamel' else os.path.dirname(os.path.dirname(module.__file__)))\n")
        sites = subprocess.run([str(python), "-c", code, *BUNDLED], check=True, capture_output=True, text=True).stdout.split()
        for name, site in zip(BUNDLED, sites):
            shutil.copytree(site, stage / name, ignore=skip)
        subprocess.run([str(python), str(ROOT / "tools" / "compile_knowledge.py"), "--out",
                        str(stage / "foretune" / "knowledge" / "data" / "compiled.json")], check=True)
        subprocess.run([str(python), "-c", "import compileall, py_compile, sys; sys.exit(not compileall.compile_dir("
                        "sys.argv[1], quiet=1, legacy=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH))",
                        str(stage)], check=True)
        sources = sorted(p for p in stage.rglob("*.py") if p.relative_to(stage).as_posix() not in SOURCE_DATA)
        with zipfile.ZipFile(stage / "sources.zip", "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sources:
                archive.write(path, path.relative_to(stage).as_posix())
                path.unlink()
        shutil.copy(ROOT / "tools" / "zipapp_main.py", stage / "__main__.py")  # after compiling: source only, any Python
        with out.open("wb") as handle:
            handle.write(b"#!/usr/bin/env python3\n")
            with zipfile.ZipFile(handle, "w") as archive:  # files only: a directory entry is parsed at every start too
                for path in sorted(p for p in stage.rglob("*") if p.is_file()):
                    name = path.relative_to(stage).as_posix()
                    archive.write(path, name, zipfile.ZIP_STORED if name.endswith(".pyc") else zipfile.ZIP_DEFLATED)
        out.chmod(out.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    print(f"built {out} ({out.stat().st_size // 1024} KiB)")
    return out


def cmd_demo() -> int:
    ensure_venv()
    status = 0
    for argv in DEMO:
        status = max(status, sh(BIN / "foretune", *argv, check=False))
    # audit exits 1 when it finds problems, which is the point of the demo
    if status in (0, 1):
        print("\nforetune is installed in .venv; to run it by name in this shell:  . .venv/bin/activate", file=sys.stderr)
        return 0
    return status


def cmd_test() -> int:
    ensure_system_tools()
    ensure_venv("[dev]")
    sh(BIN / "ruff", "check", *[p for p in LINTED if (ROOT / p).exists()])
    sh(BIN / "mypy")
    sh(BIN / "lint-imports", "--no-cache")  # the layers contract in pyproject.toml: no import runs upward
    sh(BIN / "python", "tools/gen_docs.py", "--check")
    sh(sys.executable, "tools/check_goldens.py")
    pyz = build_zipapp()
    sh(sys.executable, pyz, "--version")
    oldest = find_oldest_python()
    if oldest:
        smoke_plan(oldest, pyz)
    if not guide_texts_present():
        print(GUIDES_ABSENT, flush=True)
    return sh(BIN / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *sys.argv[2:], check=False)


GUIDES_ABSENT = "guide-quote checks not run: guide texts absent; see docs/development.md"


def cmd_guides() -> int:
    """The tests that need the guide texts, alone; refused in one line where the texts are absent."""
    if not guide_texts_present():
        print("dev.py guides: the guide texts are absent (../shared/seeds, or set FORETUNE_SEEDS); see docs/development.md",
              file=sys.stderr)
        return 2
    ensure_venv("[dev]")
    return sh(BIN / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "needs_guides", *sys.argv[2:],
              check=False)


def guide_texts_present() -> bool:
    """Whether the vendor guide texts the citation tests compare quotes with are beside the repository."""
    sys.path.insert(0, str(ROOT))
    try:
        from tests.support import seeds
    finally:
        sys.path.remove(str(ROOT))
    return seeds.required()


def smoke_plan(python: str, pyz: Path) -> None:
    """Run a plan with the zipapp on ``python``; one line, not the plan table (which the plan tests read)."""
    argv = [python, str(pyz), "plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8", "--ram", "32G"]
    print("+", " ".join(argv), "> (table)", flush=True)
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0 or "Puma" not in done.stdout:
        print(done.stdout[-2000:] + done.stderr[-2000:], file=sys.stderr)
        raise subprocess.CalledProcessError(done.returncode or 1, argv)
    print(f"zipapp plan on {Path(python).name}: exit {done.returncode}, {len(done.stdout.splitlines())} lines", flush=True)


def cmd_zipapp() -> int:
    ensure_venv()
    build_zipapp()
    return 0


def cmd_docs() -> int:
    ensure_venv("[dev]")
    return sh(BIN / "python", "tools/gen_docs.py", check=False)


def cmd_lab() -> int:
    ensure_system_tools()
    ensure_venv("[dev]")
    return sh(BIN / "python", "-m", "tests.support.lab", check=False)


def cmd_fuzz() -> int:
    ensure_venv("[dev]")
    return sh(BIN / "python", "-m", "tests.corpus.fuzz", *sys.argv[2:], check=False)


def main() -> int:
    commands = {"demo": cmd_demo, "test": cmd_test, "zipapp": cmd_zipapp, "docs": cmd_docs, "lab": cmd_lab, "guides": cmd_guides,
                "fuzz": cmd_fuzz}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    try:
        return commands[sys.argv[1]]()
    except subprocess.CalledProcessError as exc:
        print(f"dev.py: step failed with exit status {exc.returncode}", file=sys.stderr)
        return exc.returncode or 1


if __name__ == "__main__":
    sys.exit(main())
