"""Generate user docs from the code: docs/cli-reference.md, the man page docs/foretune.1 and docs/rules/*.md.

``--check`` exits 1 when a generated file differs from what is committed (docs cannot drift).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
os.environ["COLUMNS"] = "100"  # argparse wraps help by terminal width; fix it for stable output


def cli_reference() -> str:
    from foretune.cli import COMMANDS, build_root_parser, load_command

    parts = [
        "# CLI reference",
        "",
        "Generated from the code by `python3 dev.py docs`; a test fails when it drifts.",
        "",
        "## foretune",
        "",
        "```",
        build_root_parser().format_help().rstrip(),
        "```",
    ]
    for name in COMMANDS:
        parser = load_command(name).build_parser(f"foretune {name}")
        parts += ["", f"## foretune {name}", "", "```", parser.format_help().rstrip(), "```"]
        for sub_name, sub in _subparsers(parser):
            parts += ["", f"### foretune {name} {sub_name}", "", "```", sub.format_help().rstrip(), "```"]
    return "\n".join(parts) + "\n"


def _subparsers(parser):  # type: ignore[no-untyped-def]
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def rule_docs() -> dict[str, str]:
    try:
        from foretune.rules.docs import render_all  # type: ignore[import-not-found]
    except ImportError:
        return {}
    return dict(render_all())


def man_page() -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    from manpage import render

    from foretune import __version__
    from foretune.commands.completion import full_parser

    return render(full_parser(), __version__)


def outputs() -> dict[Path, str]:
    files = {ROOT / "docs" / "cli-reference.md": cli_reference(), ROOT / "docs" / "foretune.1": man_page()}
    for name, text in rule_docs().items():
        files[ROOT / "docs" / "rules" / name] = text
    return files


def main() -> int:
    check = "--check" in sys.argv
    stale = []
    for path, text in outputs().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    if check and stale:
        for path in stale:
            print(f"out of date: {path.relative_to(ROOT)} (run: python3 dev.py docs)", file=sys.stderr)
        return 1
    if not check:
        print(f"{len(stale)} file(s) written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
