"""CI runs the suite once: the README's test command on a plain clone, then only the guide-quote checks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_command_on_a_clone_without_shared_then_only_the_guide_checks() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    steps = [line.strip() for line in script.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    clone = next(i for i, line in enumerate(steps) if line.startswith("git clone"))
    test = next(i for i, line in enumerate(steps) if "python3 dev.py test" in line)
    assert clone < test
    assert 'cd "$plain/foretune"' in steps[test] and "env -u FORETUNE_SEEDS" in steps[test]
    assert 'test ! -e "$plain/shared"' in steps  # nothing beside the clone
    assert steps[-1] == "exec python3 dev.py guides"


def test_guide_checks_are_selected_by_their_marker_including_the_guides_fixture(tmp_path: Path) -> None:
    # FORETUNE_SEEDS set keeps them in the run wherever the texts are (collecting does not read them)
    env = {**os.environ, "FORETUNE_SEEDS": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "-m", "needs_guides",
                           "tests/test_citations.py", "tests/plan/test_provenance.py"],
                          cwd=REPO, capture_output=True, text=True, check=False, env=env)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    names = {line.split("::")[1].split("[")[0] for line in ids}
    # the four tests of test_citations.py that take the `guides` fixture, and the two marked in test_provenance.py
    assert {"test_guide_quotes_occur_in_their_guide", "test_an_altered_quote_is_caught",
            "test_every_quote_in_an_estimate_note_is_verbatim",
            "test_guide_texts_sit_beside_the_repository_or_its_main_checkout"} <= names
    assert "test_every_citation_says_how_it_is_proven" not in names
    assert sum("test_provenance.py" in line for line in ids) == 2


def test_dev_guides_refuses_in_one_line_without_the_texts(tmp_path: Path) -> None:
    root = tmp_path / "clone"
    (root / "tests" / "support").mkdir(parents=True)
    shutil.copy(REPO / "dev.py", root / "dev.py")
    for name in ("tests/__init__.py", "tests/support/__init__.py", "tests/support/seeds.py"):
        shutil.copy(REPO / name, root / name)
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "dev.py", "guides"], cwd=root, capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "dev.py guides: the guide texts are absent (../shared/seeds, or set FORETUNE_SEEDS); see docs/development.md"]
