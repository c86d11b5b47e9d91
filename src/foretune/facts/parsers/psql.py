"""psql's aligned output (what ``psql -c`` prints by default): a header, a ``---+---`` rule, `` a | b `` rows and an
``(N rows)`` footer. sos and foreman-debug store query results this way.

>>> aligned(" count \\n-------\\n  42\\n(1 row)\\n", "count")
[{'count': '42'}]
>>> aligned("psql: error: connection to server failed", "count") is None
True
"""

from __future__ import annotations

import re

_FOOTER = re.compile(r"\(\d+ rows?\)")


def aligned(text: str, column: str) -> list[dict[str, str]] | None:
    """Rows (column name -> cell) of the first table whose header has a column ``column``; None when none has.

    The rule line and the footer are skipped, and so is a line whose first cell is empty: it continues a
    multi-line value (psql ends the line before with ``+``). A ``|`` inside the last column stays in that column.
    """
    lines = text.splitlines()
    headers = ([cell.strip() for cell in line.split("|")] for line in lines)
    found = next(((at, header) for at, header in enumerate(headers) if column in header), None)
    if found is None:
        return None
    at, header = found
    rows = []
    for line in lines[at + 1:]:
        stripped = line.strip()
        if set(stripped) <= set("-+") or _FOOTER.fullmatch(stripped):
            continue
        cells = line.split("|", len(header) - 1)
        if len(cells) == len(header) and cells[0].strip():
            rows.append({name: cell.strip() for name, cell in zip(header, cells)})
    return rows
