"""Rewrite golden/<case>/ from the current planner. Review every diff before committing."""

from __future__ import annotations

import shutil

from tests.plan.cases import CASES
from tests.plan.golden_outputs import GOLDEN, outputs

if __name__ == "__main__":
    for name, argv in CASES.items():
        root = GOLDEN / name
        shutil.rmtree(root, ignore_errors=True)
        for rel, text in outputs(argv).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        print("wrote", name)
