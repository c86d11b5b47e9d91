"""A finding cites the sources for what it found and shows evidence about it."""

from __future__ import annotations

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from foretune.rules.base import Outcome
from tests.rules.test_rule_fixtures import FIXTURES, RULES, fact_set, load_fixture


def _outcome(rule_id: str, name: str) -> Outcome:
    path = FIXTURES / rule_id / f"{name}.yaml"
    data = load_fixture(path)
    ctx, _ = build_context(fact_set(path, data["facts"]))
    return run_rule(RULES[rule_id], ctx)


def test_stale_prefork_key_cites_the_event_mpm_change() -> None:
    assert _outcome("custom-hiera-stale-keys", "fail-prefork-on-6.15").citations == ("fi-event-mpm",)


def test_missing_proxy_timeout_shows_no_unrelated_directive() -> None:
    evidence = _outcome("capsule-proxy-timeout", "fail-unset").evidence
    assert [(e.excerpt, e.note) for e in evidence] == [("", "no line of the httpd configuration sets ProxyTimeout")]


def test_redis_near_its_limit_asks_for_twice_what_is_used() -> None:
    # 2,040,109,466 bytes used (1.9 GiB) at 50 % of maxmemory: 3.8 GiB
    assert _outcome("redis-memory-near-limit", "fail-near").recommended == "maxmemory above 3.8 GiB or 0"
