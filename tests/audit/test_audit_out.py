"""`audit --out DIR` writes the same coherent set of fixes as `plan --from SOURCE --out DIR`; --format hiera prints it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from foretune.plan import PlanInput, make_plan
from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
CASES = {"satellite-6.2": [], "satellite-6.9": ["--hosts", "7000"], "satellite-6.15": [], "orcharhino-6.9": [],
         "capsule-6.15-pull-rex": ["--hosts", "3000"], "satellite-6.15-tuned": []}
# --fail-on critical exits 1 only where a measured failure is critical: satellite-6.2's passenger-status shows
# "Requests in queue: 250" against its "PassengerMaxRequestQueueSize 250" (full: Passenger answers 503 now);
# satellite-6.9's messages log httpd's "(24)Too many open files" on 7 and 14 June 2021 (the limit failing).
# No other fixture records a measured failure at that level.
CRITICAL = {"satellite-6.2", "satellite-6.9"}


def tree(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name", sorted(CASES))
def test_audit_out_writes_the_plans_values_for_what_the_findings_fix(name: str, tmp_path: Path) -> None:
    """audit --out writes the fixes of its findings (not every difference the plan has), at the values
    `plan --from SOURCE --out` writes for the same tunables: one change set, one value per tunable."""
    source = str(SOS / name)
    audited = run_cli("audit", source, *CASES[name], "--out", str(tmp_path / "audit"), "--fail-on", "critical")
    assert audited.status == (1 if name in CRITICAL else 0), audited.stderr
    planned = run_cli("plan", "--from", source, *CASES[name], "--out", str(tmp_path / "plan"))
    assert planned.status == 0, planned.stderr
    audit, plan = tree(tmp_path / "audit"), tree(tmp_path / "plan")
    assert {"installer.sh", "APPLY.md"} <= set(audit) and ("custom-hiera.yaml" in audit) == ("6.2" not in name)
    data = json.loads(run_cli("plan", "--from", source, *CASES[name], "--format", "json").stdout)
    # the plan of the same input: where each tunable's value goes, also for the tunables that do not differ (the
    # JSON gives those no fix), since a finding may set one of them
    again = make_plan(PlanInput(**data["input"]))
    values = {fix.target: fix.value for t in again.tunables.values() for fix in t.fixes}
    options = {"--" + key.replace("::", "-").replace("_", "-"): value for key, value in values.items()}
    options.update({key: value for key, value in values.items() if key.startswith("--")})  # 6.2: installer fixes name the option
    for option, value in re.findall(r"^  (--[a-z-]+) (\S+?)(?: \\)?$", audit["installer.sh"], flags=re.M):
        if option != "--tuning":
            assert str(options[option]).lower() == value.lower(), (option, value)
    audited = yaml.safe_load(audit.get("custom-hiera.yaml", "")) or {}  # 6.2 reads none: no file
    for key, value in audited.items():
        if key == "postgresql::server::config_entries":
            for entry, inner in value.items():
                assert values.get(f"{key}/{entry}", inner) == inner, entry  # the site's own entries stay as they are
        elif key in values:
            assert values[key] == value, key
    for rel, text in audit.items():  # drop-ins and sysctl lines: the plan's, line for line
        if rel.startswith(("systemd/", "sysctl.d/")):
            assert set(text.splitlines()) - {"[Service]"} <= set(plan[rel].splitlines()), rel


def test_audit_out_content_is_the_guides_medium_puma_tuning(tmp_path: Path) -> None:
    # satellite-6.15: 16 CPUs, 64 GiB, --tuning medium, Puma 24 workers x 5 threads, a hand-made override.conf with
    # 16/16 threads, ALTER SYSTEM max_connections 200, an admin's random_page_cost and a stale maxrequestsperchild in
    # custom-hiera.yaml. Written by hand from the Tuning Foreman guide: medium's Puma workers 8-12 (the top, 16 CPUs
    # allow more), 16 threads min = max, db_pool threads + 4, work_mem 8 MB; foreman-proxy's dynflow LimitNOFILE
    # 1000000. Values with an installer option go to the installer only (custom-hiera would win over them); the
    # profile stays medium, so no --tuning and no profile value is pinned.
    assert run_cli("audit", str(SOS / "satellite-6.15"), "--out", str(tmp_path), "--fail-on", "critical").status == 0
    hiera = (tmp_path / "custom-hiera.yaml").read_text(encoding="utf-8")
    assert yaml.safe_load(hiera) == {"postgresql::server::config_entries": {"random_page_cost": 1.1, "work_mem": "8MB"}}
    assert "# foretune: removed apache::mod::event::maxrequestsperchild" in hiera
    # (after the comment that says a custom-hiera key overrides its option)
    assert [line for line in (tmp_path / "installer.sh").read_text(encoding="utf-8").splitlines()[2:] if not line.startswith("#")] == [
        "satellite-installer \\", "  --foreman-proxy-plugin-dynflow-open-file-limit 1000000 \\",
        "  --foreman-foreman-service-puma-threads-min 16 \\", "  --foreman-foreman-service-puma-threads-max 16 \\",
        "  --foreman-db-pool 20 \\", "  --foreman-foreman-service-puma-workers 12"]
    steps = (tmp_path / "APPLY.md").read_text(encoding="utf-8")
    # what shadows the installer's values goes first: ALTER SYSTEM's max_connections, then the hand-made override.conf
    assert steps.index("ALTER SYSTEM RESET max_connections;") < steps.index("override.conf") < steps.index("Run the installer")


def test_format_hiera_prints_the_bundles_custom_hiera(tmp_path: Path) -> None:
    source = str(SOS / "satellite-6.15")
    printed = run_cli("audit", source, "--format", "hiera", "--fail-on", "critical")
    assert printed.status == 0, printed.stderr
    run_cli("audit", source, "--out", str(tmp_path), "--fail-on", "critical")
    assert printed.stdout == (tmp_path / "custom-hiera.yaml").read_text(encoding="utf-8")


def test_merged_hiera_keeps_the_sources_keys_once_and_drops_stale_ones() -> None:
    text = run_cli("audit", str(SOS / "satellite-6.15"), "--format", "hiera", "--fail-on", "critical").stdout
    top = re.findall(r"^([A-Za-z][^\s:]*(?:::[^\s:]+)*):", text, flags=re.M)
    assert len(top) == len(set(top)), top
    data = yaml.safe_load(text)
    pg = data["postgresql::server::config_entries"]
    assert pg["random_page_cost"] == 1.1  # the admin's own entry survives the merge (fixture custom-hiera.yaml)
    assert "work_mem" in pg  # and the plan's entries join the same hash
    assert "apache::mod::event::maxrequestsperchild" not in data  # stale since puppetlabs-apache 9 (custom-hiera-stale-keys)
    assert "# foretune: removed apache::mod::event::maxrequestsperchild" in text


def test_plan_from_a_source_without_host_count_uses_the_audit_host_figure() -> None:
    result = run_cli("plan", "--from", str(SOS / "satellite-6.15-tuned"), "--format", "json")
    assert result.status == 0, result.stderr
    assert "host figure 10000: assumed" in result.stderr


def test_apply_md_gives_a_problem_the_severity_the_report_gives_it(tmp_path: Path) -> None:
    # satellite-6.9-prefork: 2 Puma workers on a medium box where only 5 fit beside the other services (one Sidekiq
    # worker: 6.9's installer has no worker-instances option, so no second one is budgeted) (the guide's
    # 8-12 for medium). 2 is puppet-foreman's own default before the auto formula (nobody on the site set it), so the
    # report's puma-workers-outside-range is low (the installer's own values are low for every component, see
    # docs/rules/index.md), and APPLY.md names the same problem at low, under "Worth knowing", never at medium
    out = tmp_path / "out"
    data = json.loads(run_cli("audit", str(REPO / "tests/fixtures/sosreports/satellite-6.9-prefork"), "--format", "json",
                              "--output-dir", str(out)).stdout)
    found = {f["rule"]: f for f in data["findings"] if f["status"] == "fail"}
    assert found["puma-workers-outside-range"]["severity"] == "low"
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert "- **low** only 5 Puma workers fit this box" in steps and "- **medium** only 5 Puma workers" not in steps


def test_a_capsules_hiera_names_no_tuning_profile_and_no_empty_reason(tmp_path: Path) -> None:
    # capsule-6.15-pull-rex without its custom-hiera.yaml (so the fragment is printed, not the site's file merged): the
    # text report says "Profile   none (Capsules have no tuning profiles)", and the hiera output of the same Capsule
    # says the same; every key it sets carries a reason (never a bare "# " line)
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "capsule-6.15-pull-rex", tree, symlinks=True)
    (tree / "etc/foreman-installer/custom-hiera.yaml").unlink()
    text = run_cli("audit", str(tree), "--format", "hiera", "--fail-on", "critical").stdout
    first = text.splitlines()[0]
    assert first.endswith(", no tuning profile (Capsules have none)") and "profile default" not in first
    assert "# \n" not in text and not text.endswith("# ")


def test_a_release_without_size_profiles_gets_a_hiera_header_naming_none() -> None:
    # Satellite 6.2 has no installer --tuning profiles (they came with foreman-installer 1.22): its hiera output must
    # not name the planner's size class as a profile, as the text report does not
    first = run_cli("audit", str(SOS / "satellite-6.2"), "--format", "hiera", "--fail-on", "critical").stdout.splitlines()[0]
    assert first.startswith("# foretune plan for Satellite 6.2 ") and first.endswith(", no tuning profile (Satellite 6.2 (Foreman 1.11) has none)")
    assert "profile medium" not in first and "profile default" not in first


def test_a_waived_or_unselected_profile_finding_moves_no_profile_and_sizes_the_fixes_for_the_declared_one(tmp_path: Path) -> None:
    # The bundled example: 15120 hosts on --tuning default, so profile-too-small-for-hosts asks for --tuning large. With
    # that finding waived ("hardware order pending"), a waived finding's fixes are left out of the change set (README,
    # --waivers): no --tuning anywhere, and the other fixes are sized for the default profile that stays, whose Puma
    # workers the guide gives as "4 – 6" (Puma workers and threads recommendations), not large's 12-18 (acceptance D19).
    example = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
    waivers = tmp_path / "waivers.yaml"
    waivers.write_text("- rule: profile-too-small-for-hosts\n  reason: hardware order pending\n  expires: 2999-01-31\n",
                       encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("audit", str(example), "--waivers", str(waivers), "--output-dir", str(out))
    assert result.status == 1, result.stderr
    assert "WAIVED" in result.stdout and "profile-too-small-for-hosts" in result.stdout
    assert "--tuning" not in (out / "APPLY.md").read_text(encoding="utf-8")
    assert "--tuning" not in (out / "installer.sh").read_text(encoding="utf-8")
    changes = json.loads((out / "changes.json").read_text(encoding="utf-8"))["changes"]
    assert not [c for c in changes if c["channel"] == "profile"]
    [workers] = [c for c in changes if c["tunable"] == "puma.workers"]
    assert 4 <= workers["value"] <= 6, workers
    # apply --audit with only another rule selected: no profile move either
    root = tmp_path / "tree"
    shutil.copytree(example, root)
    applied = run_cli("apply", "--root", str(root), "--audit", "--select", "custom-hiera-stale-keys")
    assert applied.status == 0, applied.stderr
    assert "--tuning" not in applied.stdout
    # and without the waiver, as before: the move to large first
    plain = run_cli("audit", str(example), "--output-dir", str(tmp_path / "plain"))
    assert "--tuning large" in (tmp_path / "plain" / "APPLY.md").read_text(encoding="utf-8"), plain.stderr
