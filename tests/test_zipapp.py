"""The single-file zipapp runs with a bare python3 and reads its bundled data from inside the archive."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

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
    assert html.stdout.startswith("<!DOCTYPE html>") and html.stdout.count('<svg class="chart"') == 3
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
    listing = {name.split("/")[0] for name in zipfile.ZipFile(pyz).namelist()}
    assert {"rich", "markdown_it", "mdurl", "pygments", "jinja2", "markupsafe", "ruamel", "yaml"} <= listing
    assert not [n for n in zipfile.ZipFile(pyz).namelist() if n.endswith(".so")]  # pure Python only
