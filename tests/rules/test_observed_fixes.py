"""Rules that saw a limit fail in the logs never recommend lowering it."""

from __future__ import annotations

import json
from pathlib import Path

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.rules.base import Outcome
from tests.conftest import REPO, run_cli
from tests.rules.test_rule_fixtures import FIXTURES, RULES, fact_set, load_fixture

SOS = REPO / "tests" / "fixtures" / "sosreports"


def _outcome(rule_id: str, name: str) -> Outcome:
    path = FIXTURES / rule_id / f"{name}.yaml"
    data = load_fixture(Path(path))
    ctx, _ = build_context(fact_set(path, data["facts"]))
    return run_rule(RULES[rule_id], ctx)


def test_db_pool_timeout_sizes_for_the_threads_in_force() -> None:
    outcome = _outcome("foreman-db-pool-timeout", "fail-pool-above-plan-for-threads-in-force")
    assert outcome.recommended == 36  # 32 threads in force + 4 (puppet-foreman: threads_max + 4)
    assert [(f.target, f.value) for f in outcome.fixes] == [("foreman::db_pool", 36)]


def test_open_files_exhausted_never_lowers_the_limit() -> None:
    outcome = _outcome("open-files-exhausted", "fail-limit-above-plan")
    assert outcome.current == 1000000
    assert outcome.recommended == "a higher LimitNOFILE for httpd than 1000000"
    # no limit to set (the plan's is lower): advice to find the holder first, naming the drop-in directory
    assert [(f.kind, f.target) for f in outcome.fixes] == [("advice", "httpd")]
    # twice 1000000 is past fs.nr_open's 1048576 (linux fs/file.c: sysctl_nr_open = 1024*1024): no raise can be set
    assert str(outcome.fixes[0].value).endswith("before raising LimitNOFILE further in a drop-in under "
                                               "/etc/systemd/system/httpd.service.d/ (twice 1000000 would pass the "
                                               "kernel's fs.nr_open ceiling of 1048576, which LimitNOFILE cannot exceed)")


def test_a_service_that_ran_out_at_a_limit_above_the_plan_gets_a_drop_in_that_doubles_it() -> None:
    """capsule-6.15-measured-failure: mosquitto "system socket count has been exceeded" at LimitNOFILE=65536, above
    the plan's 5000 (4000 pull hosts + 10 %): the guide's limits.conf drop-in with 131072, then the look for the cause."""
    text = run_cli("audit", str(SOS / "capsule-6.15-measured-failure"), "--format", "json").stdout
    f = next(f for f in json.loads(text)["findings"] if f["rule"] == "open-files-exhausted")
    assert (f["severity"], f["current"], f["recommended"]) == ("critical", 65536, 131072)
    drop_in, look = f["fixes"][:2]
    assert (drop_in["kind"], drop_in["file"], drop_in["content"]) == (
        "file", "/etc/systemd/system/mosquitto.service.d/limits.conf", "[Service]\nLimitNOFILE=131072")
    assert look["kind"] == "advice" and look["text"].startswith("then find what holds mosquitto's descriptors")
    # the drop-in takes effect: daemon-reload and the restart, as a command of its own
    assert f["fixes"][-1]["command"] == "systemctl daemon-reload && systemctl restart mosquitto"
    assert {"linux-nr-open", "foretune-estimate"} <= {c["id"] for c in f["citations"]}


def test_an_oom_kill_on_a_box_whose_budget_fits_ram_gets_the_ram_it_lacked() -> None:
    """capsule-6.15-measured-failure: dmesg "Killed process 3310 (pulpcore-worker) ... anon-rss:3120440kB", MemTotal
    33370112 kB, and the Capsule's services fit that RAM: the fix names the RAM that gives the process room,
    (33370112 + 3120440) kB = 34.8 GiB, so at least 35 GiB."""
    text = run_cli("audit", str(SOS / "capsule-6.15-measured-failure"), "--format", "json").stdout
    f = next(f for f in json.loads(text)["findings"] if f["rule"] == "oom-kills")
    assert f["fixes"][-1]["text"] == ("add RAM to at least 35 GiB (31.8 GiB now + the 3.0 GiB the killed pulpcore-worker held, "
                              "which the box could not give it), then audit again after a day of normal load")
