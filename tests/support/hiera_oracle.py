"""An oracle for custom-hiera merges that does not ask render/merge.py: what was set reads back as set, under
two YAML loaders; what was not touched reads back as before; what was removed is gone."""

from __future__ import annotations

import re
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


TOP_KEY = re.compile(r"""^(?:'([^']+)'|"([^"]+)"|([^\s#'"-].*?)):(?:\s|$)""")


def owned_by_removed(text: str, remove: list[str]) -> set[int]:
    """0-based lines of the column-0 comments that belong to removed top-level keys, found by scanning lines: the
    comment block directly above a key goes when it sits right under another entry's line, or when it heads a
    paragraph (after a blank line or ``---``) whose every key of the same module is removed; a block with only blank
    lines above it (not even ``---``) opens the file: it is the file's header and never goes."""
    lines = text.splitlines()
    top = {i: next(g for g in m.groups() if g) for i, line in enumerate(lines) if (m := TOP_KEY.match(line))}
    gone: set[int] = set()
    for i, key in top.items():
        j, block = i - 1, []
        while j >= 0 and lines[j].startswith("#"):
            block.append(j)
            j -= 1
        if not block or all(not lines[k].strip() for k in range(j + 1)):
            continue  # no comment, or the file's header
        paragraph = [key]
        if j < 0 or lines[j].strip() in ("", "---"):
            k = i + 1
            while k < len(lines) and lines[k].strip() and not lines[k].startswith("#"):
                if k in top and top[k].split("::", 1)[0] != key.split("::", 1)[0]:
                    break  # another module's key: the heading was not written for it
                paragraph += [top[k]] if k in top else []
                k += 1
        if all(name in remove for name in paragraph):
            gone.update(block)
    return gone
