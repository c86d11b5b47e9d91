"""`foretune load` runs in a child process (Locust monkey-patches the standard library for gevent), against
the lab (tests/support/lab) or a listener of the test's own; loopback only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import REPO
from tests.support.lab import Lab

LOOPBACK_ONLY = {"FORETUNE_LOAD_LOOPBACK_ONLY": "1"}


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str

    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)  # type: ignore[no-any-return]

    def step(self, name: str, level: int | None = None) -> dict[str, Any]:
        doc = self.json()
        steps = doc["steps"] if level is None else doc["levels"][level]["steps"]
        return next(s for s in steps if s["name"] == name)


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("FORETUNE_LOAD_")}
    return {**base, **LOOPBACK_ONLY, "PYTHONPATH": str(REPO / "src"), **(extra or {})}


def load(*argv: str, env: dict[str, str] | None = None, timeout: float = 90) -> Run:
    """``foretune load ARGV`` in a child process; its exit status and streams."""
    proc = subprocess.run([sys.executable, "-m", "foretune", "load", *argv], capture_output=True, text=True,
                          env=child_env(env), timeout=timeout, stdin=subprocess.DEVNULL, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def registration_args(lab: Lab, *more: str) -> list[str]:
    return ["registration", "--target", lab.url, "--organization", "Lab", "--organization-id", "1", "--activation-key", "lab-key",
            "--profile-packages", "100", "--yes", "--format", "json", *more]


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    """The lab with its defaults, shared by a module's tests."""
    with Lab() as running:
        yield running
