"""Every rule has a complete doc with resolvable citations; the catalogue covers the guides."""

from __future__ import annotations

import pytest

from foretune.rules.docs import doc_problems
from foretune.rules.registry import all_rules


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.id)
def test_rule_doc_is_complete(rule: object) -> None:
    assert doc_problems(rule) == []  # type: ignore[arg-type]


def test_rule_ids_are_kebab_case_and_severities_set() -> None:
    import re

    for rule in all_rules():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.id), rule.id
        assert rule.title and rule.severity is not None
