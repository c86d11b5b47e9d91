"""A fix must take effect: a value set where something of higher precedence sets the same key also removes it."""

from __future__ import annotations

import json
from typing import Any

from foretune.knowledge import citation
from foretune.knowledge.precedence import installer_order, postgresql_shadow, systemd_shadow
from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"


def finding(name: str, rule: str, *extra: str) -> dict[str, Any]:
    data = json.loads(run_cli("audit", str(SOS / name), *extra, "--format", "json", "--fail-on", "critical").stdout)
    return next(f for f in data["findings"] if f["rule"] == rule)


def test_a_limit_set_by_alter_system_is_reset_before_the_hiera_value() -> None:
    """satellite-6.15: postgresql.conf says max_connections = 1000 (the installer's), postgresql.auto.conf says
    max_connections = '200' (ALTER SYSTEM). PostgreSQL 12 docs: "Settings in postgresql.auto.conf override those in
    postgresql.conf", so custom-hiera alone changes nothing; ALTER SYSTEM RESET removes the entry."""
    f = finding("satellite-6.15", "pg-max-connections-below-budget")
    assert (f["status"], f["severity"], f["current"]) == ("fail", "high", 200)
    assert f["fixes"][0] == "sudo -u postgres psql -c 'ALTER SYSTEM RESET max_connections;'"
    assert "ALTER SYSTEM RESET max_connections;" in f["message"]
    assert {"fact": "postgresql", "location": "var/lib/pgsql/data/postgresql.auto.conf",
            "excerpt": "max_connections = '200'"} in f["evidence"]
    assert {"pg-auto-conf-wins", "pg-alter-system-reset"} <= {c["id"] for c in f["citations"]}


def test_a_setting_only_postgresql_conf_sets_gets_no_reset() -> None:
    f = finding("satellite-6.15", "pg-work-mem-low")
    assert f["status"] == "fail" and not any("ALTER SYSTEM" in fix for fix in f["fixes"])


def test_the_precedence_table_is_cited_data() -> None:
    shadow = postgresql_shadow("shared_buffers", [("data/postgresql.conf", "shared_buffers = 4GB"),
                                                  ("data/postgresql.auto.conf", "shared_buffers = '1GB'")])
    assert shadow is not None and shadow.reset == "ALTER SYSTEM RESET shared_buffers;"
    assert all(citation(c).quote for c in shadow.citations)
    later = systemd_shadow("foreman.service", "Environment", [
        ("etc/systemd/system/foreman.service.d/override.conf", "[Service]\nEnvironment=FOREMAN_PUMA_THREADS_MAX=16")],
        owned="installer.conf")
    assert later is not None and later.reset == "remove /etc/systemd/system/foreman.service.d/override.conf"
    assert systemd_shadow("foreman.service", "Environment", [
        ("etc/systemd/system/foreman.service.d/10-mine.conf", "Environment=FOREMAN_PUMA_THREADS_MAX=16")],
        owned="installer.conf") is None  # sorts before installer.conf: the installer's value wins
    assert installer_order() == ["profile", "answers", "custom-hiera"]
