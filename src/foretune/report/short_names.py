"""Long names (Rails actions, request paths) shortened to a column's width at their own boundaries, keeping what tells
them apart: the controller and its action, the end of a path, and distinct names distinct."""

from __future__ import annotations

import re
from collections.abc import Sequence

_PIECES = re.compile(r".+?(?:::|/|$)")
# a Rails controller class before its action: "HostsController#index" reads as "Hosts#index" when space is short
_CONTROLLER = re.compile(r"(?<=[a-z0-9])Controller(?=#)")
# the words of a name: a capital after a lower-case letter or digit, or a separator, starts one
_WORD = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[#_.:\s-])(?=\w)")


def _pieces(name: str) -> list[str]:
    return [str(p) for p in _PIECES.findall(name) if p]


def _cut(name: str, width: int, *, keep_head: bool) -> str | None:
    """``name`` cut in the middle at ``::`` and ``/``: its last piece whole (and its first, with ``keep_head``), then
    as many pieces as fit, the end first; None when those alone do not fit."""
    pieces = _pieces(name)
    if len(pieces) < 2:
        return None
    head, tail, rest = (pieces[:1] if keep_head else []), pieces[-1:], pieces[(1 if keep_head else 0):-1]
    if len("".join(head + tail)) + 1 > width:
        return None
    while rest:  # the end first (a path's last parts, the namespace next to the class), then the start
        if len("".join(head + tail)) + 1 + len(rest[-1]) <= width:
            tail.insert(0, rest.pop())
        elif keep_head and len("".join(head + tail)) + 1 + len(rest[0]) <= width:
            head.append(rest.pop(0))
        else:
            break
    return "".join(head) + "…" + "".join(tail)


def _words_cut(last: str, width: int) -> str | None:
    """The last piece with its leading words dropped (the action, after ``#``, stays whole), or None."""
    stop = last.find("#")
    for i in (0, *(m.start() for m in _WORD.finditer(last))):
        if stop >= 0 and i > stop:
            break
        if 1 + len(last) - i <= width:
            return "…" + last[i:]
    return None


def candidates(name: str, width: int) -> list[str]:
    """Every way of writing ``name`` in ``width`` columns, best first (the first is :func:`shorten`'s)."""
    if len(name) <= width:
        return [name]
    bare = _CONTROLLER.sub("", name)
    found: list[str | None] = []
    if bare != name:  # the word Controller goes first, before any namespace: one rule for every name of a table
        found += [bare if len(bare) <= width else None, _cut(bare, width, keep_head=True), _cut(bare, width, keep_head=False)]
    found += [_cut(name, width, keep_head=True), _cut(name, width, keep_head=False)]
    bare_last = _pieces(bare)[-1]
    found += [_words_cut(bare_last, width), "…" + (bare_last[-(width - 1):] if width > 1 else "")]
    return list(dict.fromkeys(c for c in found if c is not None))


def shorten(name: str, width: int) -> str:
    """``name`` in ``width`` columns, shortened in the middle at its own boundaries (``::``, ``/``): the controller and
    its action, or the end of a path, stay whole; a Rails controller drops the word ``Controller`` before it loses a
    namespace or a word of its own; no word is cut in two unless one word alone is wider than ``width``.

    >>> shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 44)
    'Katello::Api::Rhsm::CandlepinProxies#facts'
    >>> shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 40)
    'Katello::…Rhsm::CandlepinProxies#facts'
    >>> shorten("Api::V2::HostsController#index", 20), shorten("Api::V2::HostsController#index", 16)
    ('Api::V2::Hosts#index', '…V2::Hosts#index')
    >>> shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 20)
    '…Proxies#facts'
    >>> shorten("GET /api/v2/hosts/:id/subscriptions/available", 30), shorten("short", 30)
    ('GET /…subscriptions/available', 'short')
    """
    return candidates(name, width)[0]


def keeps_last(name: str, short: str) -> bool:
    """Whether ``short`` still holds the last piece of ``name`` whole (the controller and action, the Rails word
    ``Controller`` aside; a path's last part): else the name does not fit its column and wants a line of its own.

    >>> keeps_last("Katello::Api::V2::HostsController#index", "…V2::Hosts#index"), keeps_last("A::BController#c", "…#c")
    (True, False)
    """
    return _pieces(name)[-1] in short or _pieces(_CONTROLLER.sub("", name))[-1] in short


def shorten_all(names: Sequence[str], width: int) -> list[str]:
    """Each of ``names`` shortened to ``width``, distinct names kept distinct: a name whose best short form another
    name also gets takes its next one that no other name has.

    >>> shorten_all(["Api::V2::HostsController#index", "Katello::Api::V2::HostsController#index"], 20)
    ['Api::V2::Hosts#index', '…V2::Hosts#index']
    """
    choices = [candidates(n, width) for n in names]
    chosen = [c[0] for c in choices]
    for i, options in enumerate(choices):
        clashes = [j for j, other in enumerate(chosen) if j != i and other == chosen[i] and names[j] != names[i]]
        if not clashes:
            continue
        taken = {chosen[j] for j in range(len(names)) if j != i}
        chosen[i] = next((o for o in options if o not in taken), chosen[i])
    return chosen
