"""Merge values into an existing custom-hiera.yaml with a ruamel.yaml round trip.

Comments, anchors and aliases, document markers, indentation, quoting and key order survive; only
the keys being set (or removed) change. The result is checked by loading it with PyYAML (the parser
semantics of the installer's Ruby YAML) and comparing with the expected mapping, so a merge can never
silently change another key.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from foretune.errors import InputError, ParseError
from foretune.term import clean, render_to_text

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

    from foretune.env import Environment

PG = "postgresql::server::config_entries"


def load_mapping(text: str, label: str) -> dict[str, Any]:
    from foretune.facts.parsers.yamlfile import load_yaml  # start-up: only when load_mapping runs

    try:
        data = load_yaml(text) if text.strip() else {}
    except ParseError as exc:
        raise InputError(f"{label} is {exc}" if str(exc).startswith("not ") else f"{label}: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError(f"{label}: expected a mapping of hiera keys, found {type(data).__name__}")
    entries = data.get(PG)
    if entries is not None and not isinstance(entries, dict):  # puppetlabs-postgresql's config_entries is a Hash
        raise InputError(f"{label}: {PG} must be a mapping of PostgreSQL settings, found {type(entries).__name__}")
    return data



def _top_mapping(text: str) -> Any:
    """The composed top-level mapping node of ``text``; None when it does not load or is not a mapping."""
    import yaml  # start-up: PyYAML loads only when hiera is merged

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    return root if isinstance(root, yaml.MappingNode) else None

def expected_after(current: dict[str, Any], values: dict[str, Any], remove: Iterable[str] = ()) -> dict[str, Any]:
    """The mapping ``current`` becomes: ``values`` set (nested dicts merged key by key), ``remove`` gone.

    ``remove`` holds top-level keys or ``<key>/<entry>`` for an entry of a nested mapping.
    """
    result = copy.deepcopy(current)
    for key, value in values.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = {**result[key], **value}
        else:
            result[key] = value
    for path in remove:
        key, _, entry = path.partition("/")
        if entry and isinstance(result.get(key), dict):
            result[key] = {k: v for k, v in result[key].items() if k != entry}
        elif not entry:
            result.pop(key, None)
    return result


def _layout(text: str) -> tuple[int, int, int]:
    """(mapping indent, sequence indent, dash offset) the file already uses; 2, 2, 0 when it does not say."""
    mapping = sequence = offset = None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for parent, child in zip(lines, lines[1:]):
        if not _OPENS_BLOCK.search(parent):
            continue
        base = len(parent) - len(parent.lstrip())
        indent = len(child) - len(child.lstrip())
        if indent < base or (indent == base and not child.lstrip().startswith("- ")):
            continue
        if child.lstrip().startswith("- ") and offset is None:
            offset = indent - base
            sequence = offset + 2
        elif not child.lstrip().startswith("- ") and mapping is None:
            mapping = indent - base
    offset = offset or 0
    return mapping or 2, max(sequence or 2, offset + 2), offset


_OPENS_BLOCK = re.compile(r":[ \t]*(?:&\S+[ \t]*)?(?:#.*)?$")
_START = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n)*---(?:[ \t]|$)", re.MULTILINE)
_END = re.compile(r"^\.\.\.[ \t]*$", re.MULTILINE)


def _yaml(text: str) -> YAML:
    from ruamel.yaml import YAML  # start-up: only when hiera is merged

    rt = YAML(typ="rt", pure=True)
    rt.preserve_quotes = True
    rt.width = 4096  # never re-wrap long values
    mapping, sequence, offset = _layout(text)
    rt.indent(mapping=mapping, sequence=sequence, offset=offset)
    rt.explicit_start = bool(_START.match(text))
    rt.explicit_end = bool(_END.search(text))
    return rt


def _remove(data: CommentedMap, key: str, marker: str | None = None) -> None:
    """Delete ``key``; comment lines around it (not its own end-of-line comment) move to a neighbour.

    ``marker``: a comment line left where the key was.
    """
    from ruamel.yaml.error import CommentMark  # start-up: only when hiera is merged
    from ruamel.yaml.tokens import CommentToken  # start-up: only when hiera is merged

    own = getattr(data, "_ok", None)  # keys a << merge key brings in are printed with their anchor, not here
    keys = [k for k in data if own is None or k in own]
    index = keys.index(key)
    entry = data.ca.items.get(key)
    del data[key]
    data.ca.items.pop(key, None)
    moved: list[Any] = list(entry[1] or []) if entry and len(entry) > 1 else []
    tail = entry[2] if entry and len(entry) > 2 else None
    if marker:
        moved.append(CommentToken(f"# {marker}\n", CommentMark(0), None))
    if tail is not None and "\n" in tail.value and tail.value.split("\n", 1)[1]:
        moved.append(CommentToken(tail.value.split("\n", 1)[1], tail.start_mark, None))
    if not moved:
        return
    previous_scalar = index > 0 and not isinstance(data[keys[index - 1]], (dict, list))
    last = index + 1 >= len(keys)
    if index > 0 and (last or (previous_scalar and not marker)):
        # after the entry before, as the text they are: moved above the next entry they would be indented again
        previous = data.ca.items.setdefault(keys[index - 1], [None, None, None, None])
        text = "".join(token.value for token in moved)
        if previous[2] is None:
            previous[2] = CommentToken("\n" + text, CommentMark(0), None)
        else:
            previous[2].value += text
    elif not last:
        following = data.ca.items.setdefault(keys[index + 1], [None, None, None, None])
        following[1] = moved + list(following[1] or [])
    else:  # the mapping is now empty: the comments stay as the document's own
        if not data.ca.comment:
            data.ca.comment = [None, []]
        data.ca.comment[1] = list(data.ca.comment[1] or []) + moved


def _append(data: CommentedMap, key: str, value: Any, comment: str | None, indent: int) -> None:
    """Add ``key`` after the last entry; comment lines that followed that entry stay below the new one."""
    last = next(reversed(data), None) if len(data) else None
    entry = data.ca.items.get(last) if last is not None else None
    tail = entry[2] if entry and len(entry) > 2 else None
    data[key] = _node(value)
    if tail is not None and "\n" in tail.value:
        own, rest = tail.value.split("\n", 1)
        if rest:
            from ruamel.yaml.tokens import CommentToken  # start-up: only when hiera is merged

            tail.value = own + "\n"
            data.ca.items.setdefault(key, [None, None, None, None])[2] = CommentToken("\n" + rest, tail.start_mark, None)
    if comment:
        data.yaml_set_comment_before_after_key(key, before=comment, indent=indent)


def remove_keys(text: str, keys: list[str]) -> str:
    """``text`` without the top-level ``keys``; a comment line marks where each was. Nested keys are left alone."""
    return merge_text(text, {}, remove=[key for key in keys if "/" not in key], mark_removed=True)


def merge_text(text: str, values: dict[str, Any], comments: dict[str, str] | None = None,
               label: str = "custom-hiera.yaml", remove: Iterable[str] = (), *, mark_removed: bool = False,
               notes: dict[str, str] | None = None) -> str:
    """``text`` with ``values`` set, nested dicts (the PostgreSQL hash) merged key by key, ``remove`` deleted.

    ``comments`` maps a key (or a PostgreSQL entry name) to a comment written above a new entry.
    ``notes`` maps a flattened key to a comment line written above it once set (a replaced site value).
    ``remove`` holds top-level keys or ``<key>/<entry>`` paths (as :func:`foretune.knowledge.profiles.flatten` names them).
    """
    from ruamel.yaml.comments import CommentedMap  # start-up: only when hiera is merged

    if "\r\n" in text:  # a file written on Windows keeps its line endings: merged as LF, written back as CRLF
        merged = merge_text(text.replace("\r\n", "\n"), values, comments, label, remove, mark_removed=mark_removed, notes=notes)
        return merged.replace("\r\n", "\n").replace("\n", "\r\n")
    comments = comments or {}
    notes = notes or {}
    remove = list(remove)
    current = load_mapping(text, label)
    # the comment lines above each top-level key are set aside and put back above the same key (the round trip
    # would hang them under the entry before them, inside a nested mapping); those of removed keys go with them
    blocks, nested_lines, _ = owned_comments(text, remove)
    blocks = [block for block in blocks if not block.header]  # the file's header stays where it is
    original = text.splitlines(keepends=True)
    kept_back = {i for block in blocks for i in block.lines} | nested_lines
    text = "".join(line for i, line in enumerate(original) if i not in kept_back)
    rt, prefix, data = round_trip(text, label)
    if data is None:  # nothing but comments (or nothing): keep them all, add below
        prefix, data = text if not text or text.endswith("\n") else text + "\n", CommentedMap()
        rt.explicit_start = rt.explicit_end = False
    mapping_indent = _layout(text)[0]
    trailing = ""  # comment lines that end the file once the key they followed is gone
    for path in remove:
        key, _, entry = path.partition("/")
        if entry and isinstance(data.get(key), dict) and entry in data[key]:
            nested = data[key]
            if nested.anchor.value is not None or entry not in getattr(nested, "_ok", nested):
                # shared through an anchor, or given by a << merge key: the key gets its own copy without the entry,
                # the anchor and what else uses it stay as they are (as the installer's Ruby YAML resolves them)
                own = CommentedMap()
                own.update({name: copy.deepcopy(value) for name, value in nested.items()})
                data[key] = nested = own
            _remove(nested, entry)
            if not nested and nested.ca.comment and nested.ca.comment[1]:  # now {}: its comments follow the key
                tokens, nested.ca.comment = nested.ca.comment[1], None
                keys = list(data)
                if keys.index(key) + 1 < len(keys):
                    following = data.ca.items.setdefault(keys[keys.index(key) + 1], [None, None, None, None])
                    following[1] = list(tokens) + list(following[1] or [])
                else:
                    trailing += "".join(token.value for token in tokens)
        elif not entry and key in data:
            _remove(data, key, f"foretune: removed {key} (stale on this release)" if mark_removed else None)
    for key, value in values.items():
        existing = data.get(key)
        if isinstance(value, dict) and isinstance(existing, CommentedMap):
            if existing.anchor.value is not None:  # an alias may share it: change a copy, as merging the dicts does
                existing = copy.deepcopy(existing)
                existing.anchor.value = None
                data[key] = existing
            if existing.fa.flow_style():
                existing.fa.set_block_style()
            for name, entry in value.items():
                note = notes.get(f"{key}/{name}")
                if name not in existing:
                    _append(existing, name, entry, note or comments.get(name), mapping_indent)
                elif existing[name] != entry or type(existing[name]) is not type(entry):
                    if any(name in source for source in getattr(existing, "merge", ())):
                        # Psych merges << over the keys written before it: the key goes after it to take effect
                        del existing[name]
                    existing[name] = _node(entry)
                    if note:
                        existing.yaml_set_comment_before_after_key(name, before=note, indent=mapping_indent)
        elif key in data:
            if data[key] != value or type(data[key]) is not type(value):
                data[key] = _node(value)
                if notes.get(key):
                    data.yaml_set_comment_before_after_key(key, before=notes[key], indent=0)
        else:
            note = comments.get(key)
            _append(data, key, value, ("\n" + note if note else "\n") if len(data) else note, 0)
    out = io.StringIO()
    rt.dump(data, out)
    result = out.getvalue()
    if not data:  # an empty mapping would print as {}: keep only the comment lines
        start = data.ca.comment[1] if data.ca.comment and len(data.ca.comment) > 1 else None
        result = "".join(token.value for token in start or [])
        if rt.explicit_start:  # the file's --- stays when its last key goes (the installer's own file opens with it)
            result = "---\n" + result
    result += trailing
    if not text[len(prefix):].startswith("\n"):
        result = result.lstrip("\n")  # comment lines moved up from removed keys never open the file with blanks
    if prefix.strip() and result and not prefix.endswith("\n\n") and not rt.explicit_start:
        prefix += "\n"
    result = _put_back(prefix + result, [("".join(original[i] for i in block.lines), block.owners) for block in blocks])
    before = "".join(original)
    tidy = result if "\n\n\n" in before else re.sub(r"\n\n\n+", "\n\n", result)  # a removed key's blank lines
    if not re.search(r"^---[ \t]*\n\n", before, re.MULTILINE):
        tidy = re.sub(r"^(---[ \t]*\n)\n+", r"\1", tidy, count=1, flags=re.MULTILINE)
    if not before.endswith("\n\n"):
        tidy = tidy.rstrip("\n") + "\n" if tidy.strip() else tidy
    if load_mapping(tidy, label) == load_mapping(result, label):  # never at the cost of a value (a block scalar)
        result = tidy
    result = _site_indent(before, result, label)
    if load_mapping(result, label) != expected_after(current, values, remove):
        raise InputError(f"{label}: cannot merge safely (unusual layout); edit it by hand using `foretune plan --format hiera`")
    return result


def _site_indent(site: str, merged: str, label: str) -> str:
    """``merged`` with each comment line of the site's file at the indentation the site gave it (the round trip
    re-indents a nested entry's comment once the entry before it is gone); a comment written twice is left alone."""
    seen: dict[str, str | None] = {}
    for line in site.splitlines():
        if line.lstrip().startswith("#"):
            text = line.strip()
            seen[text] = None if text in seen else line[:len(line) - len(line.lstrip())]
    lines = merged.splitlines(keepends=True)
    for n, line in enumerate(lines):
        indent = seen.get(line.strip()) if line.lstrip().startswith("#") else None
        if indent is not None and not line.startswith(indent + "#"):
            lines[n] = indent + line.lstrip()
    out = "".join(lines)
    return out if load_mapping(out, label) == load_mapping(merged, label) else merged


def _put_back(text: str, blocks: list[tuple[str, list[str]]]) -> str:
    """``text`` with each comment block directly above the first of its keys still there (above foretune's own
    note lines on that key); a block none of whose keys is left stays out."""
    import yaml  # start-up: PyYAML loads only when hiera is merged

    if not blocks:
        return text
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    where = ({str(k.value): k.start_mark.line for k, _ in root.value if isinstance(k, yaml.ScalarNode)}
             if isinstance(root, yaml.MappingNode) else {})
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    inserts: dict[int, str] = {}
    for block, owners in blocks:
        line = next((where[owner] for owner in owners if owner in where), None)
        if line is None:
            continue
        while line > 0 and lines[line - 1].startswith("# foretune: "):
            line -= 1
        inserts[line] = inserts.get(line, "") + block
    for line in sorted(inserts, reverse=True):
        lines.insert(line, inserts[line])
    return "".join(lines)


def _node(value: Any) -> Any:
    """A new value in block style; strings YAML 1.1 would read as something else (``on``, ``0755``) quoted."""
    if isinstance(value, dict):
        from ruamel.yaml.comments import CommentedMap  # start-up: only when hiera is merged

        node = CommentedMap()
        node.update({k: _node(v) for k, v in value.items()})
        return node
    if isinstance(value, str):
        import yaml  # start-up: PyYAML loads only when YAML is read or written
        from ruamel.yaml.scalarstring import SingleQuotedScalarString  # start-up: only when hiera is merged

        try:
            plain = yaml.safe_load(value) == value  # PyYAML reads YAML 1.1 as Ruby's Psych does
        except yaml.YAMLError:
            plain = False
        if not plain:
            return SingleQuotedScalarString(value)
    return value


def unified_diff(old: str, new: str, path: str) -> str:
    import difflib  # start-up: difflib loads only when a diff is shown

    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        fromfile=f"{path} (current)", tofile=f"{path} (foretune)"))


def show_diff(diff: str, env: Environment) -> None:
    """Print a unified diff: coloured on a colour terminal, control characters made visible on a terminal.

    Off a terminal the diff is written as it is, so it still applies with ``patch``.
    """
    if not (env.color or env.stdout_isatty):
        env.stdout.write(diff)
        return
    from rich.text import Text  # start-up: rich loads only when a diff is drawn


    text = Text(overflow="fold")
    for line in diff.splitlines(keepends=True):
        style = ("diff.header" if line.startswith(("---", "+++")) else "diff.add" if line.startswith("+")
                 else "diff.remove" if line.startswith("-") else "diff.hunk" if line.startswith("@@") else "")
        text.append(clean(line.rstrip("\r\n")) + "\n", style=style)
    text.rstrip()
    env.stdout.write(render_to_text(text, color=env.color, width=env.width))


# --- site values against the recommendation -------------------------------------------------------------------

SITE, FORETUNE = "site", "foretune"


class Conflict:
    """A value the site's file gives (after anchors and merge keys) that differs from foretune's recommendation."""

    def __init__(self, key: str, site: Any, foretune: Any, reason: str, taken: str, comments: list[str]) -> None:
        self.key, self.site, self.foretune, self.reason, self.taken, self.comments = key, site, foretune, reason, taken, comments

    def line(self) -> str:
        from foretune.render.snippets import yaml_scalar  # start-up: only when line runs

        kept = (f"kept the site's {yaml_scalar(self.site)}; foretune recommends {yaml_scalar(self.foretune)}"
                if self.taken == SITE else f"replaced the site's {yaml_scalar(self.site)} with foretune's {yaml_scalar(self.foretune)}")
        said = f" (the site's comment: {' / '.join(self.comments)})" if self.comments else ""
        return f"{self.key}: {kept} — {self.reason}{said}"


def same_value(site: Any, ours: Any) -> bool:
    """Equal, or the same size written differently (``16MB`` and ``16384kB``), or the same words spaced differently."""
    if site == ours and type(site) is type(ours):
        return True
    if isinstance(site, str) and isinstance(ours, str):
        if " ".join(site.split()) == " ".join(ours.split()):
            return True
        from foretune.errors import UsageError  # start-up: only when same_value runs
        from foretune.units import parse_size  # start-up: only when same_value runs

        try:
            return parse_size(site) == parse_size(ours)
        except UsageError:
            return False
    return isinstance(site, int) and isinstance(ours, int) and not isinstance(site, bool) and not isinstance(ours, bool) and site == ours


def parse_preferences(prefer: str, per_key: Iterable[str], known: Iterable[str]) -> dict[str, str]:
    """``--prefer-key KEY=site|foretune`` options as flattened key -> side; ``*`` holds ``--prefer``.

    KEY is a hiera key, or a PostgreSQL entry either by name (``work_mem``) or flattened
    (``postgresql::server::config_entries/work_mem``). A KEY foretune does not recommend is a usage error.
    """
    from foretune.errors import UsageError  # start-up: only when parse_preferences runs

    known = list(known)
    chosen = {"*": prefer}
    for option in per_key:
        key, sep, side = option.rpartition("=")
        if not sep or side not in (SITE, FORETUNE) or not key:
            raise UsageError(f"--prefer-key {option}: expected KEY=site or KEY=foretune")
        matches = [k for k in known if k == key or k == f"{PG}/{key}"]
        if not matches:
            raise UsageError(f"--prefer-key {option}: foretune recommends no value for {key} on this plan")
        chosen[matches[0]] = side
    return chosen


def reconcile(current: dict[str, Any], values: dict[str, Any], reasons: dict[str, str],
              preferences: dict[str, str] | None = None, text: str = "") -> tuple[dict[str, Any], list[Conflict]]:
    """Which of ``values`` to write into a file whose effective values are ``current``, and the conflicts.

    ``current`` is the file as PyYAML reads it (anchors, aliases and ``<<`` merge keys resolved, as the
    installer's Ruby YAML does). A value the site already gives is written only when the preference for its
    flattened key (or ``*``) is ``foretune``; every differing site value is a conflict either way.
    ``reasons``: flattened key -> foretune's reason with its citations. ``text``: the file, for the comments
    next to each site value.
    """
    from foretune.knowledge.profiles import flatten  # start-up: only when reconcile runs

    preferences = preferences or {}
    site = flatten(current) if isinstance(current.get(PG, {}), dict) else dict(current)
    where = value_comments(text) if text else {}
    write: dict[str, Any] = {}
    conflicts: list[Conflict] = []
    for key, value in flatten(values).items():
        taken = FORETUNE
        if key in site and not same_value(site[key], value):
            taken = preferences.get(key, preferences.get("*", SITE))
            conflicts.append(Conflict(key, site[key], value, reasons.get(key, "foretune's recommendation"), taken, where.get(key, [])))
        elif key in site and site[key] == value and type(site[key]) is type(value):
            continue  # nothing to change
        elif key in site:
            taken = SITE  # the same value written differently: leave the site's spelling
        if taken == FORETUNE:
            if "/" in key and key.startswith(PG + "/"):
                write.setdefault(PG, {})[key.split("/", 1)[1]] = value
            else:
                write[key] = value
    return write, conflicts


def round_trip(text: str, label: str) -> tuple[Any, str, Any]:
    """The file as the merge edits it: the round-trip loader, the text before its ``---`` and the loaded document
    (None when empty); a file it cannot load is one input error, raised before anything else is said of it."""
    from ruamel.yaml.error import YAMLError  # start-up: only when hiera is merged

    rt = _yaml(text)
    start = _START.match(text)
    prefix, body = "", text
    if start:
        marker = text.rfind("---", 0, start.end())
        prefix, body = text[:marker], text[marker:]
    try:
        return rt, prefix, (rt.load(body) if body.strip() else None)
    except YAMLError:
        twice = _duplicate(text)
        if twice:
            key, first, second = twice
            raise InputError(f"{label}: duplicate key {key} (lines {first} and {second}); the installer's YAML loader "
                             "keeps the last one: remove the other, then merge again") from None
        raise InputError(f"{label}: cannot merge safely (unusual layout); edit it by hand using `foretune plan --format hiera`") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # e.g. !!timestamp 2024-13-45
        reason = str(exc).splitlines()[0][:100] if str(exc) else type(exc).__name__
        raise InputError(f"{label}: not usable YAML ({reason}); fix that value, or edit the file by hand using "
                         "`foretune plan --format hiera`") from None


def _duplicate(text: str) -> tuple[str, int, int] | None:
    """The first key given twice in one mapping of ``text`` (top level or one below), with both 1-based lines."""
    import yaml  # start-up: PyYAML loads only when a merge is refused

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None
    mappings = [root] if isinstance(root, yaml.MappingNode) else []
    mappings += [value for mapping in list(mappings) for _, value in mapping.value if isinstance(value, yaml.MappingNode)]
    for mapping in mappings:
        seen: dict[str, int] = {}
        for key, _ in mapping.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                if key.value in seen:
                    return str(key.value), seen[key.value], key.start_mark.line + 1
                seen[key.value] = key.start_mark.line + 1
    return None


def merge_values(text: str, values: dict[str, Any], reasons: dict[str, str], preferences: dict[str, str] | None = None,
                 comments: dict[str, str] | None = None, label: str = "custom-hiera.yaml",
                 remove: Iterable[str] = (), asked: str = "as asked (--prefer)",
                 given: dict[str, Any] | None = None) -> tuple[str, list[Conflict]]:
    """``text`` with the recommended ``values`` merged in the way :func:`reconcile` decides, and the conflicts.

    ``asked``: why a site value is replaced, for its comment ("" when the change set decides it: raised, or
    replaced as the change set asks).

    A replaced site value gets a comment line above it naming the value it replaced and, when the site had
    a comment there, that the comment was written for the old value.
    """
    remove = list(remove)
    decided: set[str] = set()
    if given:  # a removed entry a << merge key brings in cannot go alone: the value the removal gives is written after it
        values = copy.deepcopy(values)
        preferences = dict(preferences or {})
        for path in [path for path in remove if path in given and through_merge(text, label, path)]:
            key, _, entry = path.partition("/")
            remove.remove(path)
            values.setdefault(key, {})[entry] = given[path]
            preferences[path] = FORETUNE
            decided.add(path)
    current = {key: value for key, value in load_mapping(text, label).items() if key not in remove}
    write, conflicts = reconcile(current, values, reasons, preferences, text)
    from foretune.render.snippets import yaml_scalar  # start-up: only when merge_values runs

    notes = {}
    for conflict in conflicts:
        if conflict.taken == FORETUNE:
            said = (f"; the site's comment here ({' / '.join(conflict.comments)}) was written for {yaml_scalar(conflict.site)}"
                    if conflict.comments else "")
            why = "" if conflict.key in decided else asked
            if not why:
                theirs, ours = (_as_number(v) for v in (conflict.site, conflict.foretune))
                why = ("to raise it (the change set raises a site value; one set higher is kept)"
                       if theirs is not None and ours is not None and ours > theirs else "as the change set asks")
            notes[conflict.key] = f"foretune: replaced the site's {yaml_scalar(conflict.site)} {why}{said}"
    return merge_text(text, write, comments, label, remove=remove, notes=notes), conflicts


def through_merge(text: str, label: str, path: str) -> bool:
    """``path`` (``<key>/<entry>``) is an entry that a ``<<`` merge key of ``text`` brings in, not one written there."""
    key, _, entry = path.partition("/")
    data = round_trip(text, label)[2] if entry and text.strip() else None
    nested = data.get(key) if isinstance(data, dict) else None
    return isinstance(nested, dict) and entry in nested and entry not in getattr(nested, "_ok", nested)


def _as_number(value: Any) -> float | None:
    """A hiera value as a number to tell a raise from a cut, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return float(value)
    except ValueError:
        return None


def value_comments(text: str) -> dict[str, list[str]]:
    """Flattened key -> the comments around where the file gives its effective value.

    The comment lines directly above the key and the one ending its line; a value that comes from a ``<<``
    merge key is looked up where the anchored mapping gives it. Keys whose place cannot be told are left out.
    """
    import yaml  # start-up: PyYAML loads only when value_comments runs

    root = _top_mapping(text)
    if root is None:
        return {}
    lines = text.splitlines()
    found: dict[str, list[str]] = {}
    for key, (key_node, value_node) in _entries(root).items():
        if key == PG and isinstance(value_node, yaml.MappingNode):
            for name, (entry_key, entry_value) in _entries(value_node).items():
                found[f"{PG}/{name}"] = _comments_at(lines, entry_key.start_mark.line, _end_column(entry_key, entry_value))
        else:
            found[key] = _comments_at(lines, key_node.start_mark.line, _end_column(key_node, value_node))
    return {key: comments for key, comments in found.items() if comments}


def _entries(node: Any, depth: int = 0) -> dict[str, tuple[Any, Any]]:
    """Key -> (key node, value node) of a mapping node with merge keys resolved as Ruby's Psych does: in document
    order, a ``<<`` overwriting the keys before it, the first mapping of a ``<<`` list winning."""
    import yaml  # start-up: PyYAML loads only when _entries runs

    found: dict[str, tuple[Any, Any]] = {}
    for key_node, value_node in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge" and depth < 20:
            sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for source in reversed(sources):
                if isinstance(source, yaml.MappingNode):
                    found.update(_entries(source, depth + 1))
        elif isinstance(key_node, yaml.ScalarNode):
            found[str(key_node.value)] = (key_node, value_node)
    return found


_EOL_COMMENT = re.compile(r"""^[^#'"]*?\s#\s?(.*)$""")


def _end_column(key_node: Any, value_node: Any) -> int | None:
    """Where a value written on its key's line ends (a quoted scalar may hold ``#``), else None."""
    end = getattr(value_node, "end_mark", None)
    return end.column if end is not None and end.line == key_node.start_mark.line else None


def _comments_at(lines: list[str], line: int, after: int | None = None) -> list[str]:
    """The comment ending line ``line`` (0-based) and the comment lines directly above it.

    ``after``: the column where the value on that line ends; the comment is looked for after it.
    """
    found: list[str] = []
    above = line - 1
    while above >= 0 and lines[above].lstrip().startswith("#"):
        found.insert(0, lines[above].strip().lstrip("#").strip())
        above -= 1
    if after is not None and line < len(lines):
        match = re.match(r"^\s+#\s?(.*)$", lines[line][after:])
    else:
        match = _EOL_COMMENT.match(lines[line]) if line < len(lines) else None
    if match and match.group(1).strip():
        found.append(match.group(1).strip())
    return [comment for comment in found if comment]


# --- comments that belong to keys -------------------------------------------------------------------------------

class _Block:
    """Comment lines (0-based ``lines``) directly above a key, and the keys they speak for (``owners``, in order).

    ``header``: the block opens the file (nothing but blank lines above it, not even ``---``): the file's header, which stays.
    """

    def __init__(self, lines: list[int], owners: list[str], header: bool = False) -> None:
        self.lines, self.owners, self.header = lines, owners, header


# the first comment line of the custom-hiera.yaml foreman-installer ships (after its ---)
# the first line of the custom-hiera.yaml the installer ships (Satellite's; foreman-installer's config/custom-hiera.yaml
# from 1.14 on), or of a site's header written after it: the file's header, kept when the key under it goes
INSTALLER_HEADER = ("# This file is for custom hiera overrides",
                    "# This YAML file lets you set your own custom configuration in Hiera")


def _blocks(lines: list[str], entries: list[tuple[str, int]], top: bool) -> list[_Block]:
    """The comment blocks directly above the ``entries`` (name, 0-based key line) of one mapping, in file order.

    A block between the line of an earlier entry and a key belongs to that key alone; one after a blank line
    (or opening the mapping) heads the keys that follow it up to the next blank line or comment line, while they
    belong to the same module (``apache::mod::prefork::*``, not the ``postgresql::*`` key right after them).
    ``top``: the mapping is the document's, whose comments start in column 0; there, a block with nothing but
    blank lines above it opens the file and is its header (kept when its keys are removed); after ``---`` the
    comments are the document's and belong to its keys.
    """
    found: list[_Block] = []
    for index, (name, line) in enumerate(entries):
        above = line - 1
        while above >= 0 and lines[above].lstrip().startswith("#") and (not top or lines[above].startswith("#")):
            above -= 1
        if above == line - 1:
            continue
        block = list(range(above + 1, line))
        previous = lines[above].strip() if above >= 0 else ""
        sandwiched = index > 0 and previous not in ("", "---") and not previous.startswith("#")
        owners = [name]
        if not sandwiched:
            for later, later_line in entries[index + 1:]:
                between = lines[entries[index + len(owners) - 1][1] + 1:later_line]
                if later.split("::", 1)[0] != name.split("::", 1)[0] or any(not text.strip() or (text.startswith("#") if top else text.lstrip().startswith("#")) for text in between):
                    break
                owners.append(later)
        opening = [text.strip() for text in lines[:above + 1] if text.strip()]
        # the installer's own custom-hiera.yaml opens with --- and then its header, which is the file's, not the key's
        stock = opening == ["---"] and lines[above + 1].startswith(INSTALLER_HEADER)
        header = top and index == 0 and (not opening or stock)
        size = 2 if lines[block[0]].rstrip().endswith(", see") else 1  # "..., see" + "# https://... for details."
        if header and stock and len(block) > size and lines[block[0]].startswith(INSTALLER_HEADER[0]):
            # the installer's short header, with the site's comment on the first key right under it: the header
            # stays, the comment goes with its key
            found += [_Block(block[:size], owners, True), _Block(block[size:], owners, False)]
            continue
        found.append(_Block(block, owners, header))
    return found


def _shared(root: Any, target: Any) -> bool:
    """``target`` (a node) appears more than once under ``root``: an anchor that an alias or ``<<`` repeats."""
    seen, stack, count = set(), [root], 0
    while stack:
        node = stack.pop()
        if node is target:
            count += 1
        if id(node) in seen or not isinstance(node.value, list):
            continue
        seen.add(id(node))
        for item in node.value:
            stack.extend(item if isinstance(item, tuple) else (item,))
    return count > 1


def owned_comments(text: str, remove: Iterable[str] = ()) -> tuple[list[_Block], set[int], dict[str, list[str]]]:
    """What the comments of ``text`` belong to, for a merge that removes the paths of ``remove``.

    The comment blocks directly above its top-level keys; the 0-based lines of the blocks of removed nested
    entries; and, for each removed path, the comments that go with it: the block above it once every key the
    block speaks for is removed, and the comment ending its line. A nested entry of a mapping an anchor shares
    keeps its comments (the anchor keeps the entry).
    """
    import yaml  # start-up: PyYAML loads only when hiera is merged

    root = _top_mapping(text)
    if root is None:
        return [], set(), {}
    lines = text.splitlines()
    removed = set(remove)
    top = [(str(k.value), k.start_mark.line) for k, _ in root.value
           if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge"]
    blocks = _blocks(lines, top, top=True)
    nested_lines: set[int] = set()
    gone: dict[str, list[str]] = {}
    for block in blocks:
        if not block.header and all(owner in removed for owner in block.owners):
            gone.setdefault(block.owners[0], []).extend(lines[i].strip() for i in block.lines)
    for key_node, value_node in root.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = str(key_node.value)
        if key in removed:
            gone.setdefault(key, []).extend(_own_eol(lines, key_node.start_mark.line))
        wanted = {path.split("/", 1)[1] for path in removed if path.startswith(key + "/")}
        if wanted and isinstance(value_node, yaml.MappingNode) and not _shared(root, value_node):
            nested = [(str(k.value), k.start_mark.line) for k, _ in value_node.value
                      if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge"]
            for block in _blocks(lines, nested, top=False):
                if all(owner in wanted for owner in block.owners):
                    nested_lines.update(block.lines)
                    gone.setdefault(f"{key}/{block.owners[0]}", []).extend(lines[i].strip() for i in block.lines)
            for name, line in nested:
                if name in wanted:
                    gone.setdefault(f"{key}/{name}", []).extend(_own_eol(lines, line))
    return blocks, nested_lines, {path: comments for path, comments in gone.items() if comments}


def kept_header(text: str, remove: Iterable[str]) -> dict[str, list[str]]:
    """Removed top-level key -> the comment lines directly above it that stay because they open the file (its header)."""
    import yaml  # start-up: PyYAML loads only when hiera is merged

    root = _top_mapping(text)
    if root is None:
        return {}
    lines = text.splitlines()
    top = [(str(k.value), k.start_mark.line) for k, _ in root.value
           if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge"]
    removed = set(remove)
    return {block.owners[0]: [lines[i].strip() for i in block.lines] for block in _blocks(lines, top, top=True)
            if block.header and all(owner in removed for owner in block.owners)}


def _own_eol(lines: list[str], line: int) -> list[str]:
    match = _EOL_COMMENT.match(lines[line]) if line < len(lines) else None
    return ["# " + match.group(1).strip()] if match and match.group(1).strip() else []
