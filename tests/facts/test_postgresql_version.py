"""postgresql_version: the server package whose data directory holds the postgresql.conf read.

Expected versions are read by hand from the installed-rpms lines each test writes.
"""

from __future__ import annotations

from pathlib import Path

from foretune.facts import read_source
from foretune.facts.model import FactSet

OLD_AND_SCL = ("postgresql-server-9.2.24-4.el7_8.x86_64                     Mon Jun 14 10:00:00 2021\n"
               "rh-postgresql12-postgresql-server-12.5-1.el7.x86_64         Tue Jun 15 09:12:44 2021\n"
               "foreman-2.3.5-1.el7.noarch                                  Tue Jun 15 09:12:44 2021\n")


def sosreport(root: Path, rpms: str, conf_dir: str | None) -> FactSet:
    (root / "sos_commands").mkdir(parents=True)
    (root / "version.txt").write_text("sosreport: 3.9\n")
    (root / "installed-rpms").write_text(rpms)
    if conf_dir is not None:
        (root / conf_dir).mkdir(parents=True)
        (root / conf_dir / "postgresql.conf").write_text("max_connections = 500\n")
    return read_source(str(root))


def test_the_collection_whose_data_directory_holds_the_config_wins(tmp_path: Path) -> None:
    facts = sosreport(tmp_path, OLD_AND_SCL, "var/opt/rh/rh-postgresql12/lib/pgsql/data")
    assert facts.value("postgresql_version") == "12.5"
    prov = facts["postgresql_version"].provenance[0]
    assert prov.location == "installed-rpms" and prov.excerpt.startswith("rh-postgresql12-postgresql-server-12.5-1.el7")


def test_the_base_server_wins_when_its_data_directory_holds_the_config(tmp_path: Path) -> None:
    facts = sosreport(tmp_path, OLD_AND_SCL, "var/lib/pgsql/data")
    assert facts.value("postgresql_version") == "9.2.24"


def test_the_newest_server_when_no_config_tells_which(tmp_path: Path) -> None:
    assert sosreport(tmp_path, OLD_AND_SCL, None).value("postgresql_version") == "12.5"


def test_pgdg_server_by_its_versioned_data_directory(tmp_path: Path) -> None:
    rpms = ("postgresql12-server-12.17-1PGDG.rhel8.x86_64  Mon Feb 12 10:02:11 2024\n"
            "postgresql13-server-13.13-1PGDG.rhel8.x86_64  Mon Feb 12 10:02:11 2024\n")
    assert sosreport(tmp_path, rpms, "var/lib/pgsql/12/data").value("postgresql_version") == "12.17"


def test_unknown_without_a_server_package(tmp_path: Path) -> None:
    facts = sosreport(tmp_path, "postgresql-9.2.24-4.el7_8.x86_64  Mon Jun 14 10:00:00 2021\n", "var/lib/pgsql/data")
    assert not facts["postgresql_version"].known
    assert facts["postgresql_version"].unknown_reason == "installed-rpms lists no PostgreSQL server package"
