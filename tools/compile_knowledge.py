"""Write src/foretune/knowledge/data/compiled.json: the bundled YAML data as JSON (loads in ~1 ms).

``--check`` exits 1 when the committed file is stale. foretune never reads a stale entry (each
carries the SHA-256 of its YAML and falls back to the YAML), so staleness costs time, not correctness.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
TARGET = ROOT / "src" / "foretune" / "knowledge" / "data" / "compiled.json"


def main() -> int:
    from foretune.knowledge import compile_data

    text = compile_data()
    if "--out" in sys.argv[1:]:  # e.g. the zipapp's staging directory
        Path(sys.argv[sys.argv.index("--out") + 1]).write_text(text, encoding="utf-8")
        return 0
    if "--check" in sys.argv[1:]:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET.relative_to(ROOT)} is stale: run python3 tools/compile_knowledge.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
