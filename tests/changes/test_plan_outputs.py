"""plan's outputs read one change set: each value through one channel, the installer option where one exists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from foretune.changes import build
from foretune.plan import PlanInput, make_plan
from foretune.render import outputs
from tests.conftest import run_cli
from tests.plan.cases import CASES

GIB = 1024**3
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sosreport-satellite-6.15-mistuned"


def test_a_large_satellite_gets_installer_options_and_only_work_mem_in_custom_hiera() -> None:
    # 15000 hosts on 16 CPUs, 64 GiB: the guide's large profile, Puma 18 workers (top of 12-18), 16/16 threads,
    # db_pool 16 + 4 = 20, 3 Sidekiq instances, hammer's request_timeout -1 (g62-hammer; foreman::cli's option since
    # puppet-foreman 16.1.0), all puppet-foreman options; work_mem 8 MB has no installer option.
    plan = make_plan(PlanInput("satellite", "6.15", hosts=15000, cpus=16, ram_bytes=64 * GIB, virtual=True))
    cs = build.from_plan(plan)
    assert build.installer_options(cs) == [
        ("--foreman-dynflow-worker-instances", 3), ("--foreman-foreman-service-puma-workers", 18),
        ("--foreman-foreman-service-puma-threads-min", 16), ("--foreman-foreman-service-puma-threads-max", 16),
        ("--foreman-db-pool", 20), ("--foreman-cli-request-timeout", -1)]
    assert build.hiera_values(cs) == {"postgresql::server::config_entries": {"work_mem": "8MB"}}
    assert yaml.safe_load(outputs.hiera_fragment(plan, cs)) == build.hiera_values(cs)
    assert outputs.installer_command(plan, cs).splitlines()[:2] == ["satellite-installer \\", "  --tuning large \\"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_value_is_given_twice(name: str) -> None:
    hiera = run_cli("plan", *CASES[name], "--format", "hiera")
    installer = run_cli("plan", *CASES[name], "--format", "installer")
    assert hiera.status == installer.status == 0, hiera.stderr + installer.stderr
    for key in (yaml.safe_load(hiera.stdout) or {}):
        option = build.installer_option(key)
        assert option is None, key


def test_a_declared_profile_the_installer_refuses_gives_the_accepted_profile_and_its_sizing(tmp_path) -> None:
    # --profile extra-large on 16 CPUs, 64 GiB: foreman-installer 3.9's hardware check asks 32 CPUs and 128 GiB for
    # extra-large, 16 and 64 for large (fi-tuning-hook), so --tuning extra-large is refused and large is the largest
    # profile it accepts. installer.sh must carry --tuning large and large's sizing: Puma 18 workers (top of the
    # guide's 12-18 for large), not extra-large's 24 without any --tuning.
    args = ("plan", "--product", "satellite", "--version", "6.15", "--cpus", "16", "--ram", "64G", "--hosts", "40000",
            "--profile", "extra-large")
    result = run_cli(*args, "--output-dir", str(tmp_path / "out"))
    assert result.status == 0, result.stderr
    script = (tmp_path / "out" / "installer.sh").read_text()
    assert "  --tuning large \\\n" in script
    assert "--foreman-foreman-service-puma-workers 18" in script
    assert "extra-large" not in script and "puma-workers 24" not in script
    apply_md = (tmp_path / "out" / "APPLY.md").read_text()
    assert "`--tuning` extra-large: foreman-installer 3.9 refuses --tuning extra-large here" in apply_md
    assert "the set is sized for large" in apply_md
    installer = run_cli(*args, "--format", "installer")
    assert installer.stdout.rstrip("\n") == script.removeprefix("#!/bin/sh\nset -e\n").rstrip("\n")
    # the table and JSON show that same plan: large's Puma workers, with the refusal kept as a critical problem
    shown = json.loads(run_cli(*args, "--format", "json").stdout)
    assert shown["profile"]["name"] == "large"
    assert next(t for t in shown["tunables"] if t["id"] == "puma.workers")["foretune"]["value"] == 18
    assert [p["code"] for p in shown["problems"] if p["severity"] == "critical"] == ["hardware-below-profile",
                                                                                "installer-will-refuse"]


def test_plan_output_dir_without_a_source_says_merge_never_replace(tmp_path) -> None:
    # no source: the bundle's custom-hiera.yaml holds only foretune's keys (work_mem 8MB for this box); put in the
    # place of the host's file it would drop every site key, so APPLY.md says to merge it
    result = run_cli("plan", "--product", "satellite", "--version", "6.15", "--cpus", "16", "--ram", "64G",
                     "--hosts", "15000", "--output-dir", str(tmp_path))
    assert result.status == 0, result.stderr
    steps = (tmp_path / "APPLY.md").read_text()
    assert "in its place" not in steps
    assert ("1. Merge `custom-hiera.yaml` from here into `/etc/foreman-installer/custom-hiera.yaml`, keeping every key "
            "the file already has: it sets `postgresql::server::config_entries/work_mem`. Never put it in the file's place") in steps


def test_a_masked_secret_in_the_sources_custom_hiera_is_never_written_into_the_bundle(tmp_path) -> None:
    import shutil

    from tests.conftest import REPO

    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.15-tuned", root)
    hiera = root / "etc/foreman-installer/custom-hiera.yaml"
    hiera.write_text(hiera.read_text() + "foreman::db_password: Sup3rS3cret\n")
    for command in ("audit", "plan"):
        out = tmp_path / command
        args = (command, str(root)) if command == "audit" else (command, "--from", str(root))
        result = run_cli(*args, "--hosts", "6000", "--output-dir", str(out))
        assert result.status in (0, 1), result.stderr
        written = (out / "custom-hiera.yaml").read_text()
        assert "[redacted]" not in written and "Sup3rS3cret" not in written and "db_password" not in written
        steps = (out / "APPLY.md").read_text()
        assert "the source's copy has masked secrets, so it is not copied here" in steps
        assert "in its place" not in steps


def test_a_merged_bundle_says_it_raised_a_site_value_never_that_it_was_asked() -> None:
    # 15000 hosts kept at --tuning default: ServerLimit 64 above 5000 hosts (gf-httpd-children), which the default
    # profile does not give; the site's 25 is below it, so the change set raises it. No --prefer was given: the
    # comment must not say "as asked (--prefer)".
    plan = make_plan(PlanInput("satellite", "6.15", hosts=15000, cpus=16, ram_bytes=64 * GIB, profile="default"))
    existing = "---\napache::mod::event::serverlimit: 25  # from 2020\n"
    cs = build.from_plan(plan, build.Host(custom_hiera={"apache::mod::event::serverlimit": 25}))
    merged = outputs.merged_hiera(plan, existing, cs)
    assert "--prefer" not in merged
    assert "# foretune: replaced the site's 25 to raise it (the change set raises a site value; one set higher is kept)" in merged
    assert yaml.safe_load(merged)["apache::mod::event::serverlimit"] == 64


def test_an_empty_change_set_writes_no_installer_step_and_a_change_without_reason_names_its_finding() -> None:
    from foretune.changes.model import Change, ChangeSet

    plan = make_plan(PlanInput("satellite", "6.15", hosts=8000, cpus=8, ram_bytes=32 * GIB))
    existing = "---\n# This file is for custom hiera overrides.\n"
    files = outputs.bundle(plan, existing, ChangeSet("Satellite 6.15"))
    assert "installer.sh" not in files  # an installer run for no change is an outage for nothing
    assert "Nothing to change: no step to take, no installer run." in files["APPLY.md"]
    assert "Run the installer" not in files["APPLY.md"]
    one = ChangeSet("Satellite 6.15", (Change("capsule.proxy_timeout", "custom-hiera", "apache::mod::proxy::proxy_timeout", 600,
                                              file=build.HIERA_FILE, source="capsule-proxy-timeout"),))
    merged = outputs.bundle(plan, existing, one)["custom-hiera.yaml"]
    assert "# foretune: fixes capsule-proxy-timeout\napache::mod::proxy::proxy_timeout: 600\n" in merged
    assert "[]" not in merged


def test_plan_from_a_source_shows_the_plan_its_change_set_applies() -> None:
    # the example sosreport: 15,120 hosts counted, 16 CPUs, 63.8 GiB, the installer's tuning fact says default
    # (meant for up to 5,000 hosts). Every format plans large, the profile the hosts need (10,001-20,000 hosts) and
    # the hardware meets: Puma 18 workers (top of the guide's 12-18 for large), never default's 6 in one format
    # and large's 18 in another.
    source = ("plan", "--from", str(EXAMPLE))
    table = run_cli(*source).stdout
    # who and when, as the audit report names them (the sosreport's hostname file and its sos date)
    assert table.startswith("host: satellite.example.com\ncollected: 2024-02-12 10:14 UTC\n")
    markdown = run_cli(*source, "--format", "markdown").stdout
    assert "- Host: satellite.example.com\n" in markdown and "- Collected: 2024-02-12 10:14 UTC\n" in markdown
    assert "profile: large — the profile the change set moves to: 15120 hosts need it, the installer's tuning fact " \
        "declares default" in table
    shown = json.loads(run_cli(*source, "--format", "json").stdout)
    assert shown["profile"]["name"] == "large"
    assert next(t for t in shown["tunables"] if t["id"] == "puma.workers")["foretune"]["value"] == 18
    installer = run_cli(*source, "--format", "installer").stdout
    assert "  --tuning large \\\n" in installer and "--foreman-foreman-service-puma-workers 18" in installer


def test_the_bundles_change_set_file_follows_the_release(tmp_path: Path) -> None:
    # 6.2's foreman-tasks sysconfig has no EXECUTORS_COUNT (foreman-tasks added it in 0.9), so no change sets it;
    # an orcharhino bundle cites the orcharhino guide where it states the figure, never the Foreman guide's copy
    for name in ("satellite-6.2-passenger", "orcharhino-6.9-default"):
        out = tmp_path / name
        assert run_cli("plan", *CASES[name], "--output-dir", str(out)).status == 0
        changes = json.loads((out / "changes.json").read_text())
        text = json.dumps(changes)
        if name.startswith("satellite-6.2"):
            assert "EXECUTORS_COUNT" not in text
        else:
            assert '"go-postgresql"' in text and '"gf-postgresql"' not in text


def test_apply_md_puts_only_what_blocks_the_plan_under_fix_these_first(tmp_path: Path) -> None:
    # orcharhino 6.9, 2,000 hosts on 4 CPUs / 20 GiB: the only problem is low (the memory ranges' high ends pass RAM),
    # worth knowing but no step before the others
    out = tmp_path / "out"
    assert run_cli("plan", *CASES["orcharhino-6.9-default"], "--output-dir", str(out)).status == 0
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert "Fix these first:" not in steps
    assert "Worth knowing:\n\n- **low** the plan fits at its planning sizes" in steps


def test_audit_hiera_of_a_source_with_masked_secrets_says_why_the_site_s_file_is_not_in_it(tmp_path) -> None:
    import shutil

    from tests.conftest import REPO

    root = tmp_path / "sos"
    shutil.copytree(REPO / "tests/fixtures/sosreports/satellite-6.15-tuned", root)
    hiera = root / "etc/foreman-installer/custom-hiera.yaml"
    hiera.write_text(hiera.read_text() + "foreman::db_password: Sup3rS3cret\n")
    result = run_cli("audit", str(root), "--hosts", "6000", "--format", "hiera")
    assert "Sup3rS3cret" not in result.stdout + result.stderr and "db_password" not in result.stdout
    warnings = [line for line in result.stderr.splitlines() if "masked secrets" in line]
    assert warnings == ["foretune: warning: the source's custom-hiera.yaml has masked secrets, so this prints only "
                        "foretune's keys, not the site's file merged: merge them into that file, never put this output "
                        "in its place"]
    # without secrets: the site's file merged, no warning
    clean = run_cli("audit", str(REPO / "tests/fixtures/sosreports/satellite-6.15-tuned"), "--hosts", "6000", "--format", "hiera")
    assert "masked secrets" not in clean.stderr


def test_plan_from_a_source_names_what_the_set_removes_in_the_hiera_and_installer_formats(tmp_path: Path) -> None:
    # The bundled example's custom-hiera.yaml holds foreman::db_pool: 5, which wins over --foreman-db-pool
    # (fi-hiera-precedence), and checkpoint_segments: 32, which PostgreSQL 12 refuses: both formats say they go first,
    # or the installer option is silently ignored (acceptance D14).
    db_pool = ("# remove first: foreman::db_pool from /etc/foreman-installer/custom-hiera.yaml (custom-hiera.yaml sets "
               "foreman::db_pool: 5, which wins over --foreman-db-pool)")
    stale = "# remove first: postgresql::server::config_entries/checkpoint_segments from /etc/foreman-installer/custom-hiera.yaml"
    for fmt in ("hiera", "installer"):
        result = run_cli("plan", "--from", str(EXAMPLE), "--format", fmt)
        assert result.status == 0, result.stderr
        assert db_pool in result.stdout.splitlines() and stale in result.stdout, (fmt, result.stdout)
    # satellite-6.15-tuned with ALTER SYSTEM's max_connections = '100' and a hand-made override.conf setting the Puma
    # threads (16/16) after installer.conf: the reset and the override's lines, each named, before the values
    root = tmp_path / "tree"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures/sosreports/satellite-6.15-tuned", root)
    for trap in ("auto-conf", "override-conf"):
        shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures/changes" / trap, root, dirs_exist_ok=True)
    for fmt in ("hiera", "installer"):
        text = run_cli("plan", "--from", str(root), "--hosts", "6000", "--format", fmt).stdout
        assert "# remove first: ALTER SYSTEM RESET max_connections; (postgresql.auto.conf sets max_connections = '100'" in text
        assert ("# remove first: Environment=FOREMAN_PUMA_THREADS_MIN=16 and Environment=FOREMAN_PUMA_THREADS_MAX=16 from "
                "/etc/systemd/system/foreman.service.d/override.conf (") in text, text


def test_a_reused_output_dir_holds_only_the_new_bundle_and_names_what_it_leaves(tmp_path: Path) -> None:
    # A Satellite 6.2 bundle writes qpidd's, qdrouterd's and smart_proxy_dynflow_core's drop-ins and a sysctl.d file
    # (kernel.shmmax for PostgreSQL 9.2); a Satellite 6.15 bundle written into the same directory afterwards has none of
    # them. APPLY.md's "Copy the drop-ins under systemd/" would copy the stale ones: they go, and are named. A file the
    # admin edited since is left in place and named, and a file foretune never wrote there is named (acceptance D23).
    sos = Path(__file__).resolve().parents[1] / "fixtures" / "sosreports"
    out = tmp_path / "bundle"
    assert run_cli("plan", "--from", str(sos / "satellite-6.2"), "--hosts", "6000", "--output-dir", str(out)).status == 0
    assert (out / "systemd/qpidd.service.d/limits.conf").is_file() and (out / "sysctl.d/90-foretune.conf").is_file()
    edited = out / "systemd/qdrouterd.service.d/limits.conf"
    edited.write_text(edited.read_text(encoding="utf-8") + "# ours\n", encoding="utf-8")
    (out / "notes.txt").write_text("site notes\n", encoding="utf-8")
    result = run_cli("plan", "--from", str(sos / "satellite-6.15"), "--output-dir", str(out))
    assert result.status == 0, result.stderr
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert files == [".foretune-bundle.json", "APPLY.md", "changes.json", "custom-hiera.yaml", "installer.sh", "notes.txt",
                     "os-commands.sh", "systemd/httpd.service.d/limits.conf", "systemd/qdrouterd.service.d/limits.conf"]
    assert not (out / "systemd/qpidd.service.d").exists() and not (out / "sysctl.d").exists()
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert f"foretune: warning: removed {out}/systemd/qpidd.service.d/limits.conf: an earlier bundle wrote it, this one " \
           "has no such file" in warnings
    assert f"foretune: warning: removed {out}/sysctl.d/90-foretune.conf: an earlier bundle wrote it, this one has no " \
           "such file" in warnings
    assert any(line.startswith(f"foretune: warning: {edited}: left in place: an earlier bundle wrote it and it was edited")
               for line in warnings), warnings
    assert any("also holds files this bundle did not write" in line and "notes.txt" in line for line in warnings)
    # the 6.15 bundle's httpd drop-in replaced the 6.2 one as written: no backup beside it
    assert not list((out / "systemd/httpd.service.d").glob("*.bak"))


def test_a_reused_output_dir_never_removes_through_a_linked_directory(tmp_path: Path) -> None:
    # The 6.2 bundle's sysctl.d/ is replaced by a link to a directory elsewhere holding a file of the same name and the
    # same content: the manifest's digest matches, but removing it would delete outside the bundle. It stays.
    sos = Path(__file__).resolve().parents[1] / "fixtures" / "sosreports"
    out = tmp_path / "bundle"
    assert run_cli("plan", "--from", str(sos / "satellite-6.2"), "--hosts", "6000", "--output-dir", str(out)).status == 0
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(out / "sysctl.d"), str(elsewhere))
    (out / "sysctl.d").symlink_to(elsewhere)
    assert run_cli("plan", "--from", str(sos / "satellite-6.15"), "--output-dir", str(out)).status == 0
    assert (elsewhere / "90-foretune.conf").is_file()
