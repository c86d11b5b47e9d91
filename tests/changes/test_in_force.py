"""`plan --from SOURCE --output-dir` does not apply again what the source has in force, as `audit --output-dir`."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO, run_cli

TUNED = REPO / "tests" / "fixtures" / "sosreports" / "satellite-6.15-tuned"


def _files(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


def test_plan_from_a_tuned_source_writes_the_audit_s_files(tmp_path: Path) -> None:
    run_cli("plan", "--from", str(TUNED), "--output-dir", str(tmp_path / "plan"))
    run_cli("audit", str(TUNED), "--output-dir", str(tmp_path / "audit"))
    assert _files(tmp_path / "plan") == _files(tmp_path / "audit")
    # the fixture has tuned's virtual-guest active, THP never, httpd LimitNOFILE 640000 and tuning medium declared
    assert not (tmp_path / "plan" / "os-commands.sh").exists()
    assert not (tmp_path / "plan" / "systemd").exists()
    assert "--tuning" not in (tmp_path / "plan" / "installer.sh").read_text()


def test_plan_from_options_alone_keeps_every_change(tmp_path: Path) -> None:
    run_cli("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16", "--ram", "64G",
            "--output-dir", str(tmp_path))
    assert (tmp_path / "os-commands.sh").exists()
