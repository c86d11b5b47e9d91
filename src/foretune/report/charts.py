"""Inline SVG charts for reports: no scripts, no fonts or files from elsewhere, readable at 400 px.

Charts size to their container (``viewBox`` with ``width="100%"``) and take their colours from CSS
classes (``part-0`` .. ``part-11``, ``sev-<severity>``, ``limit``, ``over``), so the page's stylesheet
decides light, dark and print colours. Every chart has a ``<title>`` and a text description for
screen readers, and labels are plain text so they stay searchable and copyable.

``stacked_bar`` (parts against a capacity), ``bars_against`` (several such bars on one scale) and ``counts_by_group`` (counts per group split by a key)
serve the audit report; ``lines`` (time series with an optional limit) and ``bars`` (labelled
horizontal bars) serve the logs report. Each returns one ``<svg>`` element as a string.

>>> svg = stacked_bar([("PostgreSQL", 9.0), ("Foreman", 18.0)], capacity=64.0, title="Memory", fmt=lambda v: f"{v:g} GiB")
>>> svg.startswith("<svg") and "27 GiB of 64 GiB" in svg and "<title>Memory</title>" in svg
True
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from foretune.term import clean_line


def escape(text: str) -> str:
    """Label text for SVG: control characters and escape sequences made visible (as the tables do), then HTML-escaped."""
    return html.escape(clean_line(text))


PARTS = 12  # colour classes part-0 .. part-11: a bar with more parts folds its smallest into "the rest"
WIDTH = 400  # viewBox units; the SVG scales to its container (about 1:1 on a phone)
BAR = 28
ROW = 22


def _svg(height: float, title: str, desc: str, body: list[str]) -> str:
    return (f'<svg class="chart" viewBox="0 0 {WIDTH} {height:g}" width="100%" role="img" '
            f'xmlns="http://www.w3.org/2000/svg" aria-label="{escape(title)}">'
            f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>{''.join(body)}</svg>")


def _text(x: float, y: float, text: str, cls: str = "label", anchor: str = "start") -> str:
    return f'<text class="{cls}" x="{x:g}" y="{y:g}" text-anchor="{anchor}">{escape(text)}</text>'


def stacked_bar(parts: Sequence[tuple[str, float]], *, capacity: float, title: str, fmt: Callable[[float], str],
                capacity_label: str = "") -> str:
    """One horizontal bar of ``parts`` against ``capacity`` (drawn as a marker), with a legend below.

    The scale covers the larger of the total and the capacity, so an overrun shows past the marker.
    """
    if len(parts) > PARTS:  # every legend colour once
        kept = sorted(parts, key=lambda p: -p[1])[:PARTS - 1]
        parts = [p for p in parts if p in kept] + [(f"{len(parts) - len(kept)} more", sum(v for p, v in parts if (p, v) not in kept))]
    total = sum(value for _, value in parts)
    scale = max(total, capacity, 1e-9)
    usable = WIDTH - 2
    x = 1.0
    body: list[str] = []
    for index, (label, value) in enumerate(parts):
        width = usable * value / scale
        body.append(f'<rect class="part-{index % PARTS}" x="{x:.2f}" y="24" width="{max(width, 0):.2f}" height="{BAR}">'
                    f"<title>{escape(label)}: {escape(fmt(value))}</title></rect>")
        x += width
    marker = 1 + usable * capacity / scale
    over = total > capacity
    summary = f"{fmt(total)} of {fmt(capacity)}{' ' + capacity_label if capacity_label else ''}"
    body.insert(0, _text(0, 16, summary + (" — over" if over else ""), "headline over" if over else "headline"))
    body.append(f'<line class="limit" x1="{marker:.2f}" x2="{marker:.2f}" y1="18" y2="{24 + BAR + 6}"/>')
    columns = 1
    for index, (label, value) in enumerate(parts):
        col, row = index % columns, index // columns
        lx, ly = col * WIDTH / columns, 24 + BAR + 24 + row * ROW
        body.append(f'<rect class="part-{index % PARTS}" x="{lx:g}" y="{ly - 11:g}" width="12" height="12"/>')
        body.append(_text(lx + 18, ly, f"{fmt(value)}  {label}"))
    rows = (len(parts) + columns - 1) // columns
    desc = f"{title}: {summary}; " + "; ".join(f"{label} {fmt(value)}" for label, value in parts)
    return _svg(24 + BAR + 24 + rows * ROW, title, desc, body)


class Row(NamedTuple):
    """One bar of :func:`bars_against`: its label, its parts, each (label, value, colour class), and the short name the
    legend gives its values ("plan", "in force")."""

    label: str
    parts: Sequence[tuple[str, float, str]]
    key: str = ""


def bars_against(rows: Sequence[Row], *, capacity: float, title: str, headline: Sequence[str], fmt: Callable[[float], str],
                 alarm: bool = False) -> str:
    """Several stacked bars on one scale against ``capacity`` (one marker across them all), each under its label, with
    one legend: a part label that several bars share (the same component planned and in force) is listed once with each
    bar's value and key, in its own colour. ``headline``: the chart's first lines, in the warning colour when ``alarm``.

    >>> svg = bars_against([Row("the plan", [("Puma", 18.0, "part-0")], "plan"),
    ...                     Row("in force", [("Puma", 40.0, "part-0")], "in force")],
    ...                    capacity=64.0, title="Memory", headline=["h"], fmt=lambda v: f"{v:g} GiB")
    >>> "Puma: 18 GiB plan, 40 GiB in force" in svg
    True
    """
    scale = max([capacity, 1e-9, *(sum(v for _, v, _ in row.parts) for row in rows)])
    usable = WIDTH - 2
    body = [_text(0, 16 + 16 * n, line, "headline over" if alarm else "headline") for n, line in enumerate(headline)]
    y = 8.0 + 16 * len(headline)
    for row in rows:
        total = sum(v for _, v, _ in row.parts)
        body.append(_text(0, y + 13, f"{row.label}: {fmt(total)}"))
        x = 1.0
        for label, value, cls in row.parts:
            width = usable * value / scale
            body.append(f'<rect class="{escape(cls)}" x="{x:.2f}" y="{y + 18:g}" width="{max(width, 0):.2f}" height="{BAR}">'
                        f"<title>{escape(row.label)}, {escape(label)}: {escape(fmt(value))}</title></rect>")
            x += width
        y += 18 + BAR + 8
    marker = 1 + usable * capacity / scale
    body.append(f'<line class="limit" x1="{marker:.2f}" x2="{marker:.2f}" y1="{20 + 16 * len(headline)}" y2="{y - 2:g}"/>')
    legend: dict[tuple[str, str], list[str]] = {}  # (label, class) -> "value bar" per bar that has the part
    for row in rows:
        for label, value, cls in row.parts:
            legend.setdefault((label, cls), []).append(f"{fmt(value)} {row.key}".strip())
    y += 12
    for (label, cls), values in legend.items():
        body.append(f'<rect class="{escape(cls)}" x="0" y="{y - 11:g}" width="12" height="12"/>')
        body.append(_text(18, y, f"{label}: {', '.join(values)}"))
        y += ROW
    desc = f"{title}: {', '.join(headline)}; " + "; ".join(
        f"{row.label} " + ", ".join(f"{label} {fmt(v)}" for label, v, _ in row.parts) for row in rows)
    return _svg(y - ROW + 10, title, desc, body)


def counts_by_group(counts: Mapping[str, Mapping[str, int]], *, keys: Sequence[str], title: str) -> str:
    """One bar per group (e.g. component), split by ``keys`` (e.g. severities, worst first), with counts."""
    groups = [(name, row) for name, row in counts.items() if sum(row.values())]
    largest = max((sum(row.values()) for _, row in groups), default=1)
    label_width, usable = 96, WIDTH - 96 - 30
    body: list[str] = []
    for index, key in enumerate(keys):
        lx = index * (WIDTH / max(len(keys), 1))
        body.append(f'<rect class="sev-{escape(key)}" x="{lx:g}" y="4" width="12" height="12"/>')
        body.append(_text(lx + 18, 15, key))
    for row_index, (name, row) in enumerate(groups):
        y = 30 + row_index * (ROW + 6)
        body.append(_text(0, y + 15, name))
        x = float(label_width)
        for key in keys:
            n = row.get(key, 0)
            if not n:
                continue
            width = usable * n / largest
            body.append(f'<rect class="sev-{escape(key)}" x="{x:.2f}" y="{y}" width="{width:.2f}" height="{ROW}">'
                        f"<title>{escape(name)}: {n} {escape(key)}</title></rect>")
            x += width
        body.append(_text(x + 6, y + 15, str(sum(row.values())), "count"))
    desc = f"{title}: " + ("; ".join(f"{name} " + ", ".join(f"{row[k]} {k}" for k in keys if row.get(k))
                                      for name, row in groups) or "none")
    return _svg(30 + max(len(groups), 1) * (ROW + 6), title, desc, body)


PALETTE = ("#2e86c1", "#c0392b", "#1e8449", "#8e44ad", "#e67e22")


def lines(series: Sequence[tuple[str, Sequence[float]]], *, labels: Sequence[str] = (), limit: tuple[str, float] | None = None,
          width: int = 860, height: int = 220, title: str = "") -> str:
    """A line chart of equally spaced points, a legend line per series (its colour's swatch and name) and a time
    axis: ``labels`` name each point (ticks at up to 6 of them, first and last included), or only the first and last.

    >>> "<polyline" in lines([("a", [1, 3, 2])], labels=["t0", "t2"])
    True
    >>> svg = lines([("a", list(range(11)))], labels=[f"10:{m:02d}" for m in range(11)])
    >>> [t for t in ("10:00", "10:02", "10:04", "10:06", "10:08", "10:10") if f">{t}<" in svg] == ["10:00", "10:02", "10:04", "10:06", "10:08", "10:10"]
    True
    """
    legend = 14 * len(series)  # the legend, one line a series, under the title: never over it, however long the title
    pad_l, pad_r, pad_t, pad_b = 48, 12, 22 + legend, 40
    height += legend
    n = max((len(v) for _, v in series), default=0)
    top = max([max(v, default=0) for _, v in series] + [limit[1] if limit else 0, 1])
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(i: int) -> float:
        return pad_l + (plot_w * i / max(n - 1, 1))

    def y(v: float) -> float:
        return pad_t + plot_h - plot_h * v / top

    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="{escape(title)}" style="max-width:{width}px;min-width:{width * 2 // 3}px;font:13px sans-serif">',
             f"<title>{escape(title)}</title>",
             f'<text x="{pad_l}" y="14" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{pad_l}" y1="{pad_t + plot_h}" x2="{width - pad_r}" y2="{pad_t + plot_h}" stroke="#999"/>',
             f'<text x="{pad_l - 4}" y="{pad_t + 4}" text-anchor="end">{top:g}</text>',
             f'<text x="{pad_l - 4}" y="{pad_t + plot_h}" text-anchor="end">0</text>']
    if labels:
        per_point = len(labels) == n and n > 2
        ticks = sorted({round(j * (n - 1) / 5) for j in range(6)}) if per_point else [0, n - 1]
        for j, i in enumerate(ticks):
            text = labels[i] if per_point else labels[0 if j == 0 else -1]
            anchor = "start" if j == 0 else "end" if j == len(ticks) - 1 else "middle"
            parts.append(f'<line x1="{x(i):.1f}" y1="{pad_t + plot_h}" x2="{x(i):.1f}" y2="{pad_t + plot_h + 4}" stroke="#999"/>')
            parts.append(f'<text x="{x(i):.1f}" y="{pad_t + plot_h + 17}" text-anchor="{anchor}">{escape(text)}</text>')
        parts.append(f'<text x="{pad_l + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle" class="axis">'
                     "time (one point a minute, as the log writes it)</text>")
    for k, (name, values) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.4" points="{points}"/>')
        if len(values) <= 30:  # few points: mark each, a single one has no line
            parts += [f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{color}"/>' for i, v in enumerate(values)]
        parts.append(f'<rect x="{pad_l}" y="{21 + 14 * k}" width="14" height="4" fill="{color}"/>'
                     f'<text x="{pad_l + 20}" y="{30 + 14 * k}">{escape(name)}</text>')
    if limit:
        parts.append(f'<line x1="{pad_l}" y1="{y(limit[1]):.1f}" x2="{width - pad_r}" y2="{y(limit[1]):.1f}" '
                     f'stroke="#7d1b1b" stroke-dasharray="5,4"/>')
        parts.append(f'<text x="{pad_l + 4}" y="{y(limit[1]) - 4:.1f}" fill="#7d1b1b">{escape(limit[0])} {limit[1]:g}</text>')
    parts.append("</svg>")
    return "".join(parts)


def shorten(name: str, width: int) -> str:
    """``name`` in ``width`` columns, shortened in the middle at its own boundaries (``::``, ``/``, then the words of
    a CamelCase name): the start and the end (a controller and its action, the end of a path) stay whole, so names
    that differ there stay distinct, and no word is cut in two unless one word alone is wider than ``width``.

    >>> shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 44)
    'Katello::…CandlepinProxiesController#facts'
    >>> shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 40)
    '…CandlepinProxiesController#facts'
    >>> shorten("Katello::Api::Rhsm::CandlepinProxiesController#facts", 20)
    '…Controller#facts'
    >>> shorten("GET /api/v2/hosts/:id/subscriptions/available", 30), shorten("short", 30)
    ('GET /…subscriptions/available', 'short')
    """
    if len(name) <= width:
        return name
    pieces: list[str] = [str(p) for p in re.findall(r".+?(?:::|/|$)", name) if p]
    head, tail = pieces[:1], pieces[-1:]
    if len(pieces) > 1 and len(head[0]) + 1 + len(tail[0]) <= width:
        rest = pieces[1:-1]
        while rest:  # the end first (a path's last parts, the action), then the start
            if len("".join(head + tail)) + 1 + len(rest[-1]) <= width:
                tail.insert(0, rest.pop())
            elif len("".join(head + tail)) + 1 + len(rest[0]) <= width:
                head.append(rest.pop(0))
            else:
                break
        return "".join(head) + "…" + "".join(tail)
    last = str(pieces[-1])
    # the words of the last part: a capital after a lower-case letter, or a separator, starts one
    starts = [0, *(m.start() for m in re.finditer(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[#_.:-])(?=\w)", last))]
    for i in starts:
        if 1 + len(last) - i <= width:
            return "…" + last[i:]
    return "…" + last[-(width - 1):]


def bars(items: Sequence[tuple[str, float]], *, width: int = 860, title: str = "", unit: str = "") -> str:
    """Horizontal bars, largest first as given.

    >>> bars([("GET /a", 3), ("POST /b", 1)]).count("<rect")
    2
    """
    row, label_w = 18, 330
    height = 24 + row * len(items)
    top = max([v for _, v in items] + [1])
    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="{escape(title)}" style="max-width:{width}px;min-width:{width * 2 // 3}px;font:13px sans-serif">',
             f"<title>{escape(title)}</title>",
             f'<text x="0" y="14" font-weight="bold">{escape(title)}</text>']
    for i, (label, value) in enumerate(items):
        yy = 22 + i * row
        w = (width - label_w - 80) * value / top
        short = shorten(label, 46)
        parts.append(f'<text x="{label_w - 6}" y="{yy + 12}" text-anchor="end">{escape(short)}</text>')
        parts.append(f'<rect x="{label_w}" y="{yy + 2}" width="{w:.1f}" height="{row - 5}" fill="{PALETTE[0]}"/>')
        parts.append(f'<text x="{label_w + w + 4:.1f}" y="{yy + 12}">{value:,.0f}{escape(unit)}</text>')
    parts.append("</svg>")
    return "".join(parts)
