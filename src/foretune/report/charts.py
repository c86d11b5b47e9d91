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

from foretune.report.short_names import shorten_all
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
CHAR_WIDTH = 7.5  # viewBox units a character of the charts' 13 px sans-serif takes, at most (digits, most letters)
TICK_GAP = 12  # the least room between two time labels
_STAMP = re.compile(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)")


def tick_texts(labels: Sequence[str]) -> list[str]:
    """Time labels as an axis writes them: the first with its date, the others with the time alone unless the day
    changed since the label before (then month and day too, and the year when that changed; ``YYYY-MM-DDTHH:MM:SS``
    stamps; other labels as given).

    >>> tick_texts(["2024-05-13T08:00:00", "2024-05-13T23:50:00", "2024-05-14T00:10:00", "2025-01-02T10:00:00"])
    ['2024-05-13 08:00', '23:50', '05-14 00:10', '2025-01-02 10:00']
    >>> tick_texts(["t0", "t9"])
    ['t0', 't9']
    """
    out: list[str] = []
    day = None
    for label in labels:
        stamp = _STAMP.match(label)
        if stamp is None:
            out.append(label)
            continue
        date, clock = stamp.groups()
        same_year = day is not None and date[:4] == day[:4]
        out.append(clock if date == day else f"{date[5:]} {clock}" if same_year else f"{date} {clock}")
        day = date
    return out


def _ticks(n: int, labels: Sequence[str], x: Callable[[int], float]) -> list[tuple[int, str, str]]:
    """(point, text, anchor) of the time axis: up to 6 points of ``labels`` (one per point), evenly spread, the first
    and last included, as many as fit without two labels touching; ``labels`` of another length name the ends."""
    if n < 1 or not labels:
        return []
    per_point = len(labels) == n
    for count in (6, 5, 4, 3, 2, 1):
        points = sorted({round(j * (n - 1) / max(count - 1, 1)) for j in range(count)}) if per_point else \
            ([0, n - 1] if n > 1 and count > 1 else [0])
        if per_point:
            texts = tick_texts([labels[i] for i in points])
        else:
            texts = tick_texts([labels[0], labels[-1]] if len(points) > 1 else [labels[0]])
        anchors = ["start" if k == 0 else "end" if k == len(points) - 1 else "middle" for k in range(len(points))]
        spans = []
        for i, text, anchor in zip(points, texts, anchors):
            w = CHAR_WIDTH * len(text)
            left = x(i) - (0 if anchor == "start" else w if anchor == "end" else w / 2)
            spans.append((left, left + w))
        if all(spans[k][1] + TICK_GAP <= spans[k + 1][0] for k in range(len(spans) - 1)):
            return list(zip(points, texts, anchors))
    return []


def lines(series: Sequence[tuple[str, Sequence[float]]], *, labels: Sequence[str] = (), limit: tuple[str, float] | None = None,
          width: int = 860, height: int = 220, title: str = "", axis: str = "") -> str:
    """A line chart of equally spaced points, a legend line per series (its colour's swatch and name; the ``limit``,
    a dashed line across the plot, has the last legend line, so no label is drawn over the lines) and an x axis:
    ``labels`` name each point (ticks at up to 6 of them, first and last included, as many as fit side by side), or
    only the first and last; ``axis`` says under them what a point is (each caller knows: a minute, a load level).

    >>> "<polyline" in lines([("a", [1, 3, 2])], labels=["t0", "t2"])
    True
    >>> svg = lines([("a", list(range(11)))], labels=[f"10:{m:02d}" for m in range(11)], axis="time")
    >>> [t for t in ("10:00", "10:02", "10:04", "10:06", "10:08", "10:10") if f">{t}<" in svg] == ["10:00", "10:02", "10:04", "10:06", "10:08", "10:10"]
    True
    """
    legend = 14 * (len(series) + (1 if limit else 0))  # under the title: never over it, however long the title
    pad_l, pad_r, pad_t, pad_b = 48, 12, 22 + legend, 40
    height += legend
    n = max((len(v) for _, v in series), default=0)
    top = max([max(v, default=0) for _, v in series] + [limit[1] if limit else 0, 1])
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(i: int) -> float:
        return pad_l + (plot_w * i / max(n - 1, 1))

    def y(v: float) -> float:
        return pad_t + plot_h - plot_h * v / top

    said = "; ".join(f"{name}: peak {max(values, default=0):g}" + (f" at {labels[list(values).index(max(values))]}"
                                                                     if values and len(labels) == len(values) else "")
                     for name, values in series)
    desc = (f"{said}; {limit[0]} {limit[1]:g}" if limit else said) + (f"; from {labels[0]} to {labels[-1]}" if labels else "")
    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="{escape(title)}" style="max-width:{width}px;min-width:{width * 2 // 3}px;font:13px sans-serif">',
             f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>",
             f'<text x="{pad_l}" y="14" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{pad_l}" y1="{pad_t + plot_h}" x2="{width - pad_r}" y2="{pad_t + plot_h}" stroke="#999"/>',
             f'<text x="{pad_l - 4}" y="{pad_t + 4}" text-anchor="end">{top:g}</text>',
             f'<text x="{pad_l - 4}" y="{pad_t + plot_h}" text-anchor="end">0</text>']
    if labels:
        for i, text, anchor in _ticks(n, labels, x):
            parts.append(f'<line x1="{x(i):.1f}" y1="{pad_t + plot_h}" x2="{x(i):.1f}" y2="{pad_t + plot_h + 4}" stroke="#999"/>')
            parts.append(f'<text x="{x(i):.1f}" y="{pad_t + plot_h + 17}" text-anchor="{anchor}">{escape(text)}</text>')
    if axis:
        parts.append(f'<text x="{pad_l + plot_w / 2:.1f}" y="{height - 4}" text-anchor="middle" class="axis">'
                     f"{escape(axis)}</text>")
    for k, (name, values) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.4" points="{points}"/>')
        if len(values) <= 30:  # few points: mark each, a single one has no line
            parts += [f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{color}"/>' for i, v in enumerate(values)]
        parts.append(f'<rect x="{pad_l}" y="{21 + 14 * k}" width="14" height="4" fill="{color}"/>'
                     f'<text x="{pad_l + 20}" y="{30 + 14 * k}">{escape(name)}</text>')
    if limit:
        at = 21 + 14 * len(series)
        parts.append(f'<line class="limit" x1="{pad_l}" y1="{y(limit[1]):.1f}" x2="{width - pad_r}" y2="{y(limit[1]):.1f}"/>')
        parts.append(f'<line class="limit" x1="{pad_l}" y1="{at + 2}" x2="{pad_l + 14}" y2="{at + 2}"/>'
                     f'<text x="{pad_l + 20}" y="{at + 9}">{escape(limit[0])} {limit[1]:g} (dashed)</text>')
    parts.append("</svg>")
    return "".join(parts)


def bars(items: Sequence[tuple[str, float]], *, width: int = 860, title: str = "", unit: str = "") -> str:
    """Horizontal bars, largest first as given.

    >>> bars([("GET /a", 3), ("POST /b", 1)]).count("<rect")
    2
    """
    row, label_w = 18, 330
    height = 24 + row * len(items)
    top = max([v for _, v in items] + [1])
    desc = "; ".join(f"{label} {value:,.0f}{unit}" for label, value in items)  # whole names: a reader hears them all
    parts = [f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="{escape(title)}" style="max-width:{width}px;min-width:{width * 2 // 3}px;font:13px sans-serif">',
             f"<title>{escape(title)}</title><desc>{escape(desc)}</desc>",
             f'<text x="0" y="14" font-weight="bold">{escape(title)}</text>']
    shorts = shorten_all([label for label, _ in items], 46)
    for i, (_, value) in enumerate(items):
        yy = 22 + i * row
        w = (width - label_w - 80) * value / top
        short = shorts[i]
        parts.append(f'<text x="{label_w - 6}" y="{yy + 12}" text-anchor="end">{escape(short)}</text>')
        parts.append(f'<rect x="{label_w}" y="{yy + 2}" width="{w:.1f}" height="{row - 5}" fill="{PALETTE[0]}"/>')
        parts.append(f'<text x="{label_w + w + 4:.1f}" y="{yy + 12}">{value:,.0f}{escape(unit)}</text>')
    parts.append("</svg>")
    return "".join(parts)
