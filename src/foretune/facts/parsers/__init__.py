"""Pure parsers: raw text of one file or command output -> plain data.

Every parser returns ``None`` (or an empty container) for empty or comment-only input and
raises :class:`ParseError` with a one-line message for input it cannot make sense of.
"""

from __future__ import annotations

from foretune.errors import ParseError as ParseError  # defined below the host layer, which parses JSON too
