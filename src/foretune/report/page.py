"""One self-contained HTML page around a Markdown report's HTML (plan, logs): the audit report's stylesheet, so
every report has the same light and dark colours and print styles, and tables that scroll sideways on a narrow
screen instead of widening the page."""

from __future__ import annotations

import re
from html import escape
from importlib import resources

# tables of a Markdown report fit the page: long code (tunable names, endpoints, paths) wraps after a dot, underscore,
# colon or slash (a <wbr> there), never inside a word while the column can hold the word (break-word, unlike anywhere,
# leaves the column's minimum width at the longest part); on a narrow screen each row becomes a card, every cell
# under its column's name, so no column is hidden off to the side, and a name longer than the card wraps
# (an action's end tells it from the next); on a wide screen a name in the first column
# (a tunable) stays on one line
EXTRA_CSS = ("main table{display:block;overflow-x:auto;max-width:100%}main td,main th{overflow-wrap:normal}"
             "main td code{white-space:normal;overflow-wrap:break-word;word-break:normal}"
             "@media screen and (min-width:641px){main td:first-child code{white-space:nowrap}main td:first-child wbr{display:none}}"
             "main td:nth-child(n+4):not(.n){overflow-wrap:anywhere;min-width:12rem}td.n{text-align:right;white-space:nowrap}"
             ".chart{margin:1rem 0;max-width:100%;overflow-x:auto}"
             "@media screen and (max-width:640px){main table,main tbody,main tr,main td{display:block;width:auto}"
             "main thead{display:none}main tr{border-top:1px solid var(--line);padding:.4rem 0}"
             "main td,main td.n{text-align:left;padding:.1rem 0;min-width:0;white-space:normal;border:0;overflow-wrap:anywhere}"
             "main td[data-label]::before{content:attr(data-label) \": \";font-weight:600}}"
             "@media print{main table{display:table;table-layout:fixed;width:100%}main td code{white-space:normal;overflow-wrap:break-word}}")

_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
_CELL = re.compile(r"<(td|th)([^>]*)>(.*?)</\1>", re.S)
_CODE = re.compile(r"<code>(.*?)</code>", re.S)
_BREAK = re.compile(r"(?<=[._:/])(?=[^<>._:/;])")  # after a run of separators, never inside an entity (&amp;)


def breakable(cell: str) -> str:
    """``cell`` with a <wbr> after each dot, underscore, colon and slash of its code, where a long name may wrap.

    >>> breakable("<code>dynflow.sidekiq_instances</code> 3")
    '<code>dynflow.<wbr>sidekiq_<wbr>instances</code> 3'
    """
    return _CODE.sub(lambda m: f"<code>{_BREAK.sub('<wbr>', m.group(1))}</code>", cell)


def _labelled(body: str) -> str:
    """``body`` with each table cell carrying its column's name (``data-label``), for the narrow-screen cards."""
    def table(match: re.Match[str]) -> str:
        inner = match.group(1)
        head, sep, rest = inner.partition("</thead>")
        if not sep:
            return match.group(0)
        names = [re.sub(r"<[^>]+>", "", cell.group(3)).strip() for cell in _CELL.finditer(head)]

        def row(tr: re.Match[str]) -> str:
            cells = iter(names)
            return _CELL.sub(lambda c: f'<td{c.group(2)} data-label="{escape(next(cells, ""))}">{breakable(c.group(3))}</td>'
                             if c.group(1) == "td" else c.group(0), tr.group(0))
        return "<table>" + head + sep + re.sub(r"<tr>.*?</tr>", row, rest, flags=re.S) + "</table>"
    return _TABLE.sub(table, body)


# territories whose paper is US letter (CLDR's paper-size data: the rest of the world prints on A4)
LETTER = frozenset({"US", "CA", "MX", "PH", "CL", "CO", "VE", "CR", "GT", "PA", "PR", "SV", "NI", "BZ", "DO"})


def paper_size(environ: dict[str, str]) -> str | None:
    """"A4" or "letter" from the locale POSIX picks for paper (LC_ALL, LC_PAPER, LANG); None when it names no territory.

    >>> paper_size({"LANG": "de_DE.UTF-8"}), paper_size({"LC_PAPER": "en_US.UTF-8", "LANG": "de_DE"}), paper_size({"LANG": "C"})
    ('A4', 'letter', None)
    """
    for name in ("LC_ALL", "LC_PAPER", "LANG"):
        value = environ.get(name, "")
        if value:
            territory = value.split(".", 1)[0].split("@", 1)[0].partition("_")[2]
            if len(territory) != 2:
                return None
            return "letter" if territory.upper() in LETTER else "A4"
    return None


def stylesheet() -> str:
    return resources.files("foretune.report").joinpath("templates").joinpath("report.css").read_text(encoding="utf-8")


def copyable(body: str) -> str:
    """``body`` with a copy button on each code block (shown by the page's script only: without JavaScript the
    block is still there to select).

    >>> copyable("<pre><code>a</code></pre>")
    '<div class="fix"><button type="button" class="copy" data-target="code-1" hidden>Copy</button><pre id="code-1"><code>a</code></pre></div>'
    """
    count = iter(range(1, 1 << 30))

    def wrap(match: re.Match[str]) -> str:
        n = next(count)
        return (f'<div class="fix"><button type="button" class="copy" data-target="code-{n}" hidden>Copy</button>'
                f'<pre id="code-{n}">{match.group(1)}</pre></div>')

    return re.sub(r"<pre>(.*?)</pre>", wrap, body, flags=re.DOTALL)


def page(title: str, body: str, *, paper: str | None = None, copy: bool = False) -> str:
    """``body`` (trusted HTML) in a page titled ``title``; ``paper`` ("A4", "letter") sets the print page size;
    ``copy``: each code block gets a copy button."""
    size = f"@page{{size:{paper}}}" if paper else ""
    if copy:
        script = resources.files("foretune.report").joinpath("templates").joinpath("report.js").read_text(encoding="utf-8")
        script = script.replace("</", "<\\/")  # never closes the script element early
        return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">'
                f"<title>{escape(title)}</title><style>{stylesheet()}{EXTRA_CSS}{size}</style></head>\n"
                f"<body><main>\n{copyable(_labelled(body))}</main><script>{script}</script></body></html>\n")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">'
            f"<title>{escape(title)}</title><style>{stylesheet()}{EXTRA_CSS}{size}</style></head>\n"
            f"<body><main>\n{_labelled(body)}</main></body></html>\n")
