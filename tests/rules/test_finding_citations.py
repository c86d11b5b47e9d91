"""A finding cites the sources for what it found."""

from __future__ import annotations

from foretune.audit.context import build_context
from foretune.audit.runner import run_rule
from tests.rules.test_rule_fixtures import FIXTURES, RULES, fact_set, load_fixture


def test_stale_prefork_key_cites_the_event_mpm_change() -> None:
    path = FIXTURES / "custom-hiera-stale-keys" / "fail-prefork-on-6.15.yaml"
    data = load_fixture(path)
    ctx, _ = build_context(fact_set(path, data["facts"]))
    assert run_rule(RULES["custom-hiera-stale-keys"], ctx).citations == ("fi-event-mpm",)
