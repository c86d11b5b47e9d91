"""tools/check_goldens.py refuses a commit that changes a golden with no test, fixture or data file beside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

TOOL = REPO / "tools" / "check_goldens.py"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                          capture_output=True, text=True, check=True).stdout


def _commit(repo: Path, message: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)


def _check(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), "--repo", str(repo), *args], capture_output=True, text=True, check=False)


def test_a_golden_changed_alone_is_refused_and_one_with_its_test_passes(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    _commit(tmp_path, "start", {"tests/plan/golden/case/table.txt": "a\n", "tests/plan/test_plan.py": "x = 1\n",
                                "src/foretune/plan/planner.py": "y = 1\n"})
    _git(tmp_path, "checkout", "-q", "-b", "topic")
    _commit(tmp_path, "output changes with its test", {"tests/plan/golden/case/table.txt": "b\n", "tests/plan/test_plan.py": "x = 2\n"})
    _commit(tmp_path, "output changes with its data", {"tests/plan/golden/case/table.txt": "c\n",
                                                       "src/foretune/knowledge/data/thresholds.yaml": "a: 1\n"})
    passed = _check(tmp_path)
    assert passed.returncode == 0, passed.stderr
    assert "since main, 2 commits" in passed.stdout

    _commit(tmp_path, "regenerated goldens after a code change", {"tests/plan/golden/case/table.txt": "d\n",
                                                                  "src/foretune/plan/planner.py": "y = 2\n"})
    refused = _check(tmp_path)
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1
    assert "golden changed without a test, fixture or data file" in refused.stderr
    assert "'regenerated goldens after a code change': tests/plan/golden/case/table.txt" in refused.stderr


def test_on_the_upstream_branch_the_recent_commits_are_checked(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    _commit(tmp_path, "start", {"tests/audit/golden/case/fail.txt": "a\n", "tests/audit/test_a.py": "x = 1\n"})
    _commit(tmp_path, "golden alone", {"tests/audit/golden/case/fail.txt": "b\n"})
    assert _check(tmp_path, "--last", "1").returncode == 1
    assert _check(tmp_path, "--range", "HEAD~1..HEAD~1").returncode == 0  # an empty range checks nothing
