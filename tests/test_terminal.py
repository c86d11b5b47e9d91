"""Terminal output: colour choice, wrapping to the width, theme, plurals, human units and hostile input."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from foretune.cli import COMMANDS
from foretune.term import THEME, TerminalGuard, clean, plural, wants_color
from tests.conftest import REPO, run_cli

EXAMPLE = str(REPO / "examples" / "sosreport-satellite-6.15-mistuned")
# The example's event.conf has MaxRequestWorkers 2048 over ServerLimit 64 x ThreadsPerChild 16 = 1024 (its README): a high
# finding, so its audit exits 1 at the default --fail-on high; every other command exits 0.
AUDIT_STATUS = 1
PLAN = ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
SGR = re.compile(r"\x1b\[[0-9;]*m")


def test_plural() -> None:
    assert [plural(n, "host") for n in (0, 1, 2)] == ["0 hosts", "1 host", "2 hosts"]
    assert plural(1, "process", "processes") == "1 process" and plural(3, "process", "processes") == "3 processes"


@pytest.mark.parametrize(("choice", "environ", "tty", "expected"), [
    ("auto", {}, True, True), ("auto", {}, False, False), ("auto", {"NO_COLOR": "1"}, True, False),
    ("auto", {"NO_COLOR": ""}, True, True),  # the convention: only a non-empty NO_COLOR counts
    ("auto", {"FORCE_COLOR": "1"}, False, True), ("auto", {"FORCE_COLOR": "0"}, False, False),
    ("auto", {"TERM": "dumb"}, True, False), ("always", {"NO_COLOR": "1"}, False, True),
    ("never", {"FORCE_COLOR": "1"}, True, False),
])
def test_colour_decision(choice: str, environ: dict[str, str], tty: bool, expected: bool) -> None:
    assert wants_color(choice, environ, tty) is expected


def test_every_command_takes_color() -> None:
    for name in COMMANDS:
        result = run_cli(name, "--help")
        assert "--color WHEN" in result.stdout, name
    assert "--color" in run_cli("rules", "explain", "--help").stdout
    assert run_cli("rules", "list", "--color", "always").stdout.count("\x1b[") > 0


def test_color_option_and_environment_reach_the_output() -> None:
    assert SGR.search(run_cli(*PLAN, "--color", "always").stdout)
    assert not SGR.search(run_cli(*PLAN).stdout)  # captured output is not a terminal
    assert SGR.search(run_cli(*PLAN, environ={"FORCE_COLOR": "1"}).stdout)
    assert not SGR.search(run_cli(*PLAN, "--color", "never", environ={"FORCE_COLOR": "1"}).stdout)
    assert SGR.search(run_cli("audit", EXAMPLE, "--color", "always").stdout)


def test_theme_uses_only_colours_both_backgrounds_keep_readable() -> None:
    for name, style in THEME.items():
        words = style.split()
        assert "on" not in words, f"{name}: no background colours"
        assert not {"white", "black", "yellow", "bright_white", "bright_yellow", "grey93"} & set(words), name
        assert all(w in {"bold", "dim", "red", "green", "blue", "magenta", "cyan"} for w in words), name


def _too_long(text: str, width: int) -> list[str]:
    """Lines longer than ``width`` that could have been broken (have a space; a comment's "# " is not one: the word
    after it is longer than the width, and a comment line must keep its "#"; nor is a command's " \\" continuation)."""
    return [line for line in SGR.sub("", text).splitlines()
            if len(line) > width and " " in line.strip().removeprefix("# ").removesuffix(" \\")]


@pytest.mark.parametrize("argv", [
    ["audit", EXAMPLE], ["audit", EXAMPLE, "--verbose"], PLAN, ["facts", EXAMPLE], ["rules", "list"],
    ["rules", "explain", "pg-max-connections-below-budget"], ["profiles", "list"],
])
def test_an_80_column_terminal_gets_no_longer_lines(argv: list[str]) -> None:
    for colour in ("never", "always"):
        result = run_cli(*argv, "--color", colour, environ={"COLUMNS": "80"})
        assert result.status == (AUDIT_STATUS if argv[0] == "audit" else 0), result.stderr
        assert _too_long(result.stdout, 80) == []
        wide = run_cli(*argv, environ={"COLUMNS": "200"}).stdout
        assert max(len(line) for line in wide.splitlines()) > 80 or argv[0] == "profiles"


def test_an_80_column_terminal_gets_the_render_diff_folded(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("foreman::foreman_service_puma_workers: 40\n", encoding="utf-8")
    result = run_cli("render", *PLAN[1:], "--merge-into", str(target), "--color", "always", environ={"COLUMNS": "80"})
    assert result.status == 0, result.stderr
    assert max(len(line) for line in SGR.sub("", result.stdout).splitlines()) <= 80
    assert "+# foretune:" in SGR.sub("", result.stdout)


def test_without_a_width_nothing_is_wrapped() -> None:
    out = run_cli(*PLAN).stdout
    assert any(len(line) > 120 for line in out.splitlines())  # one line per tunable for grep and scripts


def test_render_diff_is_coloured_on_request_and_plain_otherwise(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    target.write_text("foreman::foreman_service_puma_workers: 40\n", encoding="utf-8")
    argv = ["render", *PLAN[1:], "--merge-into", str(target), "--prefer", "foretune"]
    coloured = run_cli(*argv, "--color", "always").stdout
    assert "\x1b[31m-foreman::foreman_service_puma_workers: 40" in coloured
    # one channel per value: the site's key goes and the installer option carries 18 (not written here)
    assert "\x1b[32m+  work_mem: 8MB" in coloured and "+foreman::foreman_service_puma_workers" not in coloured
    plain = run_cli(*argv).stdout
    assert not SGR.search(plain) and "-foreman::foreman_service_puma_workers: 40\n" in plain


def test_rules_explain_renders_markdown_on_a_terminal_and_keeps_the_source_in_a_pipe() -> None:
    rendered = run_cli("rules", "explain", "pg-max-connections-below-budget", environ={"COLUMNS": "100"}).stdout
    assert "Why it matters" in rendered and "## Why it matters" not in rendered
    assert "## Why it matters" in run_cli("rules", "explain", "pg-max-connections-below-budget").stdout


# --- hostile input (control characters, escape sequences, HTML) ----------------------------------

HOSTILE_HOST = "evil\x1b]0;pwned\x07\x1b[2J\x9b31m<script>alert(1)</script>\u202e.example.com"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example sosreport with escape sequences and HTML in its host name and its directory name."""
    root = tmp_path_factory.mktemp("hostile") / "sos-\x1b[8mhidden\x1b[0m-<b>x</b>"
    shutil.copytree(EXAMPLE, root, symlinks=True)
    (root / "hostname").write_text(HOSTILE_HOST + "\n", encoding="utf-8")
    return root


def _escapes(text: str) -> list[str]:
    """Control characters left after taking out the SGR colour sequences foretune writes itself."""
    return re.findall(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", SGR.sub("", text))


@pytest.mark.parametrize("argv", [
    ["audit"], ["audit", "--verbose", "--color", "always"], ["audit", "--format", "markdown"], ["audit", "--format", "html"],
    ["facts"], ["facts", "--color", "always"], ["plan", "--from"],
])
def test_control_characters_from_input_never_reach_the_terminal(hostile: Path, argv: list[str]) -> None:
    command, *rest = argv
    args = [command, *(rest[:1] if rest == ["--from"] else []), str(hostile), *(rest if rest != ["--from"] else [])]
    result = run_cli(*args)
    assert result.status == (AUDIT_STATUS if command == "audit" else 0), result.stderr
    assert _escapes(result.stdout) == [] and _escapes(result.stderr) == []
    assert "\x1b[8m" not in result.stdout
    assert command == "plan" or "x1b" in result.stdout  # the hostile sequences are shown, not run


def test_hostile_text_is_shown_escaped(hostile: Path) -> None:
    text = run_cli("facts", str(hostile), "--only", "hostname").stdout
    assert "hostname  evil\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m<script>alert(1)</script>\\u202e.exa" in text
    html = run_cli("audit", str(hostile), "--format", "html").stdout
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>x</b>" not in html
    md = run_cli("audit", str(hostile), "--format", "markdown").stdout
    # each backslash of the visible escapes is itself escaped, so a Markdown viewer shows \x1b
    assert r"- Host: evil\\x1b\]0;pwned\\x07\\x1b\[2J\\x9b31m\<script\>alert(1)\</script\>\\u202e.example.com" in md
    assert "<b>" not in md and "\\<b\\>x\\</b\\>" in md


def test_terminal_guard_lets_only_colour_through() -> None:
    out = io.StringIO()
    TerminalGuard(out).write("a\x1b[31mred\x1b[0m\x1b]0;title\x07\x1b[2J\x9b1m\r\n")
    assert out.getvalue() == "a\x1b[31mred\x1b[0m\\x1b]0;title\\x07\\x1b[2J\\x9b1m\r\n"
    assert clean("tab\tand\nnewline") == "tab\tand\nnewline"


# --- progress for long reads --------------------------------------------------------------------

class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("suffix", [".tar.xz", ".tar"])
def test_tarball_reads_report_their_progress_up_to_the_whole_file(tmp_path: Path, suffix: str) -> None:
    from foretune.facts import read_source
    from tests.facts.archive import pack

    archive = pack(Path(EXAMPLE), tmp_path / f"sosreport{suffix}")
    seen: list[tuple[int, int]] = []
    facts = read_source(str(archive), progress=lambda done, total: seen.append((done, total)))
    assert facts.value("hostname") == "satellite.example.com"
    size = archive.stat().st_size
    assert seen and all(total == size for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert size - seen[-1][0] <= 10240  # all of it, but for the tar's final zero padding record (10 KiB) past its end


def test_read_progress_draws_only_on_a_terminal_and_only_for_large_reads() -> None:
    from foretune.term import ReadProgress

    tty = _Tty()
    with ReadProgress(tty, "reading big.tar.xz", enabled=True, min_bytes=1000) as bar:
        bar(10, 999)  # below the threshold: nothing
        assert tty.getvalue() == ""
        for done in range(0, 5001, 1000):
            bar(done, 5000)
    assert "reading big.tar.xz" in tty.getvalue()
    guarded = _Tty()  # behind the guard of a real terminal, rich's cursor controls still work (not shown as text)
    with ReadProgress(TerminalGuard(guarded), "reading big.tar.xz", enabled=True, min_bytes=0) as bar:
        bar(2500, 5000)
    assert "reading big.tar.xz" in guarded.getvalue() and "\\x1b" not in guarded.getvalue()
    assert guarded.getvalue().startswith("\x1b[?25l") and guarded.getvalue().endswith("\x1b[2K")
    quiet = io.StringIO()
    with ReadProgress(quiet, "reading big.tar.xz", enabled=False, min_bytes=0) as bar:
        bar(5000, 5000)
    assert quiet.getvalue() == ""


def test_byte_counts_are_shown_in_binary_units() -> None:
    fixtures = REPO / "tests" / "fixtures" / "sosreports"
    out = run_cli("audit", EXAMPLE).stdout
    # candlepin-heap-low: tomcat.conf -Xmx2048m (2 GiB) against the large profile's -Xmx4096m (4 GiB), written as
    # the message writes them ("Candlepin -Xmx 2.0 GiB; the large profile gives 4.0 GiB"): one figure, one spelling
    assert "Candlepin -Xmx 2.0 GiB; the large profile gives 4.0 GiB" in out
    # memory-budget-over-ram: in use (66924544 - 2621440 kB MemAvailable + 1572864 kB swap) = 62.8 GiB against the large
    # plan's 41.5 GiB (candlepin-heap-low, 2 GiB against 4 GiB, is listed under profile-too-small-for-hosts, whose
    # symptoms show no current line)
    assert "current: 62.8 GiB   recommended: 41.5 GiB" in out
    from foretune.rules.registry import all_rules

    byte_rules = {r.id for r in all_rules() if r.unit == "bytes"}
    assert {"swap-in-use", "memory-budget-over-ram", "candlepin-heap-low"} <= byte_rules
    for case in [*sorted(p for p in fixtures.iterdir() if p.is_dir()), Path(EXAMPLE)]:
        lines = run_cli("audit", str(case), "--verbose").stdout.splitlines()
        for index, line in enumerate(lines):
            if any(f" {rule}: " in line for rule in byte_rules) and index + 1 < len(lines) and "current:" in lines[index + 1]:
                assert not re.search(r"\d{7,}", lines[index + 1]), (case.name, lines[index + 1])
        facts = run_cli("facts", str(case)).stdout
        assert not re.search(r"(_bytes|used_memory|maxmemory)=\d{4,}", facts), case.name


def test_no_line_ends_in_spaces_in_colour_either() -> None:
    """A line copied from the terminal (a fix, a drop-in line) brings no trailing spaces, coloured or not."""
    for colour in ("never", "always"):
        out = run_cli("audit", EXAMPLE, "--color", colour, environ={"COLUMNS": "80"}).stdout
        assert [line for line in SGR.sub("", out).splitlines() if line.endswith(" ")] == [], colour


def test_one_memory_figure_has_one_spelling() -> None:
    """satellite-6.15-overcommitted: 24 Puma workers at the guide's about 1 GiB each; the root cause and the memory
    budget under it both write 24.0 GiB (not "24 GiB" in one and "24.0 GiB" in the other), and a byte value shown as
    current/recommended is written as the messages write it."""
    out = run_cli("audit", str(REPO / "tests" / "fixtures" / "sosreports" / "satellite-6.15-overcommitted"),
                  environ={"COLUMNS": "400"}).stdout
    assert "24 Puma workers need about 24.0 GiB but only 12.9 GiB is left" in out
    assert "Foreman (Puma) 24.0 GiB" in out
    shown = [line for line in out.splitlines() if not line.strip().startswith("see:")]  # citation titles are quotes
    assert not [line for line in shown if re.search(r"(?<![\d.])\d+ GiB", line)]  # every GiB figure with its one decimal


def test_a_quoted_command_folds_between_words_outside_its_quotes() -> None:
    """A sed fix (its script in single quotes) continues after " \\" at a blank outside the quotes, so it pastes as
    one command; the quoted script is never cut."""
    out = run_cli("audit", EXAMPLE, environ={"COLUMNS": "80"}).stdout
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("sed -i.foretune-bak.db_pool -e '/^foreman::db_pool:/d'"))
    assert lines[at].endswith(" \\") and lines[at + 1].strip() == "/etc/foreman-installer/custom-hiera.yaml"


@pytest.mark.parametrize("columns", ["60", "70", "80"])
def test_evidence_never_wraps_between_a_name_and_its_value(columns: str) -> None:
    """The example's evidence (proc/meminfo, /proc/PID/limits, systemctl show, database.yml) folds only between one
    setting and the next: each name is on the line of its value, a continuation is indented."""
    out = run_cli("audit", EXAMPLE, environ={"COLUMNS": columns}).stdout
    lines = out.splitlines()
    for name in ("MemTotal:", "MemAvailable:", "SwapFree:", "Max open files", "LimitNOFILE=", "pool:"):
        at = [line for line in lines if name in line and not line.strip().startswith(("#", "sed ", "-e ", "see:"))]
        assert at, name
        assert all(re.search(rf"{re.escape(name)}\s*\d", line) for line in at), (name, at)  # the figure follows
    ends = [line for line in lines if re.search(r"(MemTotal|MemAvailable|SwapTotal|SwapFree|pool|concurrency):$", line)]
    assert ends == []


def test_piped_text_is_not_wrapped_and_columns_wraps_it_on_request() -> None:
    """The decision (README, `foretune --help`): off a terminal (run_cli's stdout is a pipe) a text report is not
    wrapped, one line per finding and evidence line, as git leaves piped output; COLUMNS asks for a width."""
    piped = run_cli("audit", EXAMPLE).stdout
    assert any(len(line) > 200 for line in piped.splitlines())
    assert "        evidence: proc/meminfo: MemTotal:       66924544 kB | MemAvailable:    2621440 kB\n" in piped
    wrapped = run_cli("audit", EXAMPLE, environ={"COLUMNS": "100"}).stdout
    assert max(len(line) for line in wrapped.splitlines() if " " in line.strip()) <= 100 or _too_long(wrapped, 100) == []
    assert "output to a pipe or file is\n                        not wrapped" in run_cli("--help").stdout
    assert "piped or redirected, they are not wrapped" in (REPO / "README.md").read_text(encoding="utf-8")


def test_an_evidence_line_without_an_excerpt_says_what_the_file_lacks() -> None:
    """The example's postgresql.auto.conf holds comments only: its evidence line says which setting no line of it sets
    instead of a bare path that reads like a cut quote (text, Markdown, HTML)."""
    note = "(no line sets effective_cache_size; PostgreSQL's default 4GB applies)"
    assert f"evidence: var/lib/pgsql/data/postgresql.auto.conf: {note}" in run_cli("audit", EXAMPLE).stdout
    assert f"`var/lib/pgsql/data/postgresql.auto.conf` — {note}" in run_cli("audit", EXAMPLE, "--format", "markdown").stdout
    assert f"<code>var/lib/pgsql/data/postgresql.auto.conf</code> — {note.replace(chr(39), '&#39;')}</li>" in run_cli(
        "audit", EXAMPLE, "--format", "html").stdout
