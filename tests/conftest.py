"""Shared fixtures: a CLI runner with an injected Environment, and a real PostgreSQL cluster."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from foretune.cli import main
from foretune.env import Environment
from tests.support import pgcluster, seeds

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


def include_conf_d(tree: Path, name: str, text: str) -> Path:
    """``tree``'s postgresql.conf gets ``include_dir = 'conf.d'`` as its last line, and conf.d/``name`` holds ``text``
    (a site's include, read after postgresql.conf's own lines); the included file's path."""
    data = tree / "var/lib/pgsql/data"
    with (data / "postgresql.conf").open("a", encoding="utf-8") as handle:
        handle.write("include_dir = 'conf.d'\n")
    (data / "conf.d").mkdir()
    included = data / "conf.d" / name
    included.write_text(text, encoding="utf-8")
    return included


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pgcluster.Cluster]:
    cluster = pgcluster.start()
    try:
        yield cluster
    finally:
        pgcluster.stop(cluster)


GUIDES_ABSENT = "guide-quote checks not run: guide texts absent; see docs/development.md"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without the guide texts, the tests that need them are left out (one summary line says so).

    They are the tests marked ``needs_guides`` and those using tests/test_citations.py's ``guides`` fixture;
    the latter get the marker here, so ``-m needs_guides`` selects every one of them (CI's second step).
    """
    for item in items:
        if "guides" in getattr(item, "fixturenames", ()) and item.get_closest_marker("needs_guides") is None:
            item.add_marker(pytest.mark.needs_guides)
    if seeds.required():
        return

    def needs_guides(item: pytest.Item) -> bool:
        return item.get_closest_marker("needs_guides") is not None

    left_out = [item for item in items if needs_guides(item)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not needs_guides(item)]
        config.stash[_GUIDES_LEFT_OUT] = len(left_out)


_GUIDES_LEFT_OUT = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    if config.stash.get(_GUIDES_LEFT_OUT, 0):
        terminalreporter.write_line(GUIDES_ABSENT)
