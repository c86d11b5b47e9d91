"""Write golden/<case>/*.txt from the current rules. Review every diff before committing."""

from __future__ import annotations

import shutil

from tests.audit.test_audit_golden import CASES, GOLDEN, audit, source_dir

if __name__ == "__main__":
    for name, extra in CASES.items():
        files = audit(source_dir(name), extra)
        shutil.rmtree(GOLDEN / name, ignore_errors=True)
        (GOLDEN / name).mkdir(parents=True)
        for file, text in files.items():
            (GOLDEN / name / file).write_text(text, encoding="utf-8")
        print("wrote", name)
