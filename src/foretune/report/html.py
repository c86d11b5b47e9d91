"""One self-contained HTML file: inline CSS, no scripts from elsewhere, no network."""

from __future__ import annotations

from html import escape

from foretune.audit.model import Finding, Report
from foretune.report.data import ordered, value_text
from foretune.rules.base import Severity, Status

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1d2329;padding:0 1rem}
h1{font-size:1.5rem;margin-bottom:.2rem} .meta{color:#56606b;margin:0 0 1rem}
.cards{display:flex;gap:.6rem;flex-wrap:wrap;margin:1rem 0}
.card{border-radius:.4rem;padding:.5rem .9rem;background:#f1f3f5;min-width:6.5rem}
.card b{display:block;font-size:1.4rem}
.critical{background:#7d1b1b;color:#fff}.high{background:#c0392b;color:#fff}.medium{background:#e67e22;color:#fff}
.low{background:#2e86c1;color:#fff}.info{background:#7f8c8d;color:#fff}.pass{background:#1e8449;color:#fff}
.skip{background:#d5d8dc}.error{background:#6c3483;color:#fff}
table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e1e4e8;vertical-align:top}
.sev{font-size:.8rem;border-radius:.3rem;padding:.1rem .4rem;white-space:nowrap}
details{border:1px solid #e1e4e8;border-radius:.4rem;margin:.5rem 0;padding:.4rem .8rem}
summary{cursor:pointer}pre{background:#f6f8fa;padding:.6rem;overflow-x:auto;border-radius:.3rem}
code{font-size:.9em}.note{color:#7d6608}
"""


def _sev(f: Finding) -> str:
    key = "error" if f.status == Status.ERROR else f.status.value if f.status in (Status.PASS, Status.SKIP) else f.severity.label
    label = "waived" if f.waived else key
    return f'<span class="sev {key}">{escape(label)}</span>'


def _details(f: Finding) -> str:
    parts = [f'<details id="{escape(f.rule_id)}"><summary>{_sev(f)} <code>{escape(f.rule_id)}</code> — {escape(f.title)}</summary>',
             f"<p>{escape(f.message)}</p>"]
    if f.current is not None or f.recommended is not None:
        parts.append(f"<p>Current: <code>{escape(value_text(f.current))}</code> · Recommended: "
                     f"<code>{escape(value_text(f.recommended))}</code></p>")
    if f.waived:
        parts.append(f"<p>Waived: {escape(f.waived)}</p>")
    if f.evidence:
        parts.append("<p>Evidence:</p><ul>" + "".join(
            f"<li><code>{escape(e.location)}</code>{' — <code>' + escape(e.excerpt[:300]) + '</code>' if e.excerpt else ''}</li>"
            for e in f.evidence) + "</ul>")
    for fix in f.fixes:
        parts.append(f"<p>Fix:</p><pre>{escape(fix)}</pre>")
    if f.citations:
        parts.append("<p>References:</p><ol>" + "".join(
            f"<li>{escape(t)} <small>({escape(w)})</small></li>" for _, t, w in f.citations) + "</ol>")
    parts.append("</details>")
    return "\n".join(parts)


def render(report: Report) -> str:
    failing = report.failing()
    cards = "".join(f'<div class="card {s.label}"><b>{sum(1 for f in failing if f.severity == s)}</b>{s.label}</div>'
                    for s in sorted(Severity, reverse=True))
    cards += f'<div class="card pass"><b>{report.count(Status.PASS)}</b>passed</div>'
    cards += f'<div class="card skip"><b>{report.count(Status.SKIP)}</b>skipped</div>'
    rows = "".join(f"<tr><td>{_sev(f)}</td><td><a href=\"#{escape(f.rule_id)}\"><code>{escape(f.rule_id)}</code></a></td>"
                   f"<td>{escape(f.component)}</td><td>{escape(f.message)}</td></tr>"
                   for f in ordered(report) if f.status in (Status.FAIL, Status.ERROR))
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in (*report.context_lines(), *report.notes))
    details = "\n".join(_details(f) for f in ordered(report))
    meta = (f"{escape(report.release or 'release unknown')} · {escape(report.role or 'role unknown')} · "
            f"{report.hosts if report.hosts is not None else 'unknown'} hosts · plan profile {escape(report.profile or '-')}")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>foretune audit: {escape(report.source)}</title><style>{CSS}</style></head>
<body>
<h1>foretune audit: {escape(report.source)}</h1>
<p class="meta">{meta}</p>
<p id="summary"><strong>{escape(report.summary())}</strong></p>
<div class="cards">{cards}</div>
{notes}
<h2>Findings</h2>
<table><thead><tr><th>severity</th><th>rule</th><th>component</th><th>finding</th></tr></thead><tbody>{rows or '<tr><td colspan="4">No findings.</td></tr>'}</tbody></table>
<h2>Every rule</h2>
{details}
</body></html>
"""
