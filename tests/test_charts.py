"""The SVG chart module: proportions, overrun, labels escaped, one picture per call, no external references."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from foretune.report.charts import WIDTH, counts_by_group, stacked_bar

SVG = "{http://www.w3.org/2000/svg}"


def _rects(svg: str) -> list[ET.Element]:
    return [r for r in ET.fromstring(svg).iter(f"{SVG}rect") if float(r.get("height", 0)) > 12]


def test_stacked_bar_widths_are_proportional_to_the_scale() -> None:
    svg = stacked_bar([("a", 25.0), ("b", 25.0)], capacity=100.0, title="t", fmt=lambda v: f"{v:g}")
    bars = _rects(svg)
    usable = WIDTH - 2
    assert [round(float(r.get("width", 0)), 2) for r in bars] == [round(usable / 4, 2), round(usable / 4, 2)]
    limit = next(ET.fromstring(svg).iter(f"{SVG}line"))
    assert float(limit.get("x1", 0)) == 1 + usable  # the capacity is the whole scale
    assert "50 of 100" in svg and "over" not in svg


def test_an_overrun_is_drawn_past_the_capacity_marker_and_said() -> None:
    svg = stacked_bar([("a", 150.0)], capacity=100.0, title="t", fmt=lambda v: f"{v:g}", capacity_label="limit")
    usable = WIDTH - 2
    limit = next(ET.fromstring(svg).iter(f"{SVG}line"))
    assert round(float(limit.get("x1", 0)), 2) == round(1 + usable * 100 / 150, 2)
    assert "150 of 100 limit — over" in svg and 'class="headline over"' in svg


def test_counts_by_group_skips_empty_groups_and_keeps_severity_classes() -> None:
    svg = counts_by_group({"postgresql": {"high": 1, "low": 3}, "apache": {}, "puma": {"medium": 2}},
                          keys=["high", "medium", "low"], title="Findings")
    root = ET.fromstring(svg)
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert "postgresql" in labels and "puma" in labels and "apache" not in labels
    classes = [r.get("class") for r in _rects(svg)]
    assert classes == ["sev-high", "sev-low", "sev-medium"]
    widths = {r.get("class"): float(r.get("width", 0)) for r in _rects(svg)}
    assert widths["sev-low"] == 3 * widths["sev-high"]  # the largest group (4) spans the usable width
    assert root.find(f"{SVG}desc").text == "Findings: postgresql 1 high, 3 low; puma 2 medium"  # type: ignore[union-attr]


def test_labels_are_escaped_and_nothing_is_loaded() -> None:
    svg = stacked_bar([("<script>x</script> & co", 1.0)], capacity=2.0, title='a "title"', fmt=str)
    ET.fromstring(svg)  # well-formed XML
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert not re.search(r"href|src=|url\(", svg)
    assert 'role="img"' in svg and "<title>a &quot;title&quot;</title>" in svg


def test_severity_and_part_colours_are_told_apart_in_both_schemes() -> None:
    """Critical and high, and every two chart parts, differ in hue (20 degrees or more), or clearly in lightness or in
    greyness, in the light and the dark palette (the legends name them by colour alone)."""
    import colorsys
    import itertools
    import re
    from importlib import resources

    css = resources.files("foretune.report").joinpath("templates", "report.css").read_text(encoding="utf-8")
    dark_at = css.index("@media (prefers-color-scheme:dark)")
    for scheme in (css[:dark_at], css[dark_at:css.index("}}", dark_at)]):
        colours = dict(re.findall(r"--([a-z0-9]+):#([0-9a-f]{6})", scheme))
        for group in (["critical", "high", "medium", "low", "info"], [f"p{i}" for i in range(12)]):
            for a, b in itertools.combinations(group, 2):
                (ha, sa, va), (hb, sb, vb) = (colorsys.rgb_to_hsv(*(int(colours[n][i:i + 2], 16) / 255 for i in (0, 2, 4)))
                                            for n in (a, b))
                hue = min(abs(ha - hb), 1 - abs(ha - hb)) * 360
                assert hue >= 20 or abs(va - vb) >= 0.25 or abs(sa - sb) >= 0.4, (a, b, colours[a], colours[b])
