"""The single-file zipapp runs with a bare python3 and reads its bundled data from inside the archive."""

from __future__ import annotations

import json
import subprocess
import sys
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
