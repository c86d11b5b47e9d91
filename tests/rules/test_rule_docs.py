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


# Judged by hand from each rule's "Fix safety" text: the fix deletes data, locks a table, moves data or
# needs a maintenance window, lowers limits, or takes away something an admin may rely on.
UNSAFE_FIXES = {"history-tables-large", "paused-tasks-backlog", "pg-table-bloat", "facts-per-host-over-limit",
                "custom-hiera-locks-profile", "hardware-below-profile", "development-profile-in-use", "apache-mpm-unexpected",
                "capsule-hosts-beyond-tested", "hammer-timeout-at-scale", "database-on-rotational-disk",
                "databases-share-device", "nfs-under-mongodb", "nfs-under-postgresql", "nfs-under-pulp", "qpidd-storage-low",
                "storage-latency-high", "storage-throughput-low", "pg-commit-latency-high", "pg-work-mem-low"}


def test_unsafe_fixes_are_the_ones_judged_unsafe() -> None:
    assert {rule.id for rule in all_rules() if rule.unsafe_fix} == UNSAFE_FIXES


def test_rule_pages_carry_release_and_fix_safety() -> None:
    from foretune.rules.docs import render_all

    pages = render_all()
    for rule in all_rules():
        page = pages[f"{rule.id}.md"]
        assert f"\n- Added in: foretune {rule.version_added}\n" in page, rule.id
        safety = page.split("## Fix safety\n\n", 1)[1]
        if rule.id in UNSAFE_FIXES:
            assert "\n- Fix: unsafe (see Fix safety)\n" in page and safety.startswith("**This rule's fix is marked unsafe**")
        else:
            assert "\n- Fix: safe\n" in page and safety.startswith("This rule's fix is marked safe")
    assert "| [pg-table-bloat](pg-table-bloat.md) | low | " in pages["index.md"]
    assert pages["index.md"].count(" | unsafe |") == len(UNSAFE_FIXES)


def test_a_rule_without_its_own_version_added_is_refused() -> None:
    from foretune.rules.base import Severity
    from foretune.rules.docs import metadata_problems

    model = next(r for r in all_rules() if r.id == "pg-table-bloat")
    assert metadata_problems(model) == []
    unversioned = type("Unversioned", (type(model),), {"severity": Severity.LOW})()
    assert metadata_problems(unversioned) == [
        "pg-table-bloat: the rule class must set its own version_added (the foretune release, e.g. 0.1.0)"]
    future = type("Future", (type(model),), {"version_added": "99.0.0"})()
    assert metadata_problems(future) == ["pg-table-bloat: version_added 99.0.0 is newer than foretune 0.1.0"]
