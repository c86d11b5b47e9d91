"""One value per tunable: every number a report recommends for a tunable is the same everywhere in that report.

Each finding lists what its fixes put in force (``recommends``: hiera key, unit:LimitNOFILE, sysctl, file:directive,
profile); over every fixture, with no host figure, one inside its range and one far beyond it, no tunable may get
two values, symptoms joined under a cause included, and every such value is the one the change set (the
--output-dir files, --format hiera, APPLY.md and the fix lines) gives for that key.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from foretune.audit.combine import combine
from foretune.audit.context import build_context
from foretune.audit.runner import run_all
from foretune.changes.build import fix_key, installer_option
from foretune.commands.apply import _audit_change_set
from foretune.commands.audit import change_set
from foretune.facts import read_source
from foretune.plan.model import Fix
from foretune.rules.registry import all_rules
from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
FIXTURES = [*sorted(p for p in SOS.iterdir() if p.is_dir()), REPO / "examples" / "sosreport-satellite-6.15-mistuned"]


def report(source: Path, *extra: str) -> list[dict[str, Any]]:
    result = run_cli("audit", str(source), *extra, "--format", "json", "--fail-on", "critical")
    assert result.status in (0, 1), result.stderr
    top = [f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"]
    return [*top, *(s for f in top for s in f["symptoms"])]


@pytest.mark.parametrize("hosts", [None, "4000", "30000"], ids=["no-context", "4000", "30000"])
@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_no_report_holds_two_values_for_one_tunable(source: Path, hosts: str | None) -> None:
    values: dict[str, set[str]] = defaultdict(set)
    for f in report(source, *(("--hosts", hosts) if hosts else ())):
        for pair in f["recommends"]:
            values[pair["tunable"]].add(json.dumps(pair["value"]))
    assert {k: v for k, v in values.items() if len(v) > 1} == {}


def test_a_saturated_pool_names_the_worker_count_the_report_recommends() -> None:
    # satellite-6.15 with 30000 hosts: extra-large is refused on 16 CPUs / 63.8 GiB, large is the largest profile the
    # installer accepts, whose guide range for Puma workers is 12-18 (guide 5.2.4, hand-read): 18 everywhere
    found = {f["rule"]: f for f in report(SOS / "satellite-6.15", "--hosts", "30000")}
    workers = found["puma-workers-outside-range"]
    assert workers["recommended"] == 18
    assert {"tunable": "foreman::foreman_service_puma_workers", "value": 18} in workers["recommends"]
    assert "best for large, the largest profile the installer accepts here (30000 hosts need extra-large)" in workers["message"]
    # the saturated pool and the range pull the same way: 24 workers down to the guide's 18, then hardware
    saturated = found["puma-pool-saturated"]
    assert saturated["fixes"][-1]["kind"] == "advice"
    assert saturated["fixes"][-1]["text"].startswith("24 workers are more than the 18 the guide sizes for this hardware")
    assert "set 18 (the fix of puma-workers-outside-range), then add hardware if the backlog stays" in saturated["fixes"][-1]["text"]
    assert not any("more would oversubscribe" in fix["text"] for fix in saturated["fixes"])
    assert {"tunable": "profile", "value": "large"} in found["profile-too-small-for-hosts"]["recommends"]


PG_LOG = "2024-02-12 08:01:02 UTC FATAL:  sorry, too many clients already\n"


def test_refused_connections_and_the_budget_ask_for_one_max_connections(tmp_path: Path) -> None:
    # example-mistuned: max_connections 500 covers the 309 the services open now (40 Puma workers x its pool 5 + the
    # rest) but not the 909 once the pool is raised to 16 threads + 4 (40 x 20 + the rest); the change set moves Puma to the large profile's 18 workers through the installer, so both findings ask
    # for the large profile's max_connections 1000 (foreman-installer config/foreman.hiera/tuning/sizes/large.yaml),
    # the value sized for the workers that run once the change is in force, not 1100 for the 40 it replaces
    tree = tmp_path / "sos"
    shutil.copytree(REPO / "examples" / "sosreport-satellite-6.15-mistuned", tree, symlinks=True)
    log = tree / "var/lib/pgsql/data/log/postgresql-Mon.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(PG_LOG, encoding="utf-8")
    found = {f["rule"]: f for f in report(tree)}
    budget = found["pg-max-connections-below-budget"]
    assert budget["recommended"] == 1000
    assert [s["rule"] for s in budget["symptoms"]] == ["pg-connection-exhaustion"]
    assert budget["symptoms"][0]["recommended"] == 1000


def test_the_budget_s_parts_add_up_to_the_total_it_gives(tmp_path: Path) -> None:
    # example-mistuned with PostgreSQL refusals logged: max_connections 500 covers the 309 open now, so the critical
    # gives the 909 of the raised pool, and its parts must be that budget's (by hand: hosts queue 1 + 2 = 3, Candlepin
    # 25, container gateway 4, superuser reserved 3, Puma 40 workers x (16 threads + 4) = 800 from pumactl stats,
    # Sidekiq 1 x (15 + 2) + orchestrator (1 + 2) = 20, pulpcore 16 x 2 + 22 gunicorn = 54), not the pool in force's
    tree = tmp_path / "sos"
    shutil.copytree(REPO / "examples" / "sosreport-satellite-6.15-mistuned", tree, symlinks=True)
    log = tree / "var/lib/pgsql/data/log/postgresql-Mon.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(PG_LOG, encoding="utf-8")
    message = {f["rule"]: f for f in report(tree)}["pg-max-connections-below-budget"]["message"]
    assert "may open 909 once the Foreman pool is raised" in message and "(309 with the pool in force)" in message
    listed = message[message.index("(Katello"):message.index("): expect")]
    parts = re.findall(r"(?:^\(|; )([^;]+): (\d+)(?=;|$)", listed)
    assert dict(parts) == {"Katello hosts-queue worker (1 + 2)": "3", "Candlepin": "25",
                           "Smart Proxy container gateway": "4", "superuser reserved": "3",
                           "Puma 40 workers x (16 threads + 4), from pumactl stats": "800",
                           "Sidekiq 1 worker x (15 + 2) + orchestrator (1 + 2)": "20",
                           "pulpcore 16 workers x 2 + 22 gunicorn": "54"}
    assert sum(int(n) for _, n in parts) == 909  # the total the message gives


@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_no_report_gives_one_fix_twice(source: Path) -> None:
    # a restart is not a change: each finding whose own edit needs it keeps it, so that fix pasted alone takes effect
    fixes = [fix["text"] for f in report(source, "--hosts", "30000") for fix in f["fixes"]
             if not fix["text"].startswith(("systemctl restart ", "systemctl daemon-reload && systemctl restart "))]
    assert sorted({fix for fix in fixes if fixes.count(fix) > 1}) == []


EXAMPLE = REPO / "examples" / "sosreport-satellite-6.15-mistuned"


def test_the_example_reads_as_one_problem_per_finding() -> None:
    # examples/sosreport-satellite-6.15-mistuned (by hand): MemAvailable 2621440 kB of 66924544, 1.5 GiB of 4 GiB swap
    # used; worker.yml concurrency 15 and 1 Sidekiq worker; 40 Puma workers (guide 12-18 for the large profile its
    # 15120 hosts need); max_connections 500; httpd LimitNOFILE=1024 in systemctl show
    top = json.loads(run_cli("audit", str(EXAMPLE), "--format", "json", "--fail-on", "critical").stdout)["findings"]
    found = {f["rule"]: f for f in top if f["status"] == "fail"}
    budget = found["memory-budget-over-ram"]
    assert "swap-in-use" not in found and [s["rule"] for s in budget["symptoms"]] == ["swap-in-use"]
    excerpts = [(e["location"], e["excerpt"]) for e in budget["evidence"]]
    assert ("proc/meminfo", "MemTotal:       66924544 kB") not in excerpts  # held by the MemTotal | MemAvailable line
    assert len(excerpts) == len(set(excerpts))
    few, high = found["sidekiq-too-few-instances"], found["sidekiq-concurrency-high"]
    assert {"option": "--foreman-dynflow-worker-instances", "value": "3"} in high["fixes"][0]["options"] and few["fixes"] == []
    assert "the fix is part of sidekiq-concurrency-high's" in few["message"]
    # Candlepin's threads and max_connections are sized for the 18 workers the change set runs (18 x 16 = 288)
    tomcat = found["candlepin-tomcat-threads"]
    assert tomcat["recommended"] == 288 and "Puma's 18 workers x 16 threads the change set leaves = 288 (40 run now)" in tomcat["message"]
    assert 'maxThreads="288"' in tomcat["fixes"][0]["text"]
    assert "sized for the 40 Puma workers running now" not in tomcat["message"]
    # max_connections is a value --tuning large writes: listed under profile-too-small-for-hosts
    under = {s["rule"]: s for s in found["profile-too-small-for-hosts"]["symptoms"]}
    assert "(its Puma workers replace the ones running now)" in under["pg-max-connections-below-budget"]["message"]
    text = run_cli("audit", str(EXAMPLE), "--fail-on", "critical").stdout
    # a unit's systemctl show lines, one evidence line each (they are not adjacent in the file), the unit's Id first
    assert ("systemctl_show_service_--all: Id=httpd.service\n" + " " * 10 + "evidence: sos_commands/systemd/systemctl_show_service_--all: "
            "LimitNOFILE=1024\n" + " " * 10 + "evidence: sos_commands/systemd/systemctl_show_service_--all: LimitNOFILESoft=1024") in text


def findings_and_changes(source: Path, hosts: int | None) -> tuple[list[Any], Any]:
    """The audit's findings (symptoms under their root causes) and the change set its outputs are written from, built
    as `foretune audit` builds them."""
    facts = read_source(str(source), hosts=hosts)
    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    findings = combine(run_all(all_rules(), ctx), all_rules())
    if ctx.plan is None:
        return findings, None
    return findings, change_set(SimpleNamespace(findings=findings), ctx.fix_plan or ctx.plan, facts)


def values_in(changes: Any, key: str) -> set[str]:
    """Every value the change set's outputs give for ``key`` (a finding's ``recommends`` name): what they set, else
    what they leave to the profile (``given``), else what they refuse (``blocked``, with the reason)."""
    option = installer_option(key.split("/", 1)[0]) if "/" not in key else None
    outer, _, inner = key.partition("/")

    def found(entries: list[tuple[str, str, Any]]) -> set[str]:
        out = set()
        for channel, target, value in entries:
            here = fix_key(Fix("file", target, value)) if channel == "file" else target
            line = re.match(r"\s*[\w.:-]+?\s*(?:=|\s)\s*(.+)", str(value)) if channel == "file" else None
            if channel == "profile" if key == "profile" else channel != "tuned" and here in (key, option):
                out.add(line.group(1).strip() if line else str(value))  # a file edit: the value after its directive
            elif inner and here == outer and isinstance(value, dict) and inner in value:
                out.add(str(value[inner]))
        return out

    return (found([(c.channel, c.target, c.value) for c in changes.changes if c.op == "set"])
            or found([("custom-hiera", target, value) for target, value, _ in changes.given])
            or found([(b.change.channel, b.change.target, b.change.value) for b in changes.blocked]))


@pytest.mark.parametrize("hosts", [None, 4000, 30000], ids=["no-context", "4000", "30000"])
@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_every_recommended_value_is_the_change_sets(source: Path, hosts: int | None) -> None:
    # what a finding (or a symptom under it) recommends is what the change set writes, leaves to the profile, or
    # refuses: never another number for the same key, and never missing from it
    findings, changes = findings_and_changes(source, hosts)
    if changes is None:
        return
    facts = read_source(str(source), hosts=hosts)
    ctx, _ = build_context(facts, hosts=hosts, bench=[])
    plan = ctx.fix_plan or ctx.plan
    # a value the site's installer answers already give is in force after the run without the set passing it again
    answered = {own.target: str(t.installer.value) for t in plan.tunables.values()
                if t.installer.origin and not t.differs and t.installer.value == t.foretune.value for own in t.fixes}
    for f in findings:
        if not f.counts:
            continue
        for x in (f, *f.symptoms):
            for key, value in x.recommends:
                given = values_in(changes, key)
                assert given == {str(value)} or (not given and answered.get(key) == str(value)), (x.rule_id, key, value)


def test_the_example_writes_the_values_its_findings_recommend(tmp_path: Path) -> None:
    # examples/sosreport-satellite-6.15-mistuned, by hand: the services in force may open 909 connections (40 Puma
    # workers x 20 + the rest, see test_refused_connections_and_the_budget_ask_for_one_max_connections), but the set
    # runs the large profile's 18 workers: max_connections 1000 in the finding, written by --tuning large (so
    # custom-hiera.yaml does not pin it) and nowhere 1100;
    # shared_buffers 8GB is what --tuning large writes (the large profile, hand-read from foreman-installer's
    # config/foreman.hiera/tuning/sizes/large.yaml), so the finding recommends 8GB and custom-hiera pins nothing
    out = tmp_path / "out"
    result = run_cli("audit", str(EXAMPLE), "--output-dir", str(out), "--format", "json")
    # both are values --tuning large writes: listed under profile-too-small-for-hosts
    found = {f["rule"]: f for x in json.loads(result.stdout)["findings"] if x["status"] == "fail" for f in (x, *x["symptoms"])}
    assert found["pg-max-connections-below-budget"]["recommended"] == 1000
    assert found["pg-shared-buffers-out-of-range"]["recommended"] == "8GB"
    hiera = (out / "custom-hiera.yaml").read_text(encoding="utf-8")
    entries = yaml.safe_load(hiera)["postgresql::server::config_entries"]
    assert "max_connections" not in entries and "shared_buffers" not in entries
    assert re.findall(r"max_connections: (\d+)", hiera) == []
    assert "connection budget 457" not in hiera  # the reason is the finding's, not the plan's for its own 1000
    installer = (out / "installer.sh").read_text(encoding="utf-8")
    assert "--tuning large" in installer and "--foreman-foreman-service-puma-workers 18" in installer
    fix = " ".join(x["text"] for x in found["pg-max-connections-below-budget"]["fixes"])
    assert "max_connections: 1000" in fix and "1100" not in fix


@pytest.mark.parametrize("hosts", [None, 30000], ids=["no-context", "30000"])
@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_apply_audit_applies_the_change_set_the_audit_writes(source: Path, hosts: int | None) -> None:
    # `apply --audit` and `audit --output-dir` fix one box with one change set: the same values through the same
    # channels (the audit's report combines symptoms under their causes; the changes must not depend on it)
    _, written = findings_and_changes(source, hosts)
    if written is None:
        return
    applied = _audit_change_set(read_source(str(source), hosts=hosts), hosts)

    def rows(cs: Any) -> list[tuple[str, str, str, str, str]]:
        return sorted((c.tunable, c.channel, c.target, str(c.value), c.op) for c in cs.changes)

    assert rows(applied) == rows(written)


def test_a_figure_sized_from_running_workers_names_no_count_the_report_does_not_recommend(tmp_path: Path) -> None:
    # satellite-6.15-tuned with 10 Puma workers of 16 threads (medium; the guide's 8-12 workers for medium, hand-read
    # from 5.2.4): the worker count stands, so Tomcat's threads (10 x 16 = 160 > 150) speak of no other worker count
    tree = tmp_path / "sos"
    shutil.copytree(SOS / "satellite-6.15-tuned", tree, symlinks=True)
    dropin = tree / "etc/systemd/system/foreman.service.d/installer.conf"
    text = re.sub(r"FOREMAN_PUMA_WORKERS=\d+", "FOREMAN_PUMA_WORKERS=10", dropin.read_text(encoding="utf-8"))
    dropin.write_text(re.sub(r"(FOREMAN_PUMA_THREADS_M(?:IN|AX))=\d+", r"\1=16", text), encoding="utf-8")  # the guide's 16
    # and systemd runs them (systemctl show; pumactl stats, of the 12 x 5 before, gone): Tomcat is sized for what runs
    show = tree / "sos_commands/systemd/systemctl_show_service_--all"
    text = re.sub(r"FOREMAN_PUMA_WORKERS=\d+", "FOREMAN_PUMA_WORKERS=10", show.read_text(encoding="utf-8"))
    show.write_text(re.sub(r"(FOREMAN_PUMA_THREADS_M(?:IN|AX))=\d+", r"\1=16", text), encoding="utf-8")
    (tree / "sos_commands/foreman/pumactl_stats").unlink()
    found = {f["rule"]: f for f in report(tree)}
    assert "puma-workers-outside-range" not in found
    threads = found["candlepin-tomcat-threads"]
    assert "10 workers x 16 threads = 160" in threads["message"] and "recommended for this box" not in threads["message"]


@pytest.mark.parametrize(("source", "workers"), [(SOS / "satellite-6.15-overcommitted", 12), (EXAMPLE, 18)],
                         ids=["overcommitted", "example"])
def test_apply_md_names_no_puma_worker_count_but_the_findings(source: Path, workers: int, tmp_path: Path) -> None:
    # satellite-6.15-overcommitted, by hand: custom-hiera pins 24 Puma workers on a medium box (guide 8-12); the finding
    # asks for 12. The plan's memory-range note would say "run 4 Puma workers fewer" (12 - 4 = 8): a second worker
    # count in the same bundle. The example: the answers file keeps 40 workers, the finding asks for large's 18 (guide
    # 12-18). APPLY.md and installer.sh name the finding's count, and the site's kept count only as what it lowers.
    out = tmp_path / "fixes"
    result = run_cli("audit", str(source), "--output-dir", str(out), "--format", "json", "--fail-on", "critical")
    top = json.loads(result.stdout)["findings"]
    asked = {v["value"] for x in top for f in (x, *x["symptoms"]) for v in f["recommends"]
             if v["tunable"] == "foreman::foreman_service_puma_workers"}
    assert asked == {workers}
    steps = (out / "APPLY.md").read_text(encoding="utf-8")
    assert "Puma workers fewer" not in steps and "Puma worker fewer" not in steps
    assert set(re.findall(r"puma-workers (\d+)", steps)) == {str(workers)}
    assert re.findall(r"puma-workers (\d+)", (out / "installer.sh").read_text(encoding="utf-8")) == [str(workers)]
    hiera = (out / "custom-hiera.yaml").read_text(encoding="utf-8")
    assert not re.search(r"^\s*foreman::foreman_service_puma_workers:", hiera, flags=re.M)  # removed, never kept


def test_connection_budget_counts_the_pool_in_force() -> None:
    # satellite-6.14-tuned: installer.conf runs 12 Puma workers x 16 threads, database.yml pins pool: 16 (Satellite
    # 6.14 = puppet-foreman before 25.0.0, whose pool is max(db_pool 5, threads_max) = 16). Each worker opens at most
    # its pool: 12 x 16 = 192 now, not the 12 x 20 = 240 of the pool foreman-db-pool-too-small recommends
    from foretune.rules.recommend import running_budget_parts  # start-up: test-only
    source = REPO / "tests/fixtures/sosreports/satellite-6.14-tuned"
    ctx, _ = build_context(read_source(str(source)), hosts=None, bench=[])
    now = dict(running_budget_parts(ctx))
    after = dict(running_budget_parts(ctx, after_change=True))
    # each part names its formula and where the workers and threads come from (the sosreport's systemctl show)
    assert now["Puma 12 workers x database.yml pool 16, from systemctl show foreman.service"] == 192
    assert after["Puma 12 workers x (16 threads + 4), from systemctl show foreman.service"] == 240
    # the other consumers are the same before and after the pool change
    assert {k: v for k, v in now.items() if not k.startswith("Puma")} == {k: v for k, v in after.items() if not k.startswith("Puma")}


def test_max_connections_that_covers_now_but_not_the_raised_pool_is_low() -> None:
    # example-mistuned: database.yml pool: 5 with 40 Puma workers x 16 threads; max_connections 500 covers the 40 x 5
    # they open now but not the 40 x 20 = 800 once the pool is raised: a consequence of the pool fix, not a fault now
    source = REPO / "examples" / "sosreport-satellite-6.15-mistuned"
    ctx, _ = build_context(read_source(str(source)), hosts=None, bench=[])
    budget = next(r for r in run_all(all_rules(), ctx) if r.rule_id == "pg-max-connections-below-budget")
    assert budget.severity.name == "LOW"
    assert "Puma 40 workers x database.yml pool 5, from pumactl stats: 200" in budget.message
    assert "once the Foreman pool is raised" in budget.message


def test_no_memory_raising_change_while_the_box_is_short_of_memory() -> None:
    # example-mistuned measures MemAvailable 2621440 kB of 66924544 kB (3.9 %, under the 5 % critical fraction) with
    # 1.5 of 4 GiB swap in use (37.5 %, over the 25 % mark):
    # pg-work-mem-low holds work_mem 4MB (free or add memory first), so the hiera the audit writes raises nothing
    hiera = run_cli("audit", str(EXAMPLE), "--format", "hiera").stdout
    assert "work_mem" not in hiera
    work_mem = next(f for f in report(EXAMPLE) if f["rule"] == "pg-work-mem-low")
    assert work_mem["recommended"] == "free or add memory first"


def written_values(out: Path) -> dict[str, set[str]]:
    """What the --output-dir files give, by the names a finding's ``recommends`` uses: each installer option of
    installer.sh, each custom-hiera.yaml key (PostgreSQL entries as ``hash/setting``), the profile, and the Tomcat
    maxThreads APPLY.md asks for."""
    values: dict[str, set[str]] = defaultdict(set)
    script = out / "installer.sh"
    if script.is_file():
        for option, value in re.findall(r"^\s+(--[\w-]+) (\S+?)(?: \\)?$", script.read_text(encoding="utf-8"), re.M):
            values["profile" if option == "--tuning" else option].add(value)
    hiera = out / "custom-hiera.yaml"
    if hiera.is_file():
        data = yaml.safe_load(hiera.read_text(encoding="utf-8")) or {}
        for key, value in data.items():
            for inner, each in (value.items() if isinstance(value, dict) else [("", value)]):
                values[f"{key}/{inner}" if inner else key].add(str(each))
    apply_md = out / "APPLY.md"
    if apply_md.is_file():
        values["maxThreads"].update(re.findall(r'maxThreads="(\d+)"', apply_md.read_text(encoding="utf-8")))
    return values


@pytest.mark.parametrize("hosts", [None, "30000"], ids=["no-context", "30000"])
@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_the_report_and_its_output_dir_give_one_value_per_tunable(source: Path, hosts: str | None, tmp_path: Path) -> None:
    # one run writes the report (JSON on stdout) and its --output-dir: every value the report recommends for a key the
    # files also set is the files' value, Candlepin's Tomcat maxThreads included (the report said 640 where APPLY.md
    # said 288 before both came from the change set)
    out = tmp_path / "fixes"
    result = run_cli("audit", str(source), *(("--hosts", hosts) if hosts else ()), "--output-dir", str(out),
                     "--format", "json", "--fail-on", "critical")
    if result.status not in (0, 1):  # no plan (version or hardware unknown): nothing is written
        assert "no fixes to write" in result.stderr
        return
    top = [f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail" and not f.get("waived")]
    said: dict[str, set[str]] = defaultdict(set)
    for f in (*top, *(s for t in top for s in t["symptoms"])):
        for pair in f["recommends"]:
            key = pair["tunable"]
            said[installer_option(key) or key if "/" not in key else key].add(str(pair["value"]))
        said["maxThreads"].update(n for text in (*(x["text"] for x in f["fixes"]), f["message"]) for n in re.findall(r'maxThreads="(\d+)"', text))
        if f["rule"] == "candlepin-tomcat-threads" and isinstance(f["recommended"], int) and f["fixes"]:
            said["maxThreads"].add(str(f["recommended"]))
    written = written_values(out)
    differ = {key: (said[key], written[key]) for key in said if key in written and said[key] != written[key]}
    assert differ == {}
    if said.get("maxThreads"):  # a maxThreads edit the report asks for is the one APPLY.md asks for
        assert said["maxThreads"] == written.get("maxThreads"), (said["maxThreads"], written.get("maxThreads"))
