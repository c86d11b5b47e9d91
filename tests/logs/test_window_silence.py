"""A log with no line in a --since/--until window (or a --compare window) tells nothing about that window: it is
named as not judged there, and a comparison never calls its figures better or worse."""

from __future__ import annotations

import io
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from foretune.cli import main
from foretune.env import Environment

SCHEMA = json.loads(resources.files("foretune.logs").joinpath("schema/logs-v1.json").read_text(encoding="utf-8"))
MORNING = "2025-01-10 08:00..2025-01-10 09:00"  # both logs have lines here
NOON = "2025-01-10 11:00..2025-01-10 13:00"  # only production.log has lines here


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), Environment(stdout=out, stderr=err, environ={}))
    return code, out.getvalue(), err.getvalue()


def logs(tmp_path: Path) -> list[str]:
    """production.log with requests at 08:00 and at 12:00; an access log with 20 503s at 08:01 and nothing after 08:02."""
    (tmp_path / "var/log/foreman").mkdir(parents=True)
    (tmp_path / "var/log/httpd").mkdir(parents=True)
    production = tmp_path / "var/log/foreman/production.log"
    rows = []
    for hour in ("08", "12"):
        for n in range(5):
            rid = f"{hour}{n:06d}"
            rows += [f"2025-01-10T{hour}:00:0{n} [I|app|{rid}] Processing by HostsController#index as JSON",
                     f"2025-01-10T{hour}:00:0{n} [I|app|{rid}] Completed 200 OK in 50ms (Views: 1.0ms | ActiveRecord: 5.0ms)"]
    production.write_text("\n".join(rows) + "\n", encoding="utf-8")
    access = tmp_path / "var/log/httpd/foreman-ssl_access_ssl.log"
    hits = [f'10.0.0.{n} - - [10/Jan/2025:08:01:{n:02d} +0000] "GET /rhsm/consumers/x HTTP/1.1" 503 299 "-" "-"' for n in range(20)]
    hits += [f'10.0.0.{n} - - [10/Jan/2025:08:02:{n:02d} +0000] "GET /api/v2/hosts HTTP/1.1" 200 99 "-" "-"' for n in range(5)]
    access.write_text("\n".join(hits) + "\n", encoding="utf-8")
    return [str(production), str(access)]


def test_a_log_outside_the_window_is_not_judged_there(tmp_path: Path) -> None:
    files = logs(tmp_path)
    since, until = NOON.split("..")
    code, out, err = run("logs", *files, "--since", since, "--until", until, "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    jsonschema.validate(data, SCHEMA)
    assert data["no_line_in_window"] == ["apache_access"]
    code, text, _ = run("logs", *files, "--since", since, "--until", until)
    assert "no incidents in the logs read (production.log)" in text
    assert "no line in the window, so not judged there: Apache access log" in text
    assert "25 lines, none in the window, so not judged there" in text
    assert "0 requests: 2xx 0" not in text and "no dated line" not in text


def test_a_window_no_log_reaches_says_nothing_can_be_seen(tmp_path: Path) -> None:
    code, text, err = run("logs", *logs(tmp_path), "--since", "2025-01-11 00:00", "--until", "2025-01-11 06:00")
    assert code == 0, err
    assert "period: no line in the window" in text
    assert "no incidents can be seen: no log read has a line in the window" in text
    assert "no line in the window, so not judged there: production.log, Apache access log" in text


def test_compare_never_judges_a_log_silent_in_one_window(tmp_path: Path) -> None:
    logs(tmp_path)  # one source (a tree), two windows
    for before, after, silent in ((MORNING, NOON, "after"), (NOON, MORNING, "before")):
        code, out, err = run("logs", str(tmp_path), "--compare", "--window", before, "--window", after, "--format", "json")
        assert code == 0, err
        data = json.loads(out)
        jsonschema.validate(data, SCHEMA)
        metrics = {m["metric"]: m for m in data["metrics"]}
        m503 = metrics["apache: 503 responses"]
        assert m503["direction"] is None and m503["change"] is None and m503["outside_window"] == [silent]
        assert m503[silent] is None and m503["after" if silent == "before" else "before"] == 20
        assert metrics["apache: 502/503 burst minutes"]["direction"] is None
        assert "outside_window" not in metrics["production: requests"]  # both windows hold production.log lines
        code, text, _ = run("logs", str(tmp_path), "--compare", "--window", before, "--window", after)
        assert "better" not in text and "worse" not in text
        assert f"not compared (4 figures): their log has no line in that side's window, so it tells nothing there ({silent}: apache)" in text
        assert f"no line of this log in the {silent} window" in text
