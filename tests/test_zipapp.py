"""The single-file zipapp runs with a bare python3 and reads its bundled data from inside the archive."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


def test_zipapp_plans_from_bundled_data(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO))
    try:
        import dev
    finally:
        sys.path.pop(0)
    pyz = dev.build_zipapp(tmp_path / "foretune.pyz", sys.executable)
    run = [sys.executable, "-I", str(pyz)]  # -I: no site-packages, no PYTHONPATH: only the archive
    version = subprocess.run([*run, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("foretune ")
    done = subprocess.run([*run, "plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000",
                           "--cpus", "8", "--ram", "32G", "--format", "json"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["profile"]["name"] == "medium"
    # the bundled pure-Python libraries work from inside the archive: rich (tables, colour), jinja2 with
    # templates read through importlib.resources, ruamel.yaml for --merge-into
    example = str(REPO / "examples" / "sosreport-satellite-6.15-mistuned")
    html = subprocess.run([*run, "audit", example, "--format", "html"], capture_output=True, text=True)
    assert html.returncode == 1, html.stderr
    assert html.stdout.startswith("<!DOCTYPE html>") and html.stdout.count('<svg class="chart"') == 3  # memory (one figure), connections, findings
    table = subprocess.run([*run, "plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8",
                            "--ram", "32G", "--color", "always"], capture_output=True, text=True, check=True)
    assert "\x1b[" in table.stdout and "PostgreSQL connection budget" in table.stdout
    explained = subprocess.run([*run, "rules", "explain", "pg-max-connections-below-budget"], capture_output=True,
                               text=True, check=True, env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    assert "Why it matters" in explained.stdout and "## Why" not in explained.stdout
    hiera = Path(tmp_path / "custom-hiera.yaml")
    hiera.write_text("# keep me\nfoo: &a 1\nbar: *a\n", encoding="utf-8")
    merged = subprocess.run([*run, "render", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8",
                             "--ram", "32G", "--merge-into", str(hiera), "--write"], capture_output=True, text=True)
    assert merged.returncode == 0, merged.stderr
    assert hiera.read_text(encoding="utf-8").startswith("# keep me\nfoo: &a 1\nbar: *a\n")
    # the knowledge is read through the zip importer's directory, parsed once, and from compiled.json alone:
    # importlib.resources would parse the archive's directory (thousands of entries) again for every data file
    probe = ("import sys, runpy; sys.argv = ['foretune', 'plan', '--product', 'satellite', '--version', '6.15', "
             "'--hosts', '8000', '--cpus', '8', '--ram', '32G', '--format', 'json']\n"
             "try:\n    runpy.run_module('foretune', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write(' '.join(m for m in ('zipfile', 'importlib.resources', 'yaml') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(pyz)!r})\n{probe}"],
                            capture_output=True, text=True, check=True)
    assert json.loads(loaded.stdout)["profile"]["name"] == "medium" and loaded.stderr == "", loaded.stderr
    listing = {name.split("/")[0] for name in zipfile.ZipFile(pyz).namelist()}
    assert {"rich", "markdown_it", "mdurl", "pygments", "jinja2", "markupsafe", "ruamel", "yaml"} <= listing
    assert not [n for n in zipfile.ZipFile(pyz).namelist() if n.endswith(".so")]  # pure Python only


ENTRY = REPO / "tools" / "zipapp_main.py"


def vermin(path: Path) -> subprocess.CompletedProcess[str]:
    """vermin (from PyPI): exit 0 when ``path`` needs nothing newer than Python 2.7 and 3.6."""
    return subprocess.run([sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())", "-t=2.7-", "-t=3.6-",
                           "--violations", "--no-tips", str(path)], capture_output=True, text=True, check=False)


def test_zipapp_entry_needs_nothing_newer_than_python_2_7_and_3_6() -> None:
    import ast

    done = vermin(ENTRY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert vermin(REPO / "src" / "foretune" / "cli.py").returncode != 0  # vermin does reject the modern code
    ast.parse(ENTRY.read_text(encoding="utf-8"), feature_version=(3, 6))  # SyntaxError if it used newer syntax
    with pytest.raises(SyntaxError):  # the check has teeth: the real CLI module does not parse as 3.6
        ast.parse((REPO / "src" / "foretune" / "facts" / "extract" / "platform.py").read_text(encoding="utf-8")
                  + "\nif (n := 1):\n    pass\n", feature_version=(3, 6))


@pytest.mark.parametrize("version", [(2, 7, 5), (3, 6, 8), (3, 8, 18)])
def test_zipapp_refuses_an_old_python_in_one_line(tmp_path: Path, version: tuple[int, int, int]) -> None:
    import zipfile

    pyz = _build(tmp_path)
    with zipfile.ZipFile(pyz) as archive:
        assert archive.read("__main__.py").decode("utf-8") == ENTRY.read_text(encoding="utf-8")
    # Run the archive's own __main__ as that interpreter would reach it: sys.version_info says `version`.
    code = (f"import runpy, sys; sys.version_info = {(*version, 'final', 0)!r}; sys.argv = [{str(pyz)!r}, '--version']; "
            f"runpy.run_path({str(pyz)!r}, run_name='__main__')")
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"foretune: error: needs Python 3.9 or newer, this is Python {version[0]}.{version[1]} (")
    # it cannot run `foretune collector` itself: it says where to make the collector and what to do with it
    assert lines[0].endswith("make the collector on a machine that has one (`python3 foretune.pyz collector > "
                             "foretune-collect.py`), run it here with this Python and audit its snapshot there")


def _build(tmp_path: Path) -> Path:
    sys.path.insert(0, str(REPO))
    try:
        import dev
    finally:
        sys.path.pop(0)
    return Path(dev.build_zipapp(tmp_path / "foretune.pyz", sys.executable))


def test_zipapp_completion_and_collector_work_from_the_archive(tmp_path: Path) -> None:
    pyz = _build(tmp_path)
    done = subprocess.run([sys.executable, "-I", str(pyz), "completion", "bash"], capture_output=True, text=True, check=True)
    assert "_shtab_foretune_plan_option_strings" in done.stdout
    collector = subprocess.run([sys.executable, "-I", str(pyz), "collector"], capture_output=True, text=True, check=True)
    from foretune.facts.collector import generate

    assert collector.stdout == generate()  # the template and tables are read from inside the archive


@pytest.mark.parametrize("version", ["2.7", "3.6", "3.8"])
def test_zipapp_refuses_a_real_old_python_in_one_line(tmp_path: Path, version: str) -> None:
    """The same with the interpreter itself, where this machine has it (e.g. through pyenv)."""
    from tests.support import oldpython

    python = oldpython.find(version)
    if python is None:
        pytest.skip(f"no python{version} on this machine; the simulated check above still holds")
    pyz = _build(tmp_path)
    for argv in (["--version"], ["plan", "--help"], []):
        done = subprocess.run([python, str(pyz), *argv], capture_output=True, text=True, check=False)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith(f"foretune: error: needs Python 3.9 or newer, this is Python {version} (")


@pytest.mark.parametrize("version", ["3.9", "3.13"])
def test_zipapp_runs_its_sources_on_another_python(tmp_path: Path, version: str) -> None:
    """The directory Python parses at every start lists bytecode and data only; a Python whose bytecode differs from
    the build's compiles the sources (one member), and a traceback on the build's Python still shows their lines."""
    from tests.support import oldpython

    pyz = _build(tmp_path)
    names = zipfile.ZipFile(pyz).namelist()
    assert not [n for n in names if n.endswith("/")]
    assert sorted(n for n in names if n.endswith(".py")) == ["__main__.py", "foretune/facts/collector_template.py",
                                                            "foretune/host/redact.py"]
    assert "foretune/cli.pyc" in names and "sources.zip" in names
    argv = [str(pyz), "plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8", "--ram",
            "32G", "--format", "json"]
    here = subprocess.run([sys.executable, "-I", *argv], capture_output=True, text=True, check=True)
    lines = ("import linecache, runpy, sys\nsys.argv = [sys.argv[1], '--version']\ntry:\n"
             "    runpy.run_path(sys.argv[0], run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "import foretune.cli as cli\nprint(linecache.getline(cli.__file__, 1, cli.__dict__), end='')")
    first = subprocess.run([sys.executable, "-I", "-c", lines, str(pyz)], capture_output=True, text=True, check=True)
    assert first.stdout.endswith('"""Command-line entry point.\n'), first.stdout
    python = oldpython.find(version)
    if python is None or f"{sys.version_info[0]}.{sys.version_info[1]}" == version:
        pytest.skip(f"no other python{version} on this machine")
    there = subprocess.run([python, "-I", *argv], capture_output=True, text=True, check=True)
    assert json.loads(there.stdout) == json.loads(here.stdout)


def test_sources_read_as_data_stay_members() -> None:
    """A .py file the code reads as data (importlib.resources) is named in dev.py's SOURCE_DATA, so that the zipapp
    keeps it as a member of its own (its other sources are in one member, sources.zip)."""
    import re

    sys.path.insert(0, str(REPO))
    try:
        import dev
    finally:
        sys.path.pop(0)
    found = set()
    for path in (REPO / "src" / "foretune").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for package, name in re.findall(r'resources\.files\("([\w.]+)"\)\.joinpath\("(\w+\.py)"\)', text):
            found.add(package.replace(".", "/") + "/" + name)
    assert found and found == set(dev.SOURCE_DATA)
