"""`plan --from SOURCE --output-dir` does not apply again what the source has in force, as `audit --output-dir`."""

from __future__ import annotations

import shutil
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


def test_a_hand_edited_hammer_timeout_is_not_in_force_for_an_installer_that_rewrites_it(tmp_path: Path) -> None:
    # foreman-installer 2.4+ renders /etc/hammer/cli.modules.d/foreman.yml from foreman::cli::request_timeout on every
    # run (pf-cli-request-timeout): a -1 put there by hand, with answers that do not say -1, is reverted by the next
    # run, so plan's installer.sh carries the option as apply does
    source = tmp_path / "source"
    shutil.copytree(REPO / "examples" / "sosreport-satellite-6.15-mistuned", source, symlinks=True)
    hammer = source / "etc" / "hammer" / "cli.modules.d" / "foreman.yml"
    hammer.write_text(hammer.read_text().replace(":request_timeout: 120", ":request_timeout: -1"))
    run_cli("plan", "--from", str(source), "--output-dir", str(tmp_path / "plan"))
    assert "  --foreman-cli-request-timeout -1 \\\n" in (tmp_path / "plan" / "installer.sh").read_text()
    applied = run_cli("apply", "--root", str(source))
    assert "--foreman-cli-request-timeout -1" in applied.stdout
    # once the answers file carries -1 too, the next installer run keeps it: nothing to apply
    answers = source / "etc" / "foreman-installer" / "scenarios.d" / "satellite-answers.yaml"
    answers.write_text(answers.read_text().replace("foreman::cli: true", "foreman::cli:\n  request_timeout: -1"))
    run_cli("plan", "--from", str(source), "--output-dir", str(tmp_path / "again"))
    assert "request-timeout" not in (tmp_path / "again" / "installer.sh").read_text()
