"""Every plan output (table, json, hiera, installer, --out tree) per case, as files relative to the case's golden dir."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from foretune import __version__
from foretune.render.files import MANIFEST
from tests.conftest import run_cli

GOLDEN = Path(__file__).parent / "golden"
FIXED_TIME = "1700000000"  # 2023-11-14 22:13 UTC


def plan_json(argv: list[str], *, stable: bool = True) -> dict[str, object]:
    """The plan's JSON; ``stable`` drops the foretune version and the generation time so goldens survive releases."""
    result = run_cli("plan", *argv, "--format", "json")
    assert result.status == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout)
    if stable:
        data.pop("foretune_version")
        data.pop("generated_at")
    return data


def outputs(argv: list[str]) -> dict[str, str]:
    """Relative path -> text for what one plan's goldens hold.

    The JSON is split in two: ``tunables.json`` (every tunable, both columns) and ``plan.json`` (the
    rest). Left out, because other tests check them: the JSON's ``citations`` map (the knowledge data's
    titles, test_json_citations_are_the_cited_ids), and ``--format hiera`` / ``--format installer``,
    which equal out/custom-hiera.yaml and out/installer.sh (test_formats_equal_the_out_tree).
    """
    data = plan_json(argv)
    tunables = data.pop("tunables")
    data.pop("citations")
    files = {"plan.json": json.dumps(data, indent=2) + "\n", "tunables.json": _one_field_a_line(tunables)}
    # the table's header names the generation time and the version: a fixed time, and the version as VERSION, as the
    # JSON leaves both out, so the goldens survive releases
    result = run_cli("plan", *argv, "--format", "table", environ={"SOURCE_DATE_EPOCH": FIXED_TIME})
    assert result.status == 0, result.stderr
    files["table.txt"] = result.stdout.replace(f"by foretune {__version__}\n", "by foretune VERSION\n")
    files.update(out_tree(argv))
    return files


def _one_field_a_line(tunables: object) -> str:
    """The tunables as JSON with one field a line (a side's value, reason and citations together), for review."""
    assert isinstance(tunables, list)
    blocks = []
    for tunable in tunables:
        fields = [f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}" for key, value in tunable.items()]
        blocks.append(" {\n" + ",\n".join(fields) + "\n }")
    return "[\n" + ",\n".join(blocks) + "\n]\n"


def out_tree(argv: list[str]) -> dict[str, str]:
    """``out/<path>`` -> text of what ``plan --out`` writes."""
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        result = run_cli("plan", *argv, "--out", tmp)
        assert result.status == 0, result.stderr
        for path in sorted(Path(tmp).rglob("*")):
            if path.is_file() and path.name != MANIFEST:  # bookkeeping (hashes of the files here), not an output
                files[f"out/{path.relative_to(tmp).as_posix()}"] = path.read_text(encoding="utf-8")
    return files


def format_output(argv: list[str], fmt: str) -> str:
    result = run_cli("plan", *argv, "--format", fmt)
    assert result.status == 0, result.stderr
    return result.stdout


def golden(name: str) -> dict[str, str]:
    """The reviewed outputs stored for one case."""
    root = GOLDEN / name
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}
