"""Small inline SVG charts for self-contained HTML reports (no scripts, no external files).

``lines`` draws time series (one or more, plus an optional horizontal limit line); ``bars``
draws labelled horizontal bars. Both return one ``<svg>`` element as a string.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

PALETTE = ("#2e86c1", "#c0392b", "#1e8449", "#8e44ad", "#e67e22")


def lines(series: Sequence[tuple[str, Sequence[float]]], *, labels: Sequence[str] = (), limit: tuple[str, float] | None = None,
          width: int = 860, height: int = 220, title: str = "") -> str:
    """A line chart of equally spaced points; ``labels`` name the first and last x positions.

    >>> "<polyline" in lines([("a", [1, 3, 2])], labels=["t0", "t2"])
    True
    """
    pad_l, pad_r, pad_t, pad_b = 48, 12, 22, 26
    n = max((len(v) for _, v in series), default=0)
    top = max([max(v, default=0) for _, v in series] + [limit[1] if limit else 0, 1])
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(i: int) -> float:
        return pad_l + (plot_w * i / max(n - 1, 1))

    def y(v: float) -> float:
        return pad_t + plot_h - plot_h * v / top

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="{escape(title)}" style="max-width:{width}px;font:11px sans-serif">',
             f'<text x="{pad_l}" y="14" font-weight="bold">{escape(title)}</text>',
             f'<line x1="{pad_l}" y1="{pad_t + plot_h}" x2="{width - pad_r}" y2="{pad_t + plot_h}" stroke="#999"/>',
             f'<text x="{pad_l - 4}" y="{pad_t + 4}" text-anchor="end">{top:g}</text>',
             f'<text x="{pad_l - 4}" y="{pad_t + plot_h}" text-anchor="end">0</text>']
    if labels:
        parts.append(f'<text x="{pad_l}" y="{height - 6}">{escape(labels[0])}</text>')
        parts.append(f'<text x="{width - pad_r}" y="{height - 6}" text-anchor="end">{escape(labels[-1])}</text>')
    for k, (name, values) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.4" points="{points}"/>')
        if len(values) <= 30:  # few points: mark each, a single one has no line
            parts += [f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{color}"/>' for i, v in enumerate(values)]
        parts.append(f'<text x="{width - pad_r - 160 + 0}" y="{14 + 12 * k}" fill="{color}">— {escape(name)}</text>')
    if limit:
        parts.append(f'<line x1="{pad_l}" y1="{y(limit[1]):.1f}" x2="{width - pad_r}" y2="{y(limit[1]):.1f}" '
                     f'stroke="#7d1b1b" stroke-dasharray="5,4"/>')
        parts.append(f'<text x="{pad_l + 4}" y="{y(limit[1]) - 4:.1f}" fill="#7d1b1b">{escape(limit[0])} {limit[1]:g}</text>')
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
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" role="img" '
             f'aria-label="{escape(title)}" style="max-width:{width}px;font:11px sans-serif">',
             f'<text x="0" y="14" font-weight="bold">{escape(title)}</text>']
    for i, (label, value) in enumerate(items):
        yy = 22 + i * row
        w = (width - label_w - 80) * value / top
        short = label if len(label) <= 52 else label[:51] + "…"
        parts.append(f'<text x="{label_w - 6}" y="{yy + 12}" text-anchor="end">{escape(short)}</text>')
        parts.append(f'<rect x="{label_w}" y="{yy + 2}" width="{w:.1f}" height="{row - 5}" fill="{PALETTE[0]}"/>')
        parts.append(f'<text x="{label_w + w + 4:.1f}" y="{yy + 12}">{value:,.0f}{escape(unit)}</text>')
    parts.append("</svg>")
    return "".join(parts)
