"""Exceptions that reach the user as one line and an exit status, never as a traceback."""

from __future__ import annotations


class ForetuneError(Exception):
    """A problem the user can fix; printed as one line, ``<prog>: error: <message>``."""

    exit_status = 2
    prog = "foretune"  # the command the line names: argparse errors name the subcommand (``foretune plan``)


class UsageError(ForetuneError):
    """Bad command-line input: unknown value, contradictory options, malformed size."""


class InputError(ForetuneError):
    """A source (file, archive, directory, snapshot) that cannot be read as expected."""


class DataError(ForetuneError):
    """The bundled knowledge data is inconsistent (a bug in foretune, reported plainly)."""

    exit_status = 3


class ParseError(ValueError):
    """Input is present but malformed; the message is one line for the user."""
