"""The process environment passed to every command, so tests never patch ``sys``."""

from __future__ import annotations

import enum
import os
import sys
from typing import TextIO


class ExitStatus(enum.IntEnum):
    """Every exit status foretune uses."""

    OK = 0
    FINDINGS = 1  # audit: something reached --fail-on; bench: a verdict failed
    USAGE = 2  # bad arguments or unreadable input
    INTERNAL = 3  # a bug: an unexpected exception (one line; --debug shows the traceback), a rule that failed, inconsistent bundled data
    INTERRUPTED = 130


class Environment:
    """Streams and terminal facts for one run (a plain class: dataclasses cost start-up time)."""

    def __init__(self, stdout: TextIO | None = None, stderr: TextIO | None = None, stdin: TextIO | None = None,
                 environ: dict[str, str] | None = None) -> None:
        self.stdout: TextIO = stdout or sys.stdout
        self.stderr: TextIO = stderr or sys.stderr
        self.stdin: TextIO = stdin or sys.stdin
        self.environ: dict[str, str] = dict(os.environ) if environ is None else environ

    @property
    def stdout_isatty(self) -> bool:
        return _isatty(self.stdout)

    @property
    def stdin_isatty(self) -> bool:
        return _isatty(self.stdin)

    @property
    def color(self) -> bool:
        """Colour only on a terminal, and never when NO_COLOR is set."""
        return self.stdout_isatty and "NO_COLOR" not in self.environ and self.environ.get("TERM") != "dumb"

    def warn(self, message: str) -> None:
        """Print one warning line on stderr (secrets masked)."""
        from foretune.facts.redact import redact_text

        print(f"foretune: warning: {redact_text(message)}", file=self.stderr)

    def note(self, message: str) -> None:
        """Print one informational line on stderr (secrets masked)."""
        from foretune.facts.redact import redact_text

        print(f"foretune: {redact_text(message)}", file=self.stderr)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
