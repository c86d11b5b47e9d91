"""End-to-end audits of every fixture sosreport, as a directory and as a tarball, against reviewed golden JSON.

The golden files keep what a reviewer judges (rule, status, severity, current, recommended, the symptoms joined
under a root cause); messages,
evidence and citations are covered by the rule fixtures and the schema test.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.facts.archive import pack

SOSREPORTS = REPO / "tests" / "fixtures" / "sosreports"
CASES = {
    "satellite-6.2": ["--hosts", "8000"],
    "satellite-6.9": ["--hosts", "7000"],
    "satellite-6.15": [],
    "orcharhino-6.9": ["--hosts", "2000"],
    "capsule-6.15-pull-rex": ["--hosts", "6000"],
    "capsule-6.2-passenger": ["--hosts", "600"],
    "example-mistuned": [],
}
GOLDEN = Path(__file__).parent / "golden"


def source_dir(name: str) -> Path:
    return REPO / "examples" / "sosreport-satellite-6.15-mistuned" if name == "example-mistuned" else SOSREPORTS / name


def judged(stdout: str) -> dict[str, object]:
    data = json.loads(stdout)
    return {
        "release": data["release"], "role": data["role"], "hosts": data["hosts"], "profile": data["profile"],
        "findings": {f["rule"]: {**{k: f[k] for k in ("status", "severity", "current", "recommended")},
                                 **({"symptoms": [s["rule"] for s in f["symptoms"]]} if f["symptoms"] else {})}
                     for f in data["findings"]},
    }


def audit(source: Path, extra: list[str]) -> dict[str, object]:
    result = run_cli("audit", str(source), *extra, "--format", "json", "--fail-on", "critical")
    assert not result.stderr.strip(), result.stderr
    found = judged(result.stdout)
    critical = any(f["status"] == "fail" and f["severity"] == "critical" for f in found["findings"].values())  # type: ignore[attr-defined]
    assert result.status == (1 if critical else 0), result.status  # --fail-on critical: 1 exactly when one fails
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_directory_audit_matches_golden(name: str) -> None:
    expected = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))
    assert audit(source_dir(name), CASES[name]) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_tarball_audit_equals_directory_audit(name: str, tmp_path: Path) -> None:
    tarball = pack(source_dir(name), tmp_path / f"{name}.tar.xz")
    assert audit(tarball, CASES[name]) == audit(source_dir(name), CASES[name])
