"""Write golden/<case>.json from the current rules. Review every diff before committing."""

from __future__ import annotations

import json

from tests.audit.test_audit_golden import CASES, GOLDEN, audit, source_dir

if __name__ == "__main__":
    for name, extra in CASES.items():
        (GOLDEN / f"{name}.json").write_text(json.dumps(audit(source_dir(name), extra), indent=2) + "\n", encoding="utf-8")
        print("wrote", name)
