"""Inline SVG charts for reports: no scripts, no fonts or files from elsewhere, readable at 400 px.

Charts size to their container (``viewBox`` with ``width="100%"``) and take their colours from CSS
classes (``part-0`` .. ``part-7``, ``sev-<severity>``, ``limit``, ``over``), so the page's stylesheet
decides light, dark and print colours. Every chart has a ``<title>`` and a text description for
screen readers, and labels are plain text so they stay searchable and copyable.

>>> svg = stacked_bar([("PostgreSQL", 9.0), ("Foreman", 18.0)], capacity=64.0, title="Memory", fmt=lambda v: f"{v:g} GiB")
>>> svg.startswith("<svg") and "27 GiB of 64 GiB" in svg and "<title>Memory</title>" in svg
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape

PARTS = 8  # colour classes part-0 .. part-7, reused in turn
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
