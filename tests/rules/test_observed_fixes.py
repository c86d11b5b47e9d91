"""Rules that saw a limit fail in the logs never recommend lowering it."""

from __future__ import annotations

from pathlib import Path

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.rules.base import Outcome
from tests.rules.test_rule_fixtures import FIXTURES, RULES, fact_set, load_fixture


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
    assert str(outcome.fixes[0].value).endswith("before raising LimitNOFILE further in a drop-in under "
                                               "/etc/systemd/system/httpd.service.d/")
