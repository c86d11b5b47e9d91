from __future__ import annotations

import re

from foretune import __version__
from tests.conftest import run_cli


def test_version() -> None:
    from importlib.metadata import version

    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[.+-]\S+)?", __version__), __version__
    assert __version__ == version("foretune")  # what pip installed from pyproject's dynamic version
    result = run_cli("--version")
    assert result.status == 0
    assert result.stdout.strip() == f"foretune {__version__}"


def test_unknown_command_is_a_usage_error() -> None:
    result = run_cli("frobnicate")
    assert result.status == 2
    assert "invalid choice" in result.stderr


def test_help_lists_every_command() -> None:
    from foretune.cli import COMMANDS

    result = run_cli("--help")
    assert result.status == 0
    for name in COMMANDS:
        assert name in result.stdout
