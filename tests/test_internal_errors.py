"""A bug is exit status 3 with one line (never 1, which audit uses for findings); --debug shows the traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from foretune.env import ExitStatus
from foretune.rules.base import Context, Outcome
from foretune.rules.registry import get_rule
from tests.conftest import REPO, run_cli

SOS = str(REPO / "tests/fixtures/sosreports/satellite-6.15")


def _boom(*args: object, **kwargs: object) -> NoReturn:
    raise KeyError("lookup of password=Zt8qWm3Lx failed")


@pytest.fixture
def broken_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Simulate a bug: the facts command's module raises an unexpected exception."""
    import foretune.commands.facts as facts_command

    monkeypatch.setattr(facts_command, "run", _boom)


def test_unexpected_exception_is_one_line_and_exit_3(broken_facts: None) -> None:
    result = run_cli("facts", SOS)
    assert result.status == ExitStatus.INTERNAL == 3
    assert result.stderr.splitlines() == [
        "foretune: internal error: KeyError: 'lookup of password=[redacted] failed' (run `foretune --debug ...` for the traceback)"]
    assert "Zt8qWm3Lx" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_debug_shows_the_traceback(broken_facts: None, how: str) -> None:
    if how == "flag":
        result = run_cli("--debug", "facts", SOS)
    else:
        result = run_cli("facts", SOS, environ={"FORETUNE_DEBUG": "1"})
    assert result.status == 3
    assert result.stderr.startswith("Traceback (most recent call last):")
    assert "_boom" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("foretune: internal error: KeyError:")


def test_debug_flag_is_documented_and_harmless_without_error() -> None:
    assert "--debug" in run_cli("--help").stdout
    result = run_cli("--debug", "rules", "list")
    assert result.status == 0 and result.stderr == ""


def test_a_rule_that_crashes_keeps_the_report_and_exits_3_not_1(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = get_rule("thp-enabled")

    def crash(ctx: Context) -> Outcome:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(rule, "check", crash)
    result = run_cli("audit", SOS, "--format", "json", "--fail-on", "info")
    assert result.status == 3
    report = json.loads(result.stdout)
    errored = [f for f in report["findings"] if f["status"] == "error"]
    assert [f["rule"] for f in errored] == ["thp-enabled"]
    assert errored[0]["message"] == "rule failed: ZeroDivisionError: division by zero"
    assert len(report["findings"]) > 10  # the other rules still ran
    assert "1 rule failed with an internal error (thp-enabled): exit status 3" in result.stderr


def test_module_entry_point_exits_3(tmp_path: Path) -> None:
    """Through the real entry point (python -m foretune), with a bug planted via sitecustomize."""
    (tmp_path / "sitecustomize.py").write_text(
        "import foretune.commands.rules as m\n"
        "def run(args, env):\n    raise RuntimeError('planted bug')\n"
        "m.run = run\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO / "src")])}
    done = subprocess.run([sys.executable, "-m", "foretune", "rules", "list"], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert done.returncode == 3
    assert done.stderr.splitlines() == [
        "foretune: internal error: RuntimeError: planted bug (run `foretune --debug ...` for the traceback)"]
