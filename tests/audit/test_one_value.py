"""One value per tunable: every number a report recommends for a tunable is the same everywhere in that report.

Each finding lists what its fixes put in force (``recommends``: hiera key, unit:LimitNOFILE, sysctl, file:directive,
profile); over every fixture, with no host figure, one inside its range and one far beyond it, no tunable may get
two values, symptoms joined under a cause included.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

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
    advice = found["puma-pool-saturated"]["fixes"][0]
    assert re.search(r"what the guide sizes for this hardware \((\d+)\)", advice).group(1) == "18"  # type: ignore[union-attr]
    assert {"tunable": "profile", "value": "large"} in found["profile-too-small-for-hosts"]["recommends"]


PG_LOG = "2024-02-12 08:01:02 UTC FATAL:  sorry, too many clients already\n"


def test_refused_connections_and_the_budget_ask_for_one_max_connections(tmp_path: Path) -> None:
    # example-mistuned: max_connections 500 under the 909 the services in force may open; PostgreSQL refusing
    # clients must ask for the same 1100 (909 + 20 % headroom, rounded up to 100) the budget finding asks for
    tree = tmp_path / "sos"
    shutil.copytree(REPO / "examples" / "sosreport-satellite-6.15-mistuned", tree, symlinks=True)
    log = tree / "var/lib/pgsql/data/log/postgresql-Mon.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(PG_LOG, encoding="utf-8")
    found = {f["rule"]: f for f in report(tree)}
    budget = found["pg-max-connections-below-budget"]
    assert budget["recommended"] == 1100
    assert [s["rule"] for s in budget["symptoms"]] == ["pg-connection-exhaustion"]
    assert budget["symptoms"][0]["recommended"] == 1100


@pytest.mark.parametrize("source", FIXTURES, ids=lambda p: p.name)
def test_no_report_gives_one_fix_twice(source: Path) -> None:
    fixes = [fix for f in report(source, "--hosts", "30000") for fix in f["fixes"]]
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
    assert "--foreman-dynflow-worker-instances 3" in high["fixes"] and few["fixes"] == []
    assert "the fix is part of sidekiq-concurrency-high's" in few["message"]
    for rule in ("pg-max-connections-below-budget", "candlepin-tomcat-threads"):  # sized from the workers running now
        assert "sized for the 40 Puma workers running now (the 18 recommended for this box need fewer)" in found[rule]["message"]
    text = run_cli("audit", str(EXAMPLE), "--fail-on", "critical").stdout
    assert "systemctl_show_service_--all: Id=httpd.service | LimitNOFILE=1024 | LimitNOFILESoft=1024" in text
