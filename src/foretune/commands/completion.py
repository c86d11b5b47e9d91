"""``foretune completion bash|zsh|fish``: a shell completion script generated from the real parsers (via shtab)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from foretune.cli import COMMANDS, build_root_parser, load_command, new_parser
from foretune.errors import UsageError

if TYPE_CHECKING:
    from foretune.env import Environment

SHELLS = ("bash", "zsh", "fish")


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = new_parser(prog, "Print a completion script for every command, option and choice. bash: save it as "
                        "~/.local/share/bash-completion/completions/foretune (or source it from ~/.bashrc); zsh: save "
                        "it as _foretune in a directory on $fpath; fish: save it as ~/.config/fish/completions/foretune.fish.",
                        "foretune completion bash > ~/.local/share/bash-completion/completions/foretune")
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    return parser


def full_parser() -> argparse.ArgumentParser:
    """The root parser with every command's complete parser attached (for completion and the man page)."""

    root = build_root_parser()
    for action in root._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name in COMMANDS:
                action.choices[name] = load_command(name).build_parser(f"foretune {name}")
    return root


def run(args: argparse.Namespace, env: Environment) -> int:
    try:
        import shtab  # start-up: shtab loads only when a completion script is written
    except ImportError:
        raise UsageError("completion needs the shtab module, which this installation lacks (pip install shtab)") from None
    env.stdout.write(shtab.complete(full_parser(), shell=args.shell))
    return 0
