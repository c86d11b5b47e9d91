"""An oracle for custom-hiera merges that does not ask render/merge.py: what was set reads back as set, under
two YAML loaders; what was not touched reads back as before; what was removed is gone."""

from __future__ import annotations

from typing import Any

import yaml
from ruamel.yaml import YAML

PG = "postgresql::server::config_entries"


def yaml12(text: str) -> Any:
    """``text`` read by a second loader: ruamel.yaml's pure-Python safe loader (YAML 1.2, unlike PyYAML's 1.1)."""
    return YAML(typ="safe", pure=True).load(text)


def check_merge(before_text: str, merged_text: str, values: dict[str, Any], remove: list[str] | tuple[str, ...] = ()) -> None:
    """Assert the merged file holds exactly what setting ``values`` and removing ``remove`` should leave."""
    before = yaml.safe_load(before_text) or {}
    after = yaml.safe_load(merged_text) or {}
    second = yaml12(merged_text) or {}
    removed = {path for path in remove if "/" not in path}
    removed_entries = {tuple(path.split("/", 1)) for path in remove if "/" in path}
    assert set(after) == (set(before) | set(values)) - removed, (sorted(before), sorted(values), sorted(after))
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(before.get(key), dict):
            for entry, entry_value in value.items():
                # what was set must read the same whichever YAML version a reader speaks (Puppet's Psych is 1.1)
                assert after[key][entry] == entry_value == second[key][entry], (key, entry, entry_value)
            kept = {e: v for e, v in before[key].items() if e not in value and (key, e) not in removed_entries}
            assert {e: v for e, v in after[key].items() if e not in value} == kept, key
        else:
            assert after[key] == value == second[key], (key, value, after[key], second[key])
    for key, value in before.items():
        if key in values or key in removed:
            continue
        if isinstance(value, dict):
            assert after[key] == {e: v for e, v in value.items() if (key, e) not in removed_entries}, key
        else:
            assert after[key] == value, key
