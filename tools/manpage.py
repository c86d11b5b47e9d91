"""Render foretune's argparse tree as a man page (roff), so ``man foretune`` says what ``--help`` says."""

from __future__ import annotations

import argparse
import re
import textwrap


def escape(text: str) -> str:
    """Roff-safe text: backslashes, hyphens and leading control characters escaped.

    >>> escape(".hidden -x \\\\n")
    '\\\\&.hidden \\\\-x \\\\en'
    """
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def paragraphs(text: str) -> list[str]:
    """Description text as roff: flowing paragraphs, indented blocks kept as they are."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", (text or "").strip()):
        lines = block.splitlines()
        if not lines:
            continue
        if any(line.startswith((" ", "\t")) for line in lines):
            out += [".PP", ".nf", *(escape(line) for line in lines), ".fi"]
        else:
            out += [".PP", escape(" ".join(line.strip() for line in lines))]
    return out


def options(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    out: list[str] = []
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        invocation = formatter._format_action_invocation(action)
        out += [".TP", f"\\fB{escape(invocation)}\\fR", escape(formatter._expand_help(action) if action.help else "")]
    return out


def subparsers(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser, str]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            found += [(name, sub, helps.get(name, "")) for name, sub in action.choices.items()]
    return found


def usage(parser: argparse.ArgumentParser) -> str:
    text = parser.format_usage().strip()
    return re.sub(r"\s+", " ", text.removeprefix("usage: "))


def section(parser: argparse.ArgumentParser, title: str) -> list[str]:
    out = [f'.SS "{escape(title)}"', ".PP", escape(usage(parser)), *paragraphs(parser.description or "")]
    out += options(parser)
    if parser.epilog:
        out += paragraphs(parser.epilog)
    for name, sub, _ in subparsers(parser):
        out += section(sub, f"{title} {name}")
    return out


def render(root: argparse.ArgumentParser, version: str) -> str:
    """The whole page: name, synopsis, commands, every command's options, environment, exit status."""
    epilog = root.epilog or ""
    environment = epilog.split("environment:", 1)[1].split("\n\n", 1)[0] if "environment:" in epilog else ""
    status = epilog.split("exit status:", 1)[1].strip() if "exit status:" in epilog else ""
    commands = subparsers(root)
    out = [
        f'.TH FORETUNE 1 "" "foretune {escape(version)}" "User Commands"',
        ".SH NAME",
        "foretune \\- " + escape((root.description or "").rstrip(".")),
        ".SH SYNOPSIS",
        ".B foretune",
        "[\\fB\\-\\-version\\fR] [\\fB\\-h\\fR] \\fICOMMAND\\fR [\\fIOPTION\\fR]...",
        ".SH DESCRIPTION",
        *paragraphs(root.description or ""),
        ".SH COMMANDS",
    ]
    for name, _, summary in commands:
        out += [".TP", f"\\fB{escape(name)}\\fR", escape(summary)]
    out += [".SH OPTIONS", *options(root), ".SH \"COMMAND OPTIONS\""]
    for name, sub, _ in commands:
        out += section(sub, f"foretune {name}")
    examples = [line.strip() for line in epilog.split("examples:", 1)[1].split("\n\n", 1)[0].splitlines() if line.strip()] \
        if "examples:" in epilog else []
    examples += [sub.epilog.split("example:", 1)[1].strip() for _, sub, _ in commands if sub.epilog and "example:" in sub.epilog]
    if examples:  # the root's, then one per command, in the order of COMMANDS
        out += [".SH EXAMPLES", ".nf", *(escape(" ".join(line.split())) for line in dict.fromkeys(examples)), ".fi"]
    if environment:
        out += [".SH ENVIRONMENT", ".nf", *(escape(line.rstrip()) for line in textwrap.dedent(environment).strip("\n").splitlines()), ".fi"]
    if status:
        out += [".SH \"EXIT STATUS\"", escape(" ".join(status.split()))]
    out += [".SH \"SEE ALSO\"", "docs/cli\\-reference.md, docs/facts.md, docs/bench.md and docs/rules/ in the foretune sources."]
    return "\n".join(out) + "\n"
