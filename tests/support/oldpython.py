"""Old Python interpreters on this machine (system or pyenv), for running the collector and the zipapp guard."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess


def find(version: str) -> str | None:
    """A working ``python<version>`` (e.g. "2.7", "3.6"), or None when this machine has none."""
    name = f"python{version}"
    candidates = [shutil.which(name) or "", *sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}*/bin/{name}")))]
    for candidate in filter(None, candidates):
        check = f"import sys; assert sys.version_info[:2] == ({version.replace('.', ', ')})"
        if subprocess.run([candidate, "-c", check], capture_output=True, check=False).returncode == 0:
            return candidate
    return None
