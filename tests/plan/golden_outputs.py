"""Every plan output (table, json, hiera, installer, --out tree) per case, as files relative to the case's golden dir."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from tests.conftest import run_cli

GOLDEN = Path(__file__).parent / "golden"
FORMATS = {"table": "table.txt", "hiera": "hiera.yaml", "installer": "installer.txt"}


def plan_json(argv: list[str], *, stable: bool = True) -> dict[str, object]:
    """The plan's JSON; ``stable`` drops the foretune version so goldens survive releases."""
    result = run_cli("plan", *argv, "--format", "json")
    assert result.status == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    if stable:
        data.pop("foretune_version")
    return data


def outputs(argv: list[str]) -> dict[str, str]:
    """Relative path -> text for every output of one plan."""
    files = {"plan.json": json.dumps(plan_json(argv), indent=2) + "\n"}
    for fmt, name in FORMATS.items():
        result = run_cli("plan", *argv, "--format", fmt)
        assert result.status == 0, result.stderr
        files[name] = result.stdout
    with tempfile.TemporaryDirectory() as tmp:
        result = run_cli("plan", *argv, "--out", tmp)
        assert result.status == 0, result.stderr
        for path in sorted(Path(tmp).rglob("*")):
            if path.is_file():
                files[f"out/{path.relative_to(tmp).as_posix()}"] = path.read_text(encoding="utf-8")
    return files


def golden(name: str) -> dict[str, str]:
    """The reviewed outputs stored for one case."""
    root = GOLDEN / name
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}
