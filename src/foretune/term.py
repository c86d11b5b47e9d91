"""Terminal output: the colour decision, the width, safe text and plurals.

This module imports nothing heavy; :func:`console` imports ``rich`` only when something is printed.

>>> plural(1, "finding"), plural(2, "finding"), plural(0, "entry", "entries")
('1 finding', '2 findings', '0 entries')
>>> clean("ok\\x1b[2Jgone\\x07")
'ok\\\\x1b[2Jgone\\\\x07'
"""

from __future__ import annotations

import io
import os
import re
from typing import TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rich.console import Console

COLOR_CHOICES = ("auto", "always", "never")

# Only the terminal's own 16-colour palette and bold/dim: every terminal theme maps these for its
# background, so they stay readable on light and dark terminals. No white, black, bright_* or yellow
# (unreadable on one of the two) and no background colours.
THEME: dict[str, str] = {
    "sev.critical": "bold red",
    "sev.high": "red",
    "sev.medium": "magenta",
    "sev.low": "cyan",
    "sev.info": "blue",
    "sev.pass": "green",
    "sev.skip": "dim",
    "sev.error": "bold magenta",
    "heading": "bold",
    "muted": "dim",
    "changed": "bold",
    "diff.add": "green",
    "diff.remove": "red",
    "diff.hunk": "cyan",
    "diff.header": "bold",
    "over": "bold red",
    # rich's own Markdown styles put inline code on a black background: keep the terminal's background
    "markdown.code": "bold cyan",
    "markdown.code_block": "cyan",
    # progress bars (tarballs, logs, benchmarks): rich's default is a pink-red that reads as an error
    "bar.complete": "cyan",
    "bar.finished": "green",
    "bar.pulse": "cyan",
    "bar.back": "dim",
}

# C0 controls except tab and newline, DEL, C1 controls, and the bidirectional overrides that can
# reorder what a reader sees (Trojan Source).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(text: str) -> str:
    """``text`` with control characters and escape sequences made visible (``\\x1b``), newlines and tabs kept."""
    return _UNSAFE.sub(_escape, text)


def clean_line(text: str) -> str:
    """Like :func:`clean`, for text that must stay on one line (newlines become ``\\x0a``); a tab is whitespace
    and reads as a space (a quoted config line keeps its words, not ``\\x09``).

    >>> clean_line("a\\nb"), clean_line("max_connections\\t= 200")
    ('a\\\\x0ab', 'max_connections = 200')
    """
    return _UNSAFE_LINE.sub(_escape, text.replace("\t", " "))


def wants_color(choice: str, environ: Mapping[str, str], isatty: bool) -> bool:
    """``--color`` wins; then ``NO_COLOR`` and ``FORCE_COLOR`` (non-empty); then colour on a terminal unless TERM=dumb.

    >>> wants_color("auto", {"NO_COLOR": "1"}, True), wants_color("auto", {"FORCE_COLOR": "1"}, False)
    (False, True)
    >>> wants_color("always", {"NO_COLOR": "1"}, False), wants_color("never", {}, True)
    (True, False)
    """
    if choice == "always":
        return True
    if choice == "never":
        return False
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR", "") not in ("", "0"):
        return True
    return isatty and environ.get("TERM") != "dumb"


def terminal_width(stream: TextIO | None, environ: Mapping[str, str]) -> int | None:
    """Columns to wrap to: ``COLUMNS`` when set, else the terminal's width; ``None`` (no wrapping) off a terminal."""
    columns = environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) >= 20:
        return int(columns)
    if stream is None:
        return None
    try:
        return os.get_terminal_size(stream.fileno()).columns if stream.isatty() else None
    except (AttributeError, ValueError, OSError):
        return None


def guard_text(text: str, sequence: re.Pattern[str] | None = None) -> str:
    """``text`` as the console's stream guard writes it: control characters made visible, colour (SGR) kept."""
    return (sequence or _Guard._SEQUENCE).sub(lambda m: m.group() if len(m.group()) > 1 else _escape(m), text)


class _Guard:
    """File wrapper that lets through only the SGR colour sequences rich itself writes."""

    _SEQUENCE = re.compile("\x1b\\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f]")

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(guard_text(text, self._SEQUENCE))

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.stream.fileno()


class TerminalGuard(_Guard):
    """A terminal stream that neutralises every control character and escape sequence except colour (SGR),
    carriage return (progress lines) and the newline: the last line of defence for text from input files.
    """

    _SEQUENCE = re.compile("\x1b\\[[0-9;]*m|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

    def isatty(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def guard(stream: TextIO) -> TextIO:
    """``stream`` behind a :class:`TerminalGuard` when it is a terminal, else unchanged.

    >>> import io
    >>> guard(io.StringIO()).__class__.__name__
    'StringIO'
    """
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return cast("TextIO", TerminalGuard(stream)) if tty else stream


NO_WRAP_WIDTH = 4096  # the console width that stands for "do not wrap" (width=None)


def console(stream: TextIO, *, color: bool, width: int | None) -> Console:
    """A rich console on ``stream`` with foretune's theme; ``width=None`` means do not wrap."""
    from rich.console import Console  # start-up: rich, only when this is drawn
    from rich.theme import Theme  # start-up: rich, only when this is drawn

    return Console(file=cast("TextIO", _Guard(stream)), force_terminal=color, no_color=not color, color_system="standard" if color else None,
                   width=width or NO_WRAP_WIDTH, soft_wrap=False, highlight=False, markup=False, emoji=False,
                   theme=Theme(THEME), legacy_windows=False, force_jupyter=False, force_interactive=False,
                   _environ={})


def progress_console(stream: TextIO, *, color: bool) -> Console:
    """A rich console for a progress bar on the terminal ``stream``.

    It writes past :class:`TerminalGuard`, which would show rich's cursor controls (hide the cursor,
    erase the line) as text: what a bar draws is foretune's own, its labels pass :func:`clean_line`.
    """
    from rich.console import Console  # start-up: rich, only when this is drawn
    from rich.theme import Theme  # start-up: rich, only when this is drawn

    raw = stream.stream if isinstance(stream, TerminalGuard) else stream
    return Console(file=raw, force_terminal=True, no_color=not color,
                   color_system="standard" if color else None, highlight=False, markup=False, emoji=False,
                   theme=Theme(THEME), legacy_windows=False, _environ={})


class ReadProgress:
    """A progress bar on a terminal for one long read (a large tarball); a no-op elsewhere.

    Call it with (bytes done, bytes in all); the bar appears only for reads of at least ``min_bytes``,
    so small inputs never pay for importing rich.progress. Use it as a context manager.
    """

    def __init__(self, stream: TextIO, label: str, *, enabled: bool, min_bytes: int = 32 * 1024**2,
                 color: bool = True) -> None:
        self.stream, self.label, self.enabled, self.min_bytes = stream, clean_line(label), enabled, min_bytes
        self.color = color
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < self.min_bytes:
            return
        if self._bar is None:
            from rich.progress import (  # start-up: rich, only when this is drawn
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            out = progress_console(self.stream, color=self.color)
            self._bar = Progress(TextColumn(self.label), BarColumn(), DownloadColumn(binary_units=True),
                                 TimeRemainingColumn(), console=out, transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=total)
        self._bar.update(self._task, completed=done, total=total)

    def __enter__(self) -> ReadProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


# spaces at the end of a line, before the colour codes that close it: a copied line must not bring them along
_TRAILING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$")


def render_to_text(renderable: Any, *, color: bool, width: int | None, crop: bool = True) -> str:
    """``renderable`` as the text a console of ``width`` prints, without trailing spaces; ``crop=False`` keeps a line
    the renderable drew past the width whole (the terminal folds it) instead of cutting it."""

    buffer = io.StringIO()
    out = console(buffer, color=color, width=width)
    out.print(renderable, crop=crop)
    return "\n".join(_TRAILING.sub(r"\1", line) for line in buffer.getvalue().split("\n"))


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` with the noun in the right number: ``1 host``, ``2 hosts``, ``3 entries``."""
    return f"{count} {singular if count == 1 else (plural_form or singular + 's')}"


def article(count: object) -> str:
    """"a" or "an" before a number read aloud: an 8-CPU box, an 11-CPU one, a 16-CPU one.

    >>> [article(n) for n in (4, 8, 11, 16, 18, 80, 800)]
    ['a', 'an', 'an', 'a', 'an', 'an', 'an']
    """
    text = str(count)
    return "an" if text.startswith("8") or text in ("11", "18") or (len(text) in (5, 6) and text[:2] in ("11", "18")) else "a"
