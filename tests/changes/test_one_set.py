"""One change set, every output: one value per tunable and one channel per value, on every fixture and the example;
`audit --output-dir` writes what fixes the findings, with the profile change first and no stale key left."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from foretune.audit.context import build_context
from foretune.audit.runner import run_all
from foretune.changes import build
from foretune.changes.model import CHANNELS, EFFECTS, OPS, ChangeSet
from foretune.commands.audit import _plan_after_profile_change, change_set
from foretune.facts import read_source
from foretune.plan.choose import choose_plan
from foretune.rules.registry import all_rules
from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
EXAMPLE = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
SOURCES = sorted([p for p in SOS.iterdir() if p.is_dir()] + [EXAMPLE], key=lambda p: p.name)
# a source with no host count is planned at an assumed figure; give the count where the fixture has none
HOSTS = {"satellite-6.9": 7000, "capsule-6.15-pull-rex": 3000}


def change_sets(source: Path) -> list[ChangeSet]:
    hosts = HOSTS.get(source.name)
    facts = read_source(str(source), hosts=hosts)
    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    sets = []
    if ctx.plan is not None:
        report = SimpleNamespace(findings=run_all(all_rules(), ctx))
        sets.append(change_set(report, _plan_after_profile_change(report, facts, hosts) or ctx.plan, facts))
    plan = choose_plan(facts, hosts=hosts).plan
    if plan is not None:
        sets.append(build.from_plan(plan, facts))
    return sets


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_a_change_set_never_holds_two_values_for_one_tunable(source: Path) -> None:
    sets = change_sets(source)
    assert sets, source.name
    for cs in sets:
        values = [c for c in cs.changes if c.op == "set"]
        assert len({c.tunable for c in values}) == len(values), [c.tunable for c in values]
        # one place per change: a file edit is one directive of its file (Satellite 6.2 edits several per file)
        places = {(c.channel, c.target, str(c.value).split()[0] if c.channel == "file" else "") for c in cs.changes}
        assert len(places) == len(cs.changes)
        for c in cs.changes:
            assert c.channel in CHANNELS and c.op in OPS and c.effect in EFFECTS, c
        # one channel per value: nothing with an installer option is also (or instead) set in custom-hiera
        for c in values:
            if c.channel == "custom-hiera":
                assert build.installer_option(c.target) is None, c.target
        # a custom-hiera key is never both set and removed
        removed = {c.target for c in cs.changes if c.op == "remove"}
        assert not removed & {c.target for c in values}
        assert sum(c.channel == "profile" for c in cs.changes) <= 1
        if any(c.channel == "profile" for c in cs.changes):
            assert cs.changes[0].channel == "profile"


MISTUNED = ["satellite-6.15", "satellite-6.9", "satellite-6.2", "orcharhino-6.9", "capsule-6.15-pull-rex",
            "satellite-6.15-logstash", "capsule-6.15-measured-failure"]


def audit_out(source: Path, tmp_path: Path) -> tuple[dict[str, str], dict[str, object]]:
    hosts = [str(HOSTS[source.name])] if source.name in HOSTS else []
    out = tmp_path / "out"
    result = run_cli("audit", str(source), *([] if not hosts else ["--hosts", *hosts]), "--out", str(out),
                     "--format", "json", "--fail-on", "critical")
    assert result.status in (0, 1), result.stderr
    files = {str(p.relative_to(out)): p.read_text(encoding="utf-8") for p in sorted(out.rglob("*")) if p.is_file()}
    return files, json.loads(result.stdout)


@pytest.mark.parametrize("name", ["example", *MISTUNED])
def test_audit_out_fixes_the_findings_with_the_profile_first_and_no_stale_key(name: str, tmp_path: Path) -> None:
    source = EXAMPLE if name == "example" else SOS / name
    files, report = audit_out(source, tmp_path)
    failing = [f for f in report["findings"] if f["status"] == "fail" and not f.get("waived")]  # type: ignore[index, union-attr]
    # no stale key survives: each key the stale-keys finding names is gone from the written custom-hiera.yaml
    written = _flat(yaml.safe_load(files["custom-hiera.yaml"]) or {})
    stale = [key for f in failing if f["rule"] == "custom-hiera-stale-keys" for key in f["current"]]
    for key in stale:
        assert key not in written, key
    if name in ("example", "satellite-6.15"):  # checkpoint_segments (example), maxrequestsperchild (satellite-6.15)
        assert len(stale) == 1
    # the profile change the audit asks for comes first: in installer.sh and as APPLY.md's first step
    asked = [m.group(1) for f in failing for fix in f["fixes"] for m in [re.search(r"^\S+-installer --tuning (\S+)$", fix)] if m]
    if asked:
        assert re.search(rf"^\S+-installer \\\n  --tuning {asked[0]}\b", files["installer.sh"], flags=re.M)
        first = files["APPLY.md"].split("\n\n")[1]
        assert first.startswith("First, the tuning profile: `") and f"--tuning {asked[0]}`" in first
    # every value written answers a failing finding: each installer option and custom-hiera value is in a fix line
    fix_text = "\n".join(fix for f in failing for fix in f["fixes"])
    for option, value in re.findall(r"^  (--[a-z-]+) (\S+?)(?: \\)?$", files["installer.sh"], flags=re.M):
        if option != "--tuning":
            assert f"{option} {value}" in fix_text, option
    site = _flat(yaml.safe_load(_site_hiera(source)) or {})
    for key, value in written.items():
        if site.get(key) != value:  # what the site had stays; anything new comes from a finding's fix
            assert key.rsplit("/", 1)[-1] in fix_text, key


def _flat(hiera: dict[str, object]) -> dict[str, object]:
    """Flattened keys, hashes as ``key/entry`` (the PostgreSQL entries)."""
    return {f"{key}/{k}" if isinstance(value, dict) else key: v for key, value in hiera.items()
            for k, v in (value.items() if isinstance(value, dict) else [(None, value)])}


def _site_hiera(source: Path) -> str:
    path = source / "etc" / "foreman-installer" / "custom-hiera.yaml"
    return path.read_text(encoding="utf-8") if path.exists() else "{}"


def test_the_example_bundle_is_the_large_profile_with_no_double_channel(tmp_path: Path) -> None:
    """The bundled example: tuning default for 15,120 hosts (satellite_metrics.yml); the guide's large profile is for
    10001-20000 hosts ("2. Performance tuning quickstart"), Puma 18 workers (the top of large's 12-18: 16 CPUs allow it),
    16 threads min = max ("we recommend 16 threads with all the tuning profiles"), db_pool 16 + 4 = 20, Sidekiq 3
    instances x concurrency 5, pulpcore workers min(8, CPUs) = 8, foreman-proxy's dynflow open files 1000000 (the
    installer's own value, not in force: the host shows 1024).
    custom-hiera.yaml loses the stale checkpoint_segments and the foreman::db_pool: 5 that would win over
    --foreman-db-pool; only work_mem (the guide's 8 MB, no installer option) is set there."""
    files, _ = audit_out(EXAMPLE, tmp_path)
    assert files["installer.sh"].splitlines()[2:] == [
        "satellite-installer \\", "  --tuning large \\",
        "  --foreman-dynflow-worker-concurrency 5 \\", "  --foreman-dynflow-worker-instances 3 \\",
        "  --foreman-db-pool 20 \\", "  --foreman-proxy-plugin-dynflow-open-file-limit 1000000 \\",
        "  --foreman-proxy-content-pulpcore-worker-count 8 \\",
        "  --foreman-foreman-service-puma-threads-min 16 \\", "  --foreman-foreman-service-puma-threads-max 16 \\",
        "  --foreman-foreman-service-puma-workers 18"]
    hiera = files["custom-hiera.yaml"]
    assert yaml.safe_load(hiera) == {"postgresql::server::config_entries": {"work_mem": "8MB"}}
    assert "# foretune: removed postgresql::server::config_entries/checkpoint_segments" in hiera
    assert "# foretune: removed foreman::db_pool" in hiera
    steps = files["APPLY.md"]
    assert steps.split("\n\n")[1].startswith("First, the tuning profile: `satellite-installer --tuning large` (now default")
    # every step says how to undo it
    numbered = [line for line in steps.splitlines() if re.match(r"\d+\. ", line)]
    assert len(numbered) == 5 and all("Undo:" in line for line in numbered), numbered
    # the answers file's 40 workers (README of the example) are lowered, and APPLY.md says so, never silently
    assert "`--foreman-foreman-service-puma-workers 18` lowers the site's 40" in steps


def test_the_examples_fix_lines_are_the_change_sets() -> None:
    """The fix lines show what the bundle does: the db pool through its installer option after the custom-hiera key
    that would win over it is removed; the Candlepin heap left to the large profile (-Xmx4096m, fi-tuning-profiles),
    which the installer run writes, instead of a pin that would lock out later --tuning changes."""
    result = run_cli("audit", str(EXAMPLE), "--format", "json", "--fail-on", "critical")
    fixes = {f["rule"]: f["fixes"] for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"}
    assert fixes["foreman-db-pool-too-small"] == [  # each snippet names its file and applies as copied
        "# /etc/foreman-installer/custom-hiera.yaml\n# delete foreman::db_pool: custom-hiera.yaml sets foreman::db_pool: 5, "
        "which wins over --foreman-db-pool", "--foreman-db-pool 20"]
    assert fixes["candlepin-heap-low"] == [
        "# the large profile writes candlepin::java_opts: -Xms1024m -Xmx4096m:\nsatellite-installer --tuning large"]
    assert fixes["profile-too-small-for-hosts"] == ["satellite-installer --tuning large"]
