"""Generated docs match the code."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_generated_docs_are_current() -> None:
    done = subprocess.run([sys.executable, "tools/gen_docs.py", "--check"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_command_has_an_example() -> None:
    from foretune.cli import COMMANDS, load_command

    for name in COMMANDS:
        help_text = load_command(name).build_parser(f"foretune {name}").format_help()
        assert "example" in help_text, name


def test_plan_json_doc_covers_every_schema_field() -> None:
    import json
    from importlib import resources

    schema = json.loads(resources.files("foretune.render").joinpath("schema/plan-v1.json").read_text(encoding="utf-8"))
    doc = (REPO / "docs" / "plan-json.md").read_text(encoding="utf-8")
    for field in schema["required"]:
        assert f"| `{field}` |" in doc, field
