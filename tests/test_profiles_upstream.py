"""`profiles show` equals the installer's own tuning files for every installer version in the data and every profile.

The expected files in profiles_expected/ were written by hand from the upstream foreman-installer
files named on their first line, never from foretune's output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from foretune.knowledge import load_data
from foretune.knowledge.profiles import profiles_for
from foretune.knowledge.releases import resolve_release
from tests.conftest import run_cli

EXPECTED = Path(__file__).parent / "profiles_expected"
CASES = sorted((d.name, f.stem) for d in EXPECTED.iterdir() if d.is_dir() for f in d.glob("*.yaml"))


@pytest.mark.parametrize(("version", "profile"), CASES)
def test_profile_equals_the_installer_file(version: str, profile: str) -> None:
    expected = yaml.safe_load((EXPECTED / version / f"{profile}.yaml").read_text(encoding="utf-8"))
    result = run_cli("profiles", "show", profile, "--product", "foreman", "--version", version, "--format", "json")
    assert result.status == 0, result.stderr
    assert json.loads(result.stdout) == expected


def test_every_installer_version_and_profile_has_an_expected_file() -> None:
    versions = {step["since"] for step in load_data("installer-tuning.yaml")["steps"]}
    assert versions <= {d.name for d in EXPECTED.iterdir() if d.is_dir()}
    for version in versions:
        profiles = profiles_for(resolve_release("foreman", version)) or ("default",)
        assert {f.stem for f in (EXPECTED / version).glob("*.yaml")} == set(profiles), version
