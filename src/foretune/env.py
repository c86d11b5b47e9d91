"""The process environment passed to every command, so tests never patch ``sys``."""

from __future__ import annotations

import enum
import os
import sys
from typing import TYPE_CHECKING, TextIO

from foretune.term import ReadProgress, clean_line, guard, terminal_width, wants_color

if TYPE_CHECKING:
    from foretune.term import ReadProgress


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

        self.stdout: TextIO = stdout or guard(sys.stdout)
        self.stderr: TextIO = stderr or guard(sys.stderr)
        self.stdin: TextIO = stdin or sys.stdin
        self.environ: dict[str, str] = dict(os.environ) if environ is None else environ
        self.color_choice = "auto"  # --color auto|always|never, set once the command line is parsed

    @property
    def stdout_isatty(self) -> bool:
        return _isatty(self.stdout)

    @property
    def stdin_isatty(self) -> bool:
        return _isatty(self.stdin)

    @property
    def color(self) -> bool:
        """Colour on standard output: ``--color``, then NO_COLOR/FORCE_COLOR, then only on a terminal."""

        return wants_color(self.color_choice, self.environ, self.stdout_isatty)

    @property
    def progress_color(self) -> bool:
        """Colour of progress bars, which are drawn on a terminal only: ``--color``, then NO_COLOR/FORCE_COLOR."""

        return wants_color(self.color_choice, self.environ, True)

    @property
    def width(self) -> int | None:
        """Columns standard output wraps to (``None``: not a terminal and no COLUMNS, so no wrapping)."""

        return terminal_width(self.stdout, self.environ)

    def read_progress(self, source: str | None) -> ReadProgress:
        """A progress bar on standard error (a terminal only) for reading ``source``."""

        return ReadProgress(self.stderr, f"reading {source}", enabled=bool(source) and _isatty(self.stderr),
                            color=self.progress_color)

    def warn(self, message: str) -> None:
        """Print one warning line on stderr (secrets masked, control characters from input made visible)."""
        from foretune.host.redact import redact_text  # start-up: its patterns compile only when a line is printed

        print(f"foretune: warning: {clean_line(redact_text(message))}", file=self.stderr)

    def note(self, message: str) -> None:
        """Print one informational line on stderr (secrets masked, control characters from input made visible)."""
        from foretune.host.redact import redact_text  # start-up: its patterns compile only when a line is printed

        print(f"foretune: {clean_line(redact_text(message))}", file=self.stderr)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
