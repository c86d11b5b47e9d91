"""End-to-end audits of every fixture sosreport, as a directory and as a tarball, against reviewed golden files.

Each scenario has its own directory, ``golden/<case>/``, of small text files a reviewer reads line by line:
``summary.txt`` (release, role, host figure, profile), ``fail.txt`` (one failing rule a line with its severity,
current and recommended value, and the symptoms listed under it as their root cause) and ``pass.txt`` /
``skip.txt`` (the rule ids only). A rule that moves from skip to pass moves a line between two files, which a diff
cannot hide. Messages, evidence and citations are covered by the rule fixtures and the schema test.
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


def judged(stdout: str) -> dict[str, str]:
    """The audit as the golden files of one scenario: file name -> text."""
    data = json.loads(stdout)
    files = {"summary.txt": "".join(f"{key}: {json.dumps(data[key])}\n" for key in ("release", "role", "hosts", "profile"))}
    by_status: dict[str, list[str]] = {}
    for f in sorted(data["findings"], key=lambda f: f["rule"]):
        line = f["rule"]
        if f["status"] not in ("pass", "skip"):  # what a failure (or an error) says: how bad, what is there, what to set
            line += f"  {f['severity']}  current {json.dumps(f['current'])}  recommended {json.dumps(f['recommended'])}"
            # each symptom on its own line under its root cause (a profile's consequences make a long list)
            line += "".join(f"\n    symptom {s['rule']}  {s['severity']}" for s in f["symptoms"])
        by_status.setdefault(f["status"], []).append(line)
    files.update({f"{status}.txt": "".join(line + "\n" for line in lines) for status, lines in by_status.items()})
    return files


def audit(source: Path, extra: list[str]) -> dict[str, str]:
    result = run_cli("audit", str(source), *extra, "--format", "json", "--fail-on", "critical")
    assert not result.stderr.strip(), result.stderr
    critical = any(f["status"] == "fail" and f["severity"] == "critical" for f in json.loads(result.stdout)["findings"])
    assert result.status == (1 if critical else 0), result.status  # --fail-on critical: 1 exactly when one fails
    return judged(result.stdout)


def golden(name: str) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((GOLDEN / name).iterdir())}


@pytest.mark.parametrize("name", sorted(CASES))
def test_directory_audit_matches_golden(name: str) -> None:
    got, expected = audit(source_dir(name), CASES[name]), golden(name)
    assert sorted(got) == sorted(expected)
    for file in expected:  # one file at a time, so a failure shows a short diff
        assert got[file] == expected[file], f"golden/{name}/{file}"


def test_golden_files_are_small_enough_to_read() -> None:
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(CASES)  # one directory per scenario, nothing else
    for path in GOLDEN.glob("*/*.txt"):
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) <= 80 and all(len(line) <= 200 for line in lines), path


@pytest.mark.parametrize("name", sorted(CASES))
def test_tarball_audit_equals_directory_audit(name: str, tmp_path: Path) -> None:
    tarball = pack(source_dir(name), tmp_path / f"{name}.tar.xz")
    assert audit(tarball, CASES[name]) == audit(source_dir(name), CASES[name])
