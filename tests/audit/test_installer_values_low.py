"""One severity rule for the installer's own values, for every component (docs/rules/index.md, audit.runner.installer_writes).

A value the installer's run writes by itself, with no site setting behind it, is low when nothing is measured; a value
the installer leaves unset that the guide asks the admin to set, and a site's own setting, are judged up to medium.
Expected values written by hand from each fixture's files.
"""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"


def failing(name: str) -> dict[str, dict[str, Any]]:
    data = json.loads(run_cli("audit", str(SOS / name), "--format", "json", "--fail-on", "critical").stdout)
    return {f["rule"]: f for x in data["findings"] if x["status"] == "fail" for f in (x, *x["symptoms"])}


def test_puma_postgresql_and_apache_installer_values_are_low_alike() -> None:
    # orcharhino-6.9, by hand: 8 CPUs, declared default; installer.conf FOREMAN_PUMA_WORKERS=12 (the installer's formula
    # floor(min(8 x 1.5, RAM - 1.5)) = 12, no answers or custom-hiera for it), the guide's 4-6 for default;
    # postgresql.conf work_mem 4MB and shared_buffers 512MB, the default profile's own values (custom-hiera empty)
    found = failing("orcharhino-6.9")
    workers = found["puma-workers-outside-range"]
    assert (workers["severity"], workers["current"]) == ("low", 12)
    assert "this is the installer's own value, installer formula" in workers["message"]
    assert found["pg-work-mem-low"]["severity"] == "low"
    assert found["pg-shared-buffers-out-of-range"]["severity"] == "low"
    assert "(this is the default profile's own value: hygiene, not a fault)" in found["pg-shared-buffers-out-of-range"]["message"]
    # satellite-6.9-prefork: 2 Puma workers, puppet-foreman's own default before the auto formula
    assert failing("satellite-6.9-prefork")["puma-workers-outside-range"]["severity"] == "low"


def test_a_value_the_installer_leaves_unset_or_the_site_sets_stays_medium() -> None:
    # orcharhino-6.9: httpd LimitNOFILE 1024 is systemd's default, which the installer does not set and the guide asks
    # the admin to raise (LimitNOFILE=640000): a setting judged against the guide, medium
    assert failing("orcharhino-6.9")["httpd-nofile-low"]["severity"] == "medium"
    # satellite-6.15: foreman-proxy LimitNOFILE 1024 where puppet-foreman_proxy writes 1000000: not the installer's
    # value, medium
    assert failing("satellite-6.15")["proxy-dynflow-nofile-low"]["severity"] == "medium"
