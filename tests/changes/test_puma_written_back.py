"""An audit's set that runs the installer says when that run replaces hand-edited Puma values in force (installer.conf
rewritten from the answers file or custom-hiera), and how to keep them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from foretune.audit.context import build_context
from foretune.changes.build import puma_written_back
from foretune.changes.model import Change, ChangeSet
from tests.rules.test_rule_fixtures import FIXTURES, fact_set

BASE = yaml.safe_load((FIXTURES / "_base" / "satellite-6.15.yaml").read_text(encoding="utf-8"))
HAND = {"workers": 12, "threads_min": 5, "threads_max": 5}  # installer.conf edited by hand
ANSWERS = {"foreman": {"foreman_service_puma_workers": 40, "foreman_service_puma_threads_min": 0,
                       "foreman_service_puma_threads_max": 16}}
POOL = Change("foreman.db_pool", "installer", "--foreman-db-pool", 20)


def note(facts: dict[str, Any], *changes: Change) -> str:
    merged = {**BASE, "product_version": "6.16.1", "foreman_version": "3.12.0", **facts}
    fs = fact_set(Path("puma.yaml"), merged)
    ctx, _ = build_context(fs)
    assert ctx.plan is not None
    return puma_written_back(ChangeSet("Satellite 6.16", changes), ctx.plan, fs)


def test_the_hand_edit_the_installer_run_replaces_is_named_with_how_to_keep_it() -> None:
    text = note({"puma": HAND, "puma_loaded": HAND, "installer_answers": ANSWERS}, POOL)
    assert ("Puma 40 workers x 0/16 threads replace the 12 workers x 5/5 threads in force now (installer.conf edited by "
            "hand, not what the installer writes)") in text
    assert "the database pool of 20 in this set is sized for the 16 threads after the run" in text
    assert ("To keep 12 workers x 5/5 threads, pass --foreman-foreman-service-puma-workers 12 "
            "--foreman-foreman-service-puma-threads-min 5 --foreman-foreman-service-puma-threads-max 5 to it") in text


def test_the_sets_own_puma_values_are_what_runs_after() -> None:
    workers = Change("puma.workers", "installer", "--foreman-foreman-service-puma-workers", 18)
    text = note({"puma": HAND, "installer_answers": ANSWERS}, POOL, workers)
    assert "Puma 18 workers x 0/16 threads replace the 12 workers x 5/5 threads" in text


def test_custom_hiera_values_are_kept_in_custom_hiera() -> None:
    hiera = {"foreman::foreman_service_puma_threads_min": 8, "foreman::foreman_service_puma_threads_max": 8}
    text = note({"puma": HAND, "installer_answers": {"foreman": {"foreman_service_puma_workers": 12}},
                 "custom_hiera": hiera}, POOL)
    assert "from custom-hiera.yaml and this set: Puma 12 workers x 8/8 threads replace" in text
    assert ("set foreman::foreman_service_puma_workers: 12, foreman::foreman_service_puma_threads_min: 5, "
            "foreman::foreman_service_puma_threads_max: 5 in /etc/foreman-installer/custom-hiera.yaml") in text


def test_nothing_when_the_values_in_force_are_the_installers_or_no_installer_runs() -> None:
    same = {"workers": 40, "threads_min": 0, "threads_max": 16}
    assert note({"puma": same, "installer_answers": ANSWERS}, POOL) == ""
    tuned = Change("tuned.profile", "tuned", "profile", "virtual-guest", effect="tuned-adm")
    assert note({"puma": HAND, "installer_answers": ANSWERS}, tuned) == ""
    assert note({"puma": HAND}, POOL) == ""  # no answers file nor custom-hiera: what the installer writes is unknown
