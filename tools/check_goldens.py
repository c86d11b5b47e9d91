#!/usr/bin/env python3
"""Refuse a commit that changes a golden file without touching a test, fixture or data file in the same commit.

A golden is any file under a ``golden/`` directory in tests/ (regenerated output, reviewed like code).
Its change must come with the change that explains it: a test or fixture (any other file under
tests/) or knowledge data (src/foretune/knowledge/data/). Code changes alone do not count: a change of
output is a change of behaviour, and a test says which.

Which commits: those of HEAD since its merge-base with the upstream branch (the first of
``origin/HEAD``, ``origin/main``, ``main`` that exists and is not HEAD itself); where there is no
such base or HEAD is on it, the last ``--last`` (20) commits of HEAD. Merge commits are passed over
(each side's commits are checked). ``--range A..B`` checks exactly those commits.

Exit 0 when every commit passes; 1 with one line per refused commit; 2 when git cannot answer.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

UPSTREAMS = ("origin/HEAD", "origin/main", "main")
DATA = "src/foretune/knowledge/data/"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def is_golden(path: str) -> bool:
    """``tests/plan/golden/satellite-6.15-large/table.txt`` is; ``tests/fixtures/x.expected.json`` is not (written by hand).

    >>> is_golden("tests/plan/golden/satellite-6.15-large/table.txt"), is_golden("tests/audit/golden/satellite-6.15/fail.txt")
    (True, True)
    >>> is_golden("tests/plan/test_plan_golden.py"), is_golden("src/foretune/golden/x.py")
    (False, False)
    """
    parts = path.split("/")
    return parts[0] == "tests" and "golden" in parts[:-1]


def explains(path: str) -> bool:
    """A test, fixture or data file: a change that may legitimately move a golden.

    >>> explains("tests/plan/test_plan_golden.py"), explains("tests/rules/fixtures/x/fail-a.yaml")
    (True, True)
    >>> explains("src/foretune/knowledge/data/thresholds-apache.yaml"), explains("src/foretune/plan/planner.py")
    (True, False)
    >>> explains("tests/plan/golden/satellite-6.15-large/table.txt")
    False
    """
    return (path.startswith("tests/") and not is_golden(path)) or path.startswith(DATA)


def commits(repo: Path, last: int, explicit: str | None) -> tuple[list[str], str]:
    """(commits to check, oldest first; how they were chosen)."""
    if explicit:
        return git(repo, "rev-list", "--no-merges", "--reverse", explicit).split(), explicit
    head = git(repo, "rev-parse", "HEAD").strip()
    for upstream in UPSTREAMS:
        if subprocess.run(["git", "-C", str(repo), "rev-parse", "-q", "--verify", upstream + "^{commit}"],
                          capture_output=True, check=False).returncode != 0:
            continue
        base = git(repo, "merge-base", "HEAD", upstream).strip()
        if base and base != head:
            return git(repo, "rev-list", "--no-merges", "--reverse", f"{base}..HEAD").split(), f"since {upstream}"
    found = git(repo, "rev-list", "--no-merges", "--reverse", f"--max-count={last}", "HEAD").split()
    return found, f"the last {len(found)} commits"


def refused(repo: Path, sha: str) -> list[str]:
    """The goldens ``sha`` changes with nothing that explains them (empty when it passes)."""
    files = git(repo, "diff-tree", "--root", "--no-commit-id", "--name-only", "-r", sha).split("\n")
    goldens = [f for f in files if f and is_golden(f)]
    if not goldens or any(explains(f) for f in files if f):
        return []
    return goldens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--last", type=int, default=20, help="commits to check when HEAD has no upstream base")
    parser.add_argument("--range", dest="explicit", metavar="A..B", help="check exactly these commits")
    args = parser.parse_args(argv)
    try:
        shas, how = commits(args.repo, args.last, args.explicit)
        bad = [(sha, refused(args.repo, sha)) for sha in shas]
    except RuntimeError as exc:
        print(f"check_goldens: {exc}", file=sys.stderr)
        return 2
    bad = [(sha, files) for sha, files in bad if files]
    for sha, files in bad:
        subject = git(args.repo, "log", "-1", "--format=%s", sha).strip()
        print(f"golden changed without a test, fixture or data file: {sha[:10]} {subject[:60]!r}: "
              f"{', '.join(files[:3])}{' ...' if len(files) > 3 else ''}", file=sys.stderr)
    if not bad:
        print(f"goldens: every change comes with a test, fixture or data change ({how}, {len(shas)} commits)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
