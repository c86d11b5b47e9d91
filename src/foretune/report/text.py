"""Terminal report: who and what, the verdict by severity, the findings worst first, what next, a one-line summary.

Every text that came from the audited files goes through :func:`foretune.term.clean` first.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from foretune import __version__
from foretune.audit.model import Finding, Report
from foretune.report.actions import FixBlock, by_severity, fix_blocks, identity, verdict, waiver_text, what_next
from foretune.report.data import ordered, proves, short_excerpt, unquoted, value_text
from foretune.rules.base import Status
from foretune.term import clean, clean_line, render_to_text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderableType, RenderResult



def render(report: Report, *, color: bool = False, verbose: bool = False, width: int | None = None,
           generated: str | None = None) -> str:
    """The report as terminal text, verdict first and what next last; ``width`` wraps every line (``None``: no wrapping);
    ``generated``: when the report was made, shown with the foretune version as the other formats show it."""
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.table import Table  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    who = identity(report)
    fields = Table.grid(padding=(0, 1, 0, 0))
    fields.add_column(no_wrap=True, style="muted")
    fields.add_column(ratio=1, overflow="fold")
    for name, value in (("Host", who.host), ("Collected", who.collected), ("Product", who.product),
                        ("Hosts", who.sizing), ("Profile", who.profile),
                        ("foretune", __version__ + (f", report generated {generated}" if generated else ""))):
        fields.add_row(name, Text(clean_line(value)))
    parts: list[RenderableType] = [
        Text(f"foretune audit of {clean_line(report.source)} ({report.source_kind})", style="heading"), fields,
        *(Text(f"note: {clean(n)}", style="muted") for n in report.notes), Text(""),
        Text("Verdict: " + clean_line(verdict(report)), style="heading"),
    ]
    groups = by_severity(report)
    if groups:
        top = Table.grid(padding=(0, 2, 0, 0))
        top.add_column(no_wrap=True)
        top.add_column(ratio=1, overflow="fold")
        for label, found in groups:
            top.add_row(Text(label.upper(), style=f"sev.{label}" if label != "waived" else "muted"),
                        Text(", ".join(f.rule_id for f in found)))
        parts += [_indent(top), Text("")]
    for label, found in groups:
        parts += [Text(f"== {label} ({len(found)})", style="heading"), _component(report, found), Text("")]
    if verbose:
        rest = [f for f in ordered(report) if f.status in (Status.PASS, Status.SKIP)]
        if rest:
            parts += [Text("== passed and skipped", style="heading"), _component(report, rest), Text("")]
    parts.append(Text("== What next", style="heading"))
    steps = Table.grid(padding=(0, 1, 0, 0))
    steps.add_column(no_wrap=True)
    steps.add_column(ratio=1, overflow="fold")
    room = None if width is None else min(width - 5, 30)  # a longer command is drawn under its step, whole
    for n, step in enumerate(what_next(report), 1):
        prose, commands = _out_of_line(step, room)
        steps.add_row(f"{n}.", Text(clean_line(prose)))
        if commands:
            parts += [_indent(steps), *(_Code(clean(c), 7, shell=True) for c in commands)]
            steps = Table.grid(padding=(0, 1, 0, 0))
            steps.add_column(no_wrap=True)
            steps.add_column(ratio=1, overflow="fold")
    parts += [_indent(steps), Text(""), Text("summary: " + report.summary())]
    return render_to_text(Group(*parts), color=color, width=width, crop=False)  # a fix line may pass the width


def _out_of_line(step: str, room: int | None) -> tuple[str, list[str]]:
    """``step`` with each `command` longer than ``room`` taken out of the sentence, to be drawn below it unbroken.

    >>> _out_of_line("Run `a b c`: it restarts.", 4)
    ('Run the command below: it restarts.', ['a b c'])
    >>> _out_of_line("Run `a b c`: it restarts.", None)
    ('Run `a b c`: it restarts.', [])
    """
    if room is None:
        return step, []
    commands: list[str] = []

    def take(match: re.Match[str]) -> str:
        if len(match.group(1)) <= room:
            return match.group(0)
        commands.append(match.group(1))
        return "the command below"
    return re.sub(r"`([^`]+)`", take, step), commands


def _indent(renderable: RenderableType) -> RenderableType:
    from rich.padding import Padding  # start-up: rich, only when this is drawn

    return Padding(renderable, (0, 0, 0, 2))


def _key(f: Finding) -> tuple[str, str]:
    """(label, theme style) of a finding's status or severity."""
    if f.status in (Status.PASS, Status.SKIP):
        return f.status.value.upper(), f"sev.{f.status.value}"
    if f.status == Status.ERROR:
        return "ERROR", "sev.error"
    return f.severity.label.upper(), f"sev.{f.severity.label}"


def _component(report: Report, findings: list[Finding]) -> RenderableType:
    """The findings, each its label and text in two columns; a fix snippet is drawn below the text at the text's indent,
    never wrapped (a wrapped command or YAML line would paste as another one), only its comments folded."""
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.padding import Padding  # start-up: rich, only when this is drawn
    from rich.table import Table  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    label_width = max(len(_key(f)[0]) for f in findings)
    parts: list[RenderableType] = []
    for f in findings:
        label, style = _key(f)
        for n, chunk in enumerate(_body(report, f)):
            if isinstance(chunk, _Code):
                chunk.indent = 2 + label_width + 2 + 2
                parts.append(chunk)
                continue
            grid = Table.grid(padding=(0, 2, 0, 0))
            grid.add_column(no_wrap=True, width=label_width)
            grid.add_column(ratio=1, overflow="fold")
            grid.add_row(Text(label, style=style) if n == 0 else Text(""), chunk)
            parts.append(Padding(grid, (0, 0, 0, 2)))
    return Group(*parts)


def _body(report: Report, f: Finding) -> list[RenderableType]:
    """The finding's text in pieces: text for the second column, and each fix snippet (a :class:`_Code`) apart."""
    from rich.console import Group  # start-up: rich, only when this is drawn
    from rich.padding import Padding  # start-up: rich, only when this is drawn
    from rich.text import Text  # start-up: rich, only when this is drawn

    tag = f" ({waiver_text(f)})" if f.waived else ""
    lines: list[RenderableType] = [Text.assemble((f.rule_id, "heading"), f" ({clean_line(f.component)}): {clean(f.message)}{tag}")]
    if f.status in (Status.PASS, Status.SKIP):
        return [lines[0]]
    if f.current is not None or f.recommended is not None:
        lines.append(Text(f"current: {clean_line(value_text(f.current, f.unit))}   recommended: "
                          f"{clean_line(value_text(f.recommended, f.unit))}"))
    for e in f.evidence[:4]:
        lines.append(_Evidence(clean_line(e.location), clean_line(short_excerpt(e.excerpt, 100, proves(f))) if e.excerpt else unquoted(e)))
    for symptom in f.symptoms:  # the same root cause, seen by another rule
        lines.append(Text.assemble("symptom: ", (symptom.rule_id, "heading"), f" ({symptom.severity.label}): {clean(symptom.message)}"))
        own = {(e.location, e.excerpt, e.note) for e in f.evidence}
        for e in [e for e in symptom.evidence if (e.location, e.excerpt, e.note) not in own][:2]:
            lines.append(Padding(_Evidence(clean_line(e.location), clean_line(short_excerpt(e.excerpt, 100, proves(symptom)))
                                           if e.excerpt else unquoted(e)), (0, 0, 0, 2)))
    pieces: list[RenderableType] = []
    for block in fix_blocks(report, f):
        if not block.code:  # advice: text that wraps like the message
            lines.append(Text(f"fix: {clean(block.text)}"))
            continue
        lines.append(Text("fix:"))
        pieces += [Group(*lines), _code(block)]
        lines = []
    if f.citations:
        lines.append(Text("see: " + "; ".join(clean_line(title) for _, title, _ in f.citations), style="muted"))
    return [*pieces, Group(*lines)] if lines else pieces


class _Evidence:
    """``evidence: LOCATION: EXCERPT``, folded at the width only between a setting and the next (never between a name
    and its value: ``MemTotal:       66924544 kB`` and ``LimitNOFILE=1024`` stay on one line); a continuation line
    is indented two columns."""

    def __init__(self, location: str, excerpt: str) -> None:
        self.location = location
        self.excerpt = excerpt

    def units(self) -> list[str]:
        """The pieces a line may break between: the label with the location, then each name with its value.

        >>> _Evidence("proc/meminfo", "MemTotal:       66924544 kB | MemAvailable:    2621440 kB").units()
        ['evidence: proc/meminfo:', 'MemTotal:       66924544 kB |', 'MemAvailable:    2621440 kB']
        """
        head = f"evidence: {self.location}" + (":" if self.excerpt else "")
        parts = self.excerpt.split(" | ") if self.excerpt else []
        out = [head]
        for n, part in enumerate(parts):
            tail = " |" if n < len(parts) - 1 else ""
            # a column-aligned line (/proc/PID/limits, meminfo, df) is one unit: its names hold blanks
            words = [part.strip()] if "  " in part.strip() else re.split(r"(?<=\S)\s+(?=\S)", part.strip())
            pieces: list[str] = []
            for word in words:  # a name ("MemTotal:", "Id", "-Xmx") keeps the value after it
                if pieces and (pieces[-1].endswith((":", "=")) or _VALUE.fullmatch(word)):
                    gap = part[part.index(pieces[-1].split()[-1]) + len(pieces[-1].split()[-1]):].split(word, 1)[0]
                    pieces[-1] += (gap if gap.strip() == "" and gap else " ") + word
                else:
                    pieces.append(word)
            if pieces:
                pieces[-1] += tail
            out += pieces
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text  # start-up: rich, only when this is drawn

        width = max(20, options.max_width)
        lines: list[str] = []
        for unit in self.units():
            if lines and len(lines[-1]) + 1 + len(unit) <= width:
                lines[-1] += " " + unit
            else:
                lines.append(("  " if lines else "") + unit)
        for line in lines:
            if len(line) > width:  # one unit longer than the line: its columns closer, then cut where the width ends
                line = re.sub(r"(?<=\S) {3,}(?=\S)", "  ", line)
            while len(line) > width:
                yield Text(line[:width], style="muted", no_wrap=True, overflow="ignore")
                line = "  " + line[width:]
            yield Text(line, style="muted", no_wrap=True, overflow="ignore")


_VALUE = re.compile(r"[\d.,]+(?:[kKMGT]i?B|%|s|ms)?|[kKMGT]i?B|files|…")  # a figure, or the unit after one


def _code(block: FixBlock) -> _Code:
    return _Code(clean(block.text), shell=not block.text.startswith("# /"))  # a snippet that names no file is commands


class _Code:
    """A fix snippet, drawn at ``indent`` columns, that pastes as it was written at any width. A long comment line
    continues as a comment (its own "# "), a word longer than the width whole behind its "#". A long shell command
    (``shell``) continues on the next line after " \\", where no quote is open; any other line is never broken (a YAML
    or unit-file line broken in two is another one): it runs past the terminal's width."""

    def __init__(self, text: str, indent: int = 0, *, shell: bool = False) -> None:
        self.text = text
        self.indent = indent
        self.shell = shell

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        import textwrap  # start-up: only when a fix is drawn

        from rich.text import Text  # start-up: rich, only when this is drawn

        pad = " " * self.indent
        width = max(20, options.max_width - self.indent)
        for line in self.text.splitlines() or [""]:
            indent = line[:len(line) - len(line.lstrip())]
            comment = line.lstrip().startswith("#")
            parts = [line]
            if len(line) > width and comment:  # the "#" stays with the first word, every line keeps one
                body = textwrap.wrap(line.lstrip()[1:].strip(), width - len(indent) - 2, break_long_words=False,
                                     break_on_hyphens=False)
                parts = [f"{indent}# {part}" for part in body] or [line]
            elif len(line) > width and self.shell and _shell_words(line) is not None:
                parts = _fold_command(line, width, indent)
            for part in parts:
                yield Text.assemble(pad, (part, "changed"), no_wrap=True, overflow="ignore")


def _shell_words(line: str) -> list[str] | None:
    """``line``'s words as the shell splits it, each as written (its quotes kept): blanks inside quotes or after a
    backslash do not split. None when a quote stays open or the line substitutes a command (a break there would
    change what runs).

    >>> _shell_words("sed -e '/^a b/d' /f"), _shell_words("echo 'x"), _shell_words("a `b` c")
    (['sed', '-e', "'/^a b/d'", '/f'], None, None)
    """
    if "`" in line or "$(" in line:
        return None
    words: list[str] = []
    word, quote, escaped = "", "", False
    for char in line.strip():
        if escaped:
            word, escaped = word + char, False
        elif char == "\\" and quote != "'":
            word, escaped = word + char, True
        elif quote:
            word += char
            quote = "" if char == quote else quote
        elif char in "'\"":
            word, quote = word + char, char
        elif char in " \t":
            if word:
                words.append(word)
            word = ""
        else:
            word += char
    if quote or escaped:
        return None
    return [*words, word] if word else words


def _fold_command(line: str, width: int, indent: str) -> list[str]:
    """A shell command over several lines joined by " \\", an option and its value kept together.

    >>> _fold_command("installer --a-b 5 --c-d 3", 20, "")
    ['installer --a-b 5 \\\\', '  --c-d 3']
    """
    words: list[str] = []
    for word in _shell_words(line) or line.split():
        if words and words[-1].startswith("-") and " " not in words[-1] and not word.startswith("-"):
            words[-1] += " " + word
        else:
            words.append(word)
    fits = width - len(indent) - 4  # a pair longer than a line of its own is two words again
    words = [part for word in words for part in (word.split(" ") if len(word) > fits else [word])]
    out = [indent + words[0]]
    for word in words[1:]:
        if len(out[-1]) + 1 + len(word) + 2 <= width:
            out[-1] += " " + word
        else:
            out.append(indent + "  " + word)
    return [part + " \\" for part in out[:-1]] + out[-1:]
