"""Evidence quotes the unit or file the finding is about, and every quoted file exists in the source."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import REPO, run_cli

SOS = REPO / "tests" / "fixtures" / "sosreports"
NAMES = ["satellite-6.2", "satellite-6.9", "satellite-6.15", "orcharhino-6.9", "capsule-6.15-pull-rex"]
UNIT_OF = {"httpd-nofile-low": "httpd.service", "proxy-dynflow-nofile-low": "foreman-proxy.service",
           "qdrouterd-nofile-low": "qdrouterd.service", "qpidd-nofile-low": "qpidd.service",
           "mosquitto-nofile-low": "mosquitto.service"}


def failing(name: str, *extra: str) -> list[dict[str, object]]:
    result = run_cli("audit", str(SOS / name), *extra, "--format", "json", "--fail-on", "critical")
    return [f for f in json.loads(result.stdout)["findings"] if f["status"] == "fail"]


@pytest.mark.parametrize("name", NAMES)
def test_service_limit_evidence_is_about_that_unit_only(name: str) -> None:
    checked = 0
    for finding in failing(name, "--hosts", "9000"):
        unit = UNIT_OF.get(str(finding["rule"]))
        if unit is None:
            continue
        # systemctl show's lines of a unit are one evidence line each, its Id= line first: a line after it is that unit's
        shown: dict[str, str] = {}  # location -> the unit of the last Id= line quoted from it
        excerpts = [e["excerpt"] for e in finding["evidence"]]  # type: ignore[attr-defined]
        for ev in finding["evidence"]:  # type: ignore[attr-defined]
            if ev["fact"] != "service_limits":
                continue
            checked += 1
            ids = re.findall(r"Id=(\S+)", ev["excerpt"])
            assert ids in ([], [unit]), (finding["rule"], ev)
            if ids:
                shown[ev["location"]] = ids[0]
            pid = re.fullmatch(r"proc/(\d+)/limits", ev["location"])
            if pid:  # a process's limits: the unit's own block names it as its MainPID
                assert f"Id={unit}" in excerpts and f"MainPID={pid.group(1)}" in excerpts, (finding["rule"], ev)
                continue
            assert (unit in ev["excerpt"] or unit.removesuffix(".service") in ev["location"]
                    or shown.get(ev["location"]) == unit), (finding["rule"], ev)
    assert checked or name == "satellite-6.9"  # 6.9's only limit finding quotes httpd from systemctl show


@pytest.mark.parametrize("name", NAMES)
def test_every_quoted_file_exists_in_the_source(name: str) -> None:
    for finding in failing(name):
        for ev in finding["evidence"]:  # type: ignore[attr-defined]
            location = str(ev["location"])
            if "/" in location and not location.startswith(("systemctl ", "command line")) and ev["fact"] != "memory budget":
                assert (SOS / name / location).exists(), (finding["rule"], location)


def test_soft_limit_evidence_quotes_the_process_limits_of_the_main_pid() -> None:
    finding = next(f for f in failing("satellite-6.15") if f["rule"] == "httpd-nofile-low")
    locations = [e["location"] for e in finding["evidence"]]  # type: ignore[attr-defined]
    assert "proc/2201/limits" in locations  # MainPID=2201 of httpd.service in systemctl show
    assert "soft 1024 (hard 524288)" in str(finding["message"])


def test_apache_and_sysctl_evidence_quote_only_their_lines() -> None:
    for finding in failing("satellite-6.2", "--hosts", "8000"):
        if finding["rule"] == "fs-aio-max-nr-low":
            assert [e["excerpt"] for e in finding["evidence"]] == ["fs.aio-max-nr = 65536"]  # type: ignore[attr-defined]
        if finding["rule"] == "thp-enabled":
            assert all("enabled" in e["location"] for e in finding["evidence"])  # type: ignore[attr-defined]


def test_evidence_about_a_unit_the_source_lacks_quotes_no_other_units_block() -> None:
    """systemctl show with httpd's and foreman-proxy's blocks only, evidence asked about mosquitto.service: no line of
    either block (another unit's LimitNOFILE=1024 proves nothing about mosquitto); asked about httpd.service, httpd's
    block."""
    from foretune.audit.context import build_context  # start-up: only this test builds a context by hand
    from foretune.facts.model import Fact, FactSet, Provenance  # start-up: only this test builds facts by hand

    show = "sos_commands/systemd/systemctl_show_service_--all"
    facts = FactSet("fixture", "test")
    facts.add(Fact("service_limits", {"httpd.service": {"LimitNOFILE": 1024}, "foreman-proxy.service": {"LimitNOFILE": 1024}},
                   (Provenance("fixture", show, "Id=httpd.service\nLimitNOFILE=1024\nLimitNOFILESoft=1024"),
                    Provenance("fixture", show, "Id=foreman-proxy.service\nLimitNOFILE=1024\nLimitNOFILESoft=1024"))))
    ctx, _ = build_context(facts)
    assert ctx.evidence("service_limits", about="mosquitto.service") == ()
    assert [e.excerpt for e in ctx.evidence("service_limits", about="httpd.service")] == [
        "Id=httpd.service", "LimitNOFILE=1024", "LimitNOFILESoft=1024"]
