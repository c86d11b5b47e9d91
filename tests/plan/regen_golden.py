"""Write golden/<case>.json from the current planner. Review every diff before committing."""

from __future__ import annotations

import json

from tests.plan.cases import CASES
from tests.plan.test_plan_golden import GOLDEN, plan_json

if __name__ == "__main__":
    for name, argv in CASES.items():
        (GOLDEN / f"{name}.json").write_text(json.dumps(plan_json(argv), indent=2) + "\n", encoding="utf-8")
        print("wrote", name)
