"""One self-contained HTML page around a Markdown report's HTML (plan, logs): the audit report's stylesheet, so
every report has the same light and dark colours and print styles, and tables that scroll sideways on a narrow
screen instead of widening the page."""

from __future__ import annotations

from html import escape
from importlib import resources

# tables of a Markdown report scroll inside themselves on a narrow screen; figures keep their own width
EXTRA_CSS = ("main table{display:block;overflow-x:auto;max-width:100%}main td,main th{overflow-wrap:normal}"
             "main td code{overflow-wrap:normal;white-space:nowrap}main td:nth-child(n+4){overflow-wrap:anywhere;min-width:12rem}td.n{text-align:right;white-space:nowrap}"
             ".chart{margin:1rem 0;max-width:100%;overflow-x:auto}@media print{main table{display:table;table-layout:fixed;width:100%}main td code{white-space:normal;overflow-wrap:anywhere}}")


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


def page(title: str, body: str, *, paper: str | None = None) -> str:
    """``body`` (trusted HTML) in a page titled ``title``; ``paper`` ("A4", "letter") sets the print page size."""
    size = f"@page{{size:{paper}}}" if paper else ""
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark">'
            f"<title>{escape(title)}</title><style>{stylesheet()}{EXTRA_CSS}{size}</style></head>\n"
            f"<body><main>\n{body}</main></body></html>\n")
