"""orcharhino -> Foreman, from ATIX's own words in theforeman/foreman-documentation pull requests (orcharhino-versions)."""

from __future__ import annotations

import json

import pytest

from foretune.knowledge.releases import resolve_release
from tests.conftest import run_cli

# "Foreman 3.9/Katello 4.11 (Satellite 6.15; orcharhino 6.8/6.9/6.10)", "Foreman 3.11/Katello 4.13 (orcharhino 6.11 on
# EL8 only; orcharhino 7.0 on EL8+EL9; orcharhino 7.1 with Leapp)", "orcharhino 7.3 is based on Foreman 3.12",
# "Foreman 3.12/Katello 4.14 (Satellite 6.16; orcharhino 7.2 on EL9 only)", "orcharhino 7.4 is based on Foreman 3.14"
PAIRS = {"6.8": "3.9", "6.9": "3.9", "6.10": "3.9", "6.11": "3.11", "7.0": "3.11", "7.1": "3.11", "7.2": "3.12",
         "7.3": "3.12", "7.4": "3.14"}


@pytest.mark.parametrize("version", sorted(PAIRS))
def test_orcharhino_maps_to_the_foreman_atix_names(version: str) -> None:
    assert resolve_release("orcharhino", version).foreman_version == PAIRS[version]


def test_the_plan_names_where_the_pair_comes_from() -> None:
    args = ["plan", "--product", "orcharhino", "--version", "7.0", "--hosts", "2000", "--cpus", "4", "--ram", "20G"]
    data = json.loads(run_cli(*args, "--format", "json").stdout)
    assert data["release"]["version_citation"] == "orcharhino-versions"
    assert "orcharhino-versions" in data["citations"]
    assert "orcharhino-versions" in run_cli(*args).stdout.split("Sources:", 1)[1]
