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


def _schemes() -> list[dict[str, str]]:
    """The light and the dark palette of report.css: name -> #rrggbb."""
    import re
    from importlib import resources

    css = resources.files("foretune.report").joinpath("templates", "report.css").read_text(encoding="utf-8")
    dark_at = css.index("@media (prefers-color-scheme:dark)")
    return [{name: f"#{value}" for name, value in re.findall(r"--([a-z0-9-]+):#([0-9a-f]{6})", scheme)}
            for scheme in (css[:dark_at], css[dark_at:css.index("}}", dark_at)])]


def test_severity_and_part_colours_are_told_apart_in_both_schemes() -> None:
    """Critical and high differ in hue (20 degrees or more), or clearly in lightness or in greyness; every two
    severities, and every two chart parts, are another colour at a glance (CIEDE2000 of 20 and more in the light
    palette, 17.5 in the dark one, where fewer light colours stand out on the background): the legends name them by
    colour alone. The Puma and Smart Proxy greens of before (#4e9a06 and #2e7d32, 13.3 apart) fail it."""
    import colorsys
    import itertools

    from tests.support.colour import delta_e

    assert delta_e("#4e9a06", "#2e7d32") < 17.5
    for scheme, least in zip(_schemes(), (20.0, 17.5)):
        (ha, sa, va), (hb, sb, vb) = (colorsys.rgb_to_hsv(*(int(scheme[n][i:i + 2], 16) / 255 for i in (1, 3, 5)))
                                      for n in ("critical", "high"))
        hue = min(abs(ha - hb), 1 - abs(ha - hb)) * 360
        assert hue >= 20 or abs(va - vb) >= 0.25 or abs(sa - sb) >= 0.4
        for group in (["critical", "high", "medium", "low", "info"], [f"p{i}" for i in range(12)],
                      ["mem-used", "high"]):  # memory in use, and swap in use (drawn in the high colour)
            for a, b in itertools.combinations(group, 2):
                assert delta_e(scheme[a], scheme[b]) >= least, (a, b, scheme[a], scheme[b])


def test_neighbouring_chart_parts_stand_well_apart() -> None:
    """Parts drawn side by side in a bar (part-N next to part-N+1) are far apart (CIEDE2000 of 35 and more)."""
    from tests.support.colour import delta_e

    for scheme in _schemes():
        for i in range(11):
            assert delta_e(scheme[f"p{i}"], scheme[f"p{i + 1}"]) >= 35, (i, scheme[f"p{i}"], scheme[f"p{i + 1}"])
