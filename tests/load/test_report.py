"""Results documents: --compare's noise rule, text and Markdown (hand-written results, no load)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli


def _result(run: str, p95: float, ok_rps: float, failures: int) -> dict[str, Any]:
    step = {"name": "registration", "count": 100, "failures": {"503": failures} if failures else {},
            "failures_total": failures, "p50_ms": 50.0, "p95_ms": p95, "p99_ms": p95 * 1.5, "max_ms": p95 * 2,
            "rps": ok_rps + failures / 60, "ok_rps": ok_rps, "mb_per_s": 0.0, "examples": []}
    return {"schema": "foretune-load/1", "foretune": "0", "scenario": "registration", "target": "https://s",
            "run": run, "started": "2026-11-26T10:00:00Z", "duration_s": 60.0,
            "shape": {"users": 10, "duration_s": 60.0, "arrival_rate": None, "levels": [10], "time_limit_s": 120.0,
                      "max_requests": 100000, "timeout_s": 180.0},
            "requests": 100, "stopped_by": "duration", "interrupted": False, "saturation_users": None,
            "steps": [step], "levels": [{"users": 10, "duration_s": 60.0, "steps": [step]}], "notes": []}


def test_compare_marks_changes_under_the_noise_fraction_and_any_change_from_zero(tmp_path: Path) -> None:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(_result("a", p95=100.0, ok_rps=10.0, failures=0)))
    after.write_text(json.dumps(_result("b", p95=50.0, ok_rps=10.5, failures=3)))
    result = run_cli("load", "--compare", str(before), str(after), "--noise", "10", "--format", "json")
    assert result.status == 0, result.stderr
    row = json.loads(result.stdout)["steps"][0]
    assert row["p95_ms"] == {"before": 100.0, "after": 50.0, "change": -0.5, "noise": False}
    assert row["ok_rps"] == {"before": 10.0, "after": 10.5, "change": 0.05, "noise": True}
    assert row["failures_total"] == {"before": 0, "after": 3, "change": None, "noise": False}
    text = run_cli("load", "--compare", str(before), str(after), "--noise", "10").stdout
    assert "registration  100 -> 50 (-50%)  10.00 -> 10.50 (+5%, noise)  0 -> 3 (new)" in text


def test_compare_refuses_two_scenarios(tmp_path: Path) -> None:
    api = _result("a", 1.0, 1.0, 0)
    api["scenario"] = "api"
    (tmp_path / "a.json").write_text(json.dumps(api))
    (tmp_path / "b.json").write_text(json.dumps(_result("b", 1.0, 1.0, 0)))
    result = run_cli("load", "--compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.status == 2
    assert "api and registration results are not comparable" in result.stderr


def test_text_and_markdown_name_the_level_and_the_failures() -> None:
    from foretune.load import report

    doc = _result("r", p95=250.0, ok_rps=2.0, failures=4)
    doc["saturation_users"] = 10
    text = report.text(doc)
    assert "first level with failures: 10 users" in text
    assert "registration    100     503 4    50.0     250     375  2.07" in text
    markdown = report.markdown(doc)
    assert "| registration | 100 | 503 4 | 50.0 | 250 | 375 | 2.07 |" in markdown


def test_html_has_the_tables_and_charts_against_concurrency() -> None:
    from foretune.load import html

    doc = _result("r", p95=250.0, ok_rps=2.0, failures=4)
    second = json.loads(json.dumps(doc["levels"][0]))
    second["users"] = 20
    second["steps"][0]["p95_ms"] = 900.0
    doc["levels"].append(second)
    page = html.render(doc)
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 2
    assert "p95 latency (ms) against concurrency" in page and "10 users" in page and "20 users" in page
    assert "<td>registration</td>\n<td class=\"n\">100</td>\n<td>503 4</td>" in page
    # the charts stand under the title, before the first level's table
    assert page.index("</h1>") < page.index("<svg") < page.index("<h2>10 users")
    assert "<script" not in page
    # a point is a load level, not a minute: the axis says so under both charts
    assert page.count(">users (one point a load level: 10, 20)</text>") == 2 and "a minute" not in page


def test_server_answers_are_shown_literally_in_markdown_and_html() -> None:
    from foretune.load import html, report

    doc = _result("r", p95=250.0, ok_rps=2.0, failures=4)
    doc["levels"][0]["steps"][0]["examples"] = ["503: <b>busy</b> [retry](http://elsewhere) *now*"]
    assert "- `registration`: 503: \\<b\\>busy\\</b\\> \\[retry\\](http://elsewhere) \\*now\\*" in report.markdown(doc)
    page = html.render(doc)
    assert "<li><code>registration</code>: 503: &lt;b&gt;busy&lt;/b&gt; [retry](http://elsewhere) *now*</li>" in page
    assert "<a " not in page and "<b>" not in page


def _write(path: Path, doc: Any) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def _broken(change: str) -> dict[str, Any]:
    doc = _result("b", 100.0, 1.0, 0)
    if change == "p95":
        doc["steps"][0]["p95_ms"] = "fast"
    elif change == "steps":
        doc["steps"] = None
    else:
        del doc["scenario"]
    return doc


@pytest.mark.parametrize(("change", "message"), [
    ("p95", "steps[0].p95_ms is a string, expected number or null"),
    ("steps", "steps is null, expected array"),
    ("scenario", "has no 'scenario'"),
])
def test_compare_of_a_result_of_the_wrong_shape_is_one_input_error(tmp_path: Path, change: str, message: str) -> None:
    good = _write(tmp_path / "good.json", _result("a", 100.0, 1.0, 0))
    bad = _write(tmp_path / "bad.json", _broken(change))
    result = run_cli("load", "--compare", good, bad)
    assert result.status == 2, result.stderr
    assert f"--compare: {bad} is not a valid foretune-load/1 result: " in result.stderr and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_compare_shows_steps_in_one_result_only_and_warns_of_different_shapes(tmp_path: Path) -> None:
    before_doc, after_doc = _result("a", 100.0, 10.0, 0), _result("b", 100.0, 10.0, 0)
    gone = dict(before_doc["steps"][0], name="register_script", p95_ms=40.0)
    before_doc["steps"].append(gone)
    new = dict(after_doc["steps"][0], name="upload_profiles", p95_ms=70.0)
    after_doc["steps"].append(new)
    after_doc["shape"]["arrival_rate"] = 5.0
    before, after = _write(tmp_path / "before.json", before_doc), _write(tmp_path / "after.json", after_doc)
    result = run_cli("load", "--compare", before, after, "--format", "json")
    assert result.status == 0, result.stderr
    diff = json.loads(result.stdout)
    rows = {r["name"]: r for r in diff["steps"]}
    assert rows["register_script"]["presence"] == "gone" and rows["register_script"]["p95_ms"]["before"] == 40.0
    assert rows["upload_profiles"]["presence"] == "new" and rows["upload_profiles"]["p95_ms"]["after"] == 70.0
    assert diff["warnings"] == ["the results have different shapes: a closed ramp of 10 users, 60 s each before, "
                                "open arrivals at 5.0/s, at most 10 in flight after"]
    text = run_cli("load", "--compare", before, after).stdout
    lines = {line.split("  ")[0]: line.split() for line in text.splitlines()}
    assert lines["register_script (gone)"][2:] == ["40", "->", "gone", "10.00", "->", "gone", "0", "->", "gone"]
    assert lines["upload_profiles (new)"][2:] == ["new:", "70", "new:", "10.00", "new:", "0"]
    assert "warning: the results have different shapes" in text


@pytest.mark.parametrize("fmt", ["html", "markdown"])
def test_compare_refuses_formats_it_does_not_write(tmp_path: Path, fmt: str) -> None:
    good = _write(tmp_path / "good.json", _result("a", 100.0, 1.0, 0))
    result = run_cli("load", "--compare", good, good, "--format", fmt)
    assert result.status == 2 and result.stdout == ""
    assert f"--compare writes text or json, not {fmt}" in result.stderr


def test_server_logs_window_is_the_run_to_the_second(tmp_path: Path) -> None:
    import time

    from foretune.commands.load import _server_logs
    from foretune.env import Environment

    log = tmp_path / "var/log/foreman/production.log"
    log.parent.mkdir(parents=True)
    log.write_text("")
    started = time.mktime((2026, 11, 26, 10, 0, 7, 0, 0, -1)) + 0.4  # local time, as the server's logs
    window = _server_logs(str(tmp_path), started, started + 12.3, Environment())
    assert (window["since"], window["until"]) == ("2026-11-26 10:00:07", "2026-11-26 10:00:20")


def test_one_user_is_singular_and_content_shows_mb_per_second() -> None:
    from foretune.load import report

    doc = _result("r", p95=250.0, ok_rps=2.0, failures=4)
    doc["levels"][0]["users"] = 1
    doc["saturation_users"] = 1
    text = report.text(doc)
    assert "level 1 user, 60.0 s" in text and "first level with failures: 1 user\n" in text
    assert "1 users" not in text and "1 users" not in report.markdown(doc)
    assert "MB/s" not in text
    doc["scenario"] = "content"
    doc["levels"][0]["steps"][0]["mb_per_s"] = 12.5
    assert report.text(doc).splitlines()[-2].split()[-2:] == ["rps", "MB/s"] and "2.07  12.50" in report.text(doc)
    assert "| step | count | failures | p50 ms | p95 ms | p99 ms | rps | MB/s |" in report.markdown(doc)
    assert "| 2.07 | 12.50 |" in report.markdown(doc)
