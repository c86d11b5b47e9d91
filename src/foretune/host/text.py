"""Turn raw bytes into text, saying plainly when they are not text.

>>> decode(b"a: 1\\n", "x.yaml")
('a: 1\\n', None)
>>> decode(b"\\x00\\x01\\x02", "x.yaml")
(None, 'x.yaml is binary, not text: ignored')
>>> decode("caf\\u00e9".encode("latin-1"), "x.conf")
('café', 'x.conf is not UTF-8: read as Latin-1')
"""

from __future__ import annotations


def decode(data: bytes, location: str) -> tuple[str | None, str | None]:
    """(text, problem): binary data gives no text; non-UTF-8 falls back to Latin-1 with a note."""
    if b"\x00" in data[:65536]:
        return None, f"{location} is binary, not text: ignored"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        return data.decode("latin-1"), f"{location} is not UTF-8: read as Latin-1"
