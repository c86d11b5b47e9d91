"""Counts of one read as one ("1 executor", "1 host", "1 OOM kill"), never "1 executors" or "worker(s)", in every
output: the plan of every generation and role at one host and one CPU, and the audit of every fixture at --hosts 1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

# "1" then a word ending in a plural "s" (not "ss": "1 process"), or a noun with "(s)"
WRONG = re.compile(r"(?<![\d.,])\b1 (?!-)[A-Za-z]+[^s\W]s\b|[a-z]\(s\)")
SOURCES = [*sorted(p for p in (REPO / "tests" / "fixtures" / "sosreports").iterdir() if p.is_dir()),
           REPO / "examples" / "sosreport-satellite-6.15-mistuned"]


def test_the_pattern_finds_what_it_is_for() -> None:
    assert [m.group(0) for m in WRONG.finditer("1 executors, 1 process, 2 hosts, 1 hosts, worker(s), 0.1 GiBs, 11 CPUs")] == [
        "1 executors", "1 hosts", "r(s)"]


@pytest.mark.parametrize("version", ["6.2", "6.9", "6.15"])
@pytest.mark.parametrize("role", ["server", "capsule"])
def test_a_plan_for_one_host_says_one(version: str, role: str, tmp_path: Path) -> None:
    box = ("plan", "--product", "satellite", "--version", version, "--role", role, "--hosts", "1", "--cpus", "1",
           "--ram", "8G", "--puppet-hosts", "1", "--katello-agent-hosts", "1")
    texts = [run_cli(*box).stdout, run_cli(*box, "--format", "markdown").stdout, run_cli(*box, "--format", "json").stdout]
    run_cli(*box, "--output-dir", str(tmp_path / "out"))
    texts += [p.read_text(encoding="utf-8") for p in sorted((tmp_path / "out").rglob("*")) if p.is_file()]
    assert [m.group(0) for text in texts for m in WRONG.finditer(text)] == []


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_an_audit_at_one_host_says_one(source: Path) -> None:
    result = run_cli("audit", str(source), "--hosts", "1", "--verbose", "--format", "markdown")
    assert [m.group(0) for m in WRONG.finditer(result.stdout + result.stderr)] == []
