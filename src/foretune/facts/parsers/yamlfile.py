"""YAML files (installer scenario, answers, custom-hiera, database.yml, dynflow and proxy settings).

Kafo and Ruby write symbols as ``:key:``; those keys are returned without the colon.
Untrusted YAML is loaded into plain strings, numbers, booleans, lists and maps only, with
bounded work: size, nesting, aliases, expanded size and integer length are capped.

>>> parse_yaml(":facts:\\n  tuning: medium\\n")
{'facts': {'tuning': 'medium'}}
>>> parse_yaml("") is None
True
>>> parse_yaml("# only a comment\\n") is None
True
>>> parse_yaml("a: [unclosed")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
foretune.errors.ParseError: not valid YAML (line ...
>>> parse_yaml("- just a list")
Traceback (most recent call last):
...
foretune.errors.ParseError: expected a YAML mapping, found list
>>> parse_yaml("when: 2024-02-12\\nblob: !!binary aGk=\\nset: !!set {a, b}\\n")
{'when': '2024-02-12', 'blob': 'aGk=', 'set': ['a', 'b']}
>>> parse_yaml("a: " + "[" * 100 + "]" * 100)
Traceback (most recent call last):
...
foretune.errors.ParseError: ignored: YAML nested deeper than 64 levels
"""

from __future__ import annotations

import importlib
from typing import Any

from foretune.errors import ParseError
from foretune.units import format_bytes

MAX_YAML_BYTES = 256 * 1024  # installer answers files are ~50 KiB; the pure-Python loader reads ~100 KiB/s worst case
MAX_DEPTH = 64
MAX_ALIASES = 100
MAX_EXPANDED_NODES = 100_000  # nodes after alias expansion (what anything walking the data will visit)
MAX_INT_DIGITS = 30


class YamlLimit(Exception):
    """The document exceeds one of the caps; the message is the user's line."""


def _strip_symbols(value: Any) -> Any:
    if isinstance(value, dict):
        return {(k[1:] if isinstance(k, str) and k.startswith(":") else k): _strip_symbols(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_symbols(v) for v in value]
    return value


def _constructor_class() -> type:
    """SafeConstructor that builds plain data only (timestamps, binary, sets and pairs stay plain)."""
    import yaml  # start-up: PyYAML loads only when YAML is read or written

    class Constructor(yaml.constructor.SafeConstructor):
        def get_single_data(self) -> Any:
            node = self.get_single_node()  # type: ignore[attr-defined]
            if node is None:
                return None
            _check_expansion(node, {})
            return self.construct_document(node)

        def construct_int(self, node: Any) -> Any:
            text = str(self.construct_scalar(node))
            if sum(ch.isdigit() for ch in text) > MAX_INT_DIGITS:
                raise YamlLimit(f"ignored: integer with more than {MAX_INT_DIGITS} digits")
            return self.construct_yaml_int(node)

        def flatten_mapping(self, node: Any) -> None:
            """``<<`` merge keys as Ruby's Psych reads them (the installer's and hiera's YAML): in document order, so
            a merged mapping overwrites the keys written before ``<<`` and the keys after it win; of a ``<<`` list,
            the first mapping wins."""
            pairs: list[Any] = []
            for key_node, value_node in node.value:
                if key_node.tag != "tag:yaml.org,2002:merge":
                    if key_node.tag == "tag:yaml.org,2002:value":
                        key_node.tag = "tag:yaml.org,2002:str"
                    pairs.append((key_node, value_node))
                    continue
                sources = (list(reversed(value_node.value)) if isinstance(value_node, yaml.SequenceNode)
                           else [value_node])
                for source in sources:
                    if not isinstance(source, yaml.MappingNode):
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping", node.start_mark,
                            f"expected a mapping or list of mappings for merging, but found {source.id}", source.start_mark)
                    self.flatten_mapping(source)
                    pairs.extend(source.value)
            node.value = pairs

        def construct_as_text(self, node: Any) -> Any:
            return str(self.construct_scalar(node))

        def construct_set_as_list(self, node: Any) -> Any:
            return [self.construct_object(key) for key, _ in node.value]

        def construct_pairs_as_list(self, node: Any) -> Any:
            return self.construct_sequence(node, deep=True)

    Constructor.yaml_constructors = {
        **yaml.constructor.SafeConstructor.yaml_constructors,
        "tag:yaml.org,2002:int": Constructor.construct_int,
        "tag:yaml.org,2002:timestamp": Constructor.construct_as_text,
        "tag:yaml.org,2002:binary": Constructor.construct_as_text,
        "tag:yaml.org,2002:set": Constructor.construct_set_as_list,
        "tag:yaml.org,2002:omap": Constructor.construct_pairs_as_list,
        "tag:yaml.org,2002:pairs": Constructor.construct_pairs_as_list,
    }
    return Constructor


def _loader_class() -> type:
    """A loader with caps, built on first use (keeps ``import yaml`` lazy).

    With libyaml (PyYAML's C extension) the events are first counted in C (nesting and aliases,
    no recursion), then composed in C; without it the pure-Python composer checks as it goes.
    """
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml  # start-up: PyYAML loads only when YAML is read or written

    constructor: Any = _constructor_class()
    if getattr(yaml, "__with_libyaml__", False):
        CParser: Any = importlib.import_module("yaml.cyaml").CParser

        class CLoader(CParser, constructor, yaml.resolver.Resolver):  # type: ignore[misc]
            def __init__(self, stream: str) -> None:
                _count_events(stream)
                CParser.__init__(self, stream)
                constructor.__init__(self)
                yaml.resolver.Resolver.__init__(self)

        _LOADER = CLoader
        return CLoader

    class Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
                 constructor, yaml.resolver.Resolver):  # type: ignore[misc]
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            constructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self.aliases = 0
            self.depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                self.aliases += 1
                if self.aliases > MAX_ALIASES:
                    raise YamlLimit(f"ignored: more than {MAX_ALIASES} YAML aliases")
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise YamlLimit(f"ignored: YAML nested deeper than {MAX_DEPTH} levels")
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    _LOADER = Loader
    return Loader


def _count_events(text: str) -> None:
    """Check nesting and aliases on libyaml's event stream (flat: no recursion whatever the input)."""
    import yaml  # start-up: PyYAML loads only when YAML is read or written

    parser = importlib.import_module("yaml.cyaml").CParser(text)
    depth = aliases = 0
    try:
        while parser.check_event():
            event = parser.get_event()
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise YamlLimit(f"ignored: YAML nested deeper than {MAX_DEPTH} levels")
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            elif isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise YamlLimit(f"ignored: more than {MAX_ALIASES} YAML aliases")
    finally:
        parser.dispose()


_LOADER: type | None = None


def _check_expansion(node: Any, memo: dict[int, int]) -> int:
    """Nodes ``node`` stands for once aliases are expanded (memoised: linear in distinct nodes)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = MAX_EXPANDED_NODES + 1  # a cycle counts as too large
    total = 1
    value = node.value
    if isinstance(value, list):
        for item in value:
            for child in item if isinstance(item, tuple) else (item,):
                total += _check_expansion(child, memo)
                if total > MAX_EXPANDED_NODES:
                    raise YamlLimit(f"ignored: YAML expands to more than {MAX_EXPANDED_NODES} values (alias bomb?)")
    memo[key] = total
    return total


def load_yaml(text: str) -> Any:
    """Plain data from untrusted YAML text; raises ParseError (one line) when malformed or over a cap."""
    import yaml  # start-up: PyYAML loads only when YAML is read or written


    size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > MAX_YAML_BYTES else len(text)
    if size > MAX_YAML_BYTES:
        raise ParseError(f"ignored: too large for YAML ({format_bytes(size)}, the limit is {format_bytes(MAX_YAML_BYTES)})")
    loader = None
    try:
        loader = _loader_class()(text)  # the reader rejects control characters here already
        return loader.get_single_data()
    except YamlLimit as exc:
        raise ParseError(str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ParseError(f"not valid YAML{where}: {problem}") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # e.g. unhashable or odd keys
        raise ParseError(f"not usable YAML: {str(exc).splitlines()[0][:100] if str(exc) else type(exc).__name__}") from None
    finally:
        if loader is not None:
            loader.dispose()


def parse_yaml(text: str) -> dict[str, Any] | None:
    """A YAML mapping (Ruby symbol keys de-coloned), or None for empty/comment-only input."""

    data = load_yaml(text)
    if data is None:
        return None
    if not isinstance(data, dict):
        raise ParseError(f"expected a YAML mapping, found {type(data).__name__}")
    result: dict[str, Any] = _strip_symbols(data)
    return result
