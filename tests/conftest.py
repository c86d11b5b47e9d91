"""Shared fixtures: a CLI runner with an injected Environment, and a real PostgreSQL cluster."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from foretune.cli import main
from foretune.env import Environment
from tests.support import pgcluster

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Result:
    status: int
    stdout: str
    stderr: str


def run_cli(*argv: str, stdin: str = "", environ: dict[str, str] | None = None) -> Result:
    """Run foretune in-process with captured streams."""
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, stdin=io.StringIO(stdin), environ=dict(environ or {}))
    status = main(list(argv), env)
    return Result(status, out.getvalue(), err.getvalue())


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pgcluster.Cluster]:
    cluster = pgcluster.start()
    try:
        yield cluster
    finally:
        pgcluster.stop(cluster)
