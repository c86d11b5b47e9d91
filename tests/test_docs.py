"""Generated docs match the code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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


def test_audit_json_doc_covers_every_schema_field_and_the_fix_shape() -> None:
    import json
    from importlib import resources

    schema = json.loads(resources.files("foretune.report").joinpath("schema/audit-v1.json").read_text(encoding="utf-8"))
    doc = (REPO / "docs" / "audit-json.md").read_text(encoding="utf-8")
    for field in schema["required"]:
        assert f"`{field}`" in doc, field
    fix = schema["properties"]["findings"]["items"]["properties"]["fixes"]["items"]
    for field in fix["required"]:
        assert f"`{field}`" in doc, field
    for kind in fix["properties"]["kind"]["enum"]:
        assert f"`{kind}`" in doc, kind


def readme_commands(doc: str = "README.md") -> list[list[str]]:
    """Every `foretune ...` command in the README's (or ``doc``'s) shell blocks, split like a shell would."""
    import re
    import shlex

    text = (REPO / doc).read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for part in line.split("&&"):
                words = shlex.split(part, comments=True)
                if words and words[0] == "foretune":
                    commands.append(words[1:])
    return commands


def test_readme_commands_parse() -> None:
    """The README's examples use only options that exist (parsed, not run)."""
    from foretune.cli import load_command
    from tests.conftest import run_cli

    commands = readme_commands()
    assert len(commands) >= 10
    for argv in commands:
        if argv[0].startswith("-"):  # root options: --help, --version
            assert run_cli(*argv).status == 0, argv
            continue
        parser = load_command(argv[0]).build_parser(f"foretune {argv[0]}")
        parser.parse_args(argv[1:])


def test_readme_plan_examples_run() -> None:
    from tests.conftest import run_cli

    for argv in readme_commands():
        if argv[0] in ("plan", "profiles") and "--output-dir" not in argv:
            result = run_cli(*argv)
            assert result.status == 0, (argv, result.stderr)


def test_readme_quick_start_works_literally_and_leaves_foretune_on_path(tmp_path: Path) -> None:
    """The Quick start is two commands (demo, test); the demo, then the activation it names, gives `foretune` by name."""
    import re

    text = (REPO / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", quick, flags=re.S)
    assert block
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    assert lines == ["python3 dev.py demo", "python3 dev.py test"]
    activate = re.search(r"`(\. \.venv/bin/activate)`", quick)
    assert activate, "the Quick start must say how to get foretune by name"
    script = f"{lines[0]}\n{activate.group(1)}\nforetune --help\n"
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}  # no foretune on PATH before
    done = subprocess.run(["sh", "-ec", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "usage: foretune" in done.stdout  # `foretune --help` ran by name
    assert "findings" in done.stdout.lower() or "critical" in done.stdout.lower() or "high" in done.stdout.lower()
    assert ". .venv/bin/activate" in done.stderr  # the demo says how to get foretune by name


def test_apply_doc_matches_the_code_and_the_readme_section_is_short() -> None:
    """docs/apply.md names every field of a change, every channel, op and effect, and every state verify gives;
    its commands parse; the README's "Apply safely" stays short and points to it."""
    import re

    from foretune.apply.verify import STATES
    from foretune.changes.model import CHANNELS, EFFECTS, OPS, Change
    from foretune.cli import load_command

    doc = (REPO / "docs" / "apply.md").read_text(encoding="utf-8")
    for field in Change._fields:
        assert f"| `{field}` |" in doc, field
    for word in (*CHANNELS, *OPS, *EFFECTS):
        assert f"`{word}`" in doc, word
    for state in STATES:
        assert f"| `{state}` |" in doc, state
    commands = readme_commands("docs/apply.md")
    assert len(commands) >= 6
    for argv in commands:
        load_command(argv[0]).build_parser(f"foretune {argv[0]}").parse_args(argv[1:])
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Apply safely\n(.*?)^## ", readme, flags=re.S | re.M)
    assert section is not None
    assert len(section.group(1).strip().splitlines()) <= 25
    assert "(docs/apply.md)" in section.group(1)
