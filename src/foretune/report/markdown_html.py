"""Markdown reports as HTML: CommonMark and tables through markdown-it-py, raw HTML off, charts under their heading.

>>> print(to_html("# Run\\n\\n| step | ms |\\n|---|---|\\n| a_b | 1,200 |\\n", {"Run": ["<svg/>"]}), end="")
<h1>Run</h1>
<div class="chart"><svg/></div>
<table>
<thead>
<tr>
<th>step</th>
<th>ms</th>
</tr>
</thead>
<tbody>
<tr>
<td>a_b</td>
<td class="n">1,200</td>
</tr>
</tbody>
</table>
"""

from __future__ import annotations

import re

# a table cell that holds a figure (right-aligned): 1,200, -3.5, 40%, or the en dash of "no value"
NUMBER = re.compile(r"[-+]?[\d,]+(?:\.\d+)?%?|–")


def to_html(md: str, pictures: dict[str, list[str]]) -> str:
    """``md`` as HTML; ``pictures`` (SVG texts by heading text) go right after the heading they belong to."""
    from markdown_it import MarkdownIt  # only the HTML reports need it (start-up)
    from markdown_it.token import Token  # start-up: markdown-it loads only for the HTML reports

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(md)
    out: list[Token] = []
    for i, token in enumerate(tokens):
        out.append(token)
        if token.type == "td_open" and NUMBER.fullmatch(tokens[i + 1].content):
            token.attrSet("class", "n")
        elif token.type == "heading_close":
            title = "".join(child.content for child in tokens[i - 1].children or () if child.type in ("text", "code_inline"))
            for svg in pictures.get(title, []):
                chart = Token("html_block", "", 0)
                chart.content = f'<div class="chart">{svg}</div>\n'
                out.append(chart)
    return str(parser.renderer.render(out, parser.options, {}))
