"""CLI conventions: one output flag, case-insensitive choices, "did you mean", --version everywhere,
bare foretune, status lines on stderr, plan --fail-on, completion, man page, documented environment."""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from foretune import __version__
from tests.conftest import REPO, run_cli

PLAN = ("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16", "--ram", "64G")
SMALL = ("plan", "--product", "satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "4", "--ram", "8G")
EXAMPLE = str(REPO / "examples" / "sosreport-satellite-6.15-mistuned")


def test_bare_foretune_prints_help_on_stderr_and_exits_2() -> None:
    result = run_cli()
    assert result.status == 2
    assert result.stdout == ""
    assert "usage: foretune" in result.stderr and "plan" in result.stderr


def test_choices_are_case_insensitive() -> None:
    upper = run_cli("plan", "--product", "Satellite", "--version", "6.15", "--hosts", "12000", "--cpus", "16",
                    "--ram", "64G", "--format", "JSON", "--role", "SERVER")
    assert upper.status == 0, upper.stderr
    doc = json.loads(upper.stdout)
    assert doc["input"]["product"] == "satellite" and doc["input"]["role"] == "server"
    # the mistuned example records no measured failure (no OOM kill, no full queue, no 503s): nothing critical
    assert run_cli("audit", EXAMPLE, "--fail-on", "Critical", "--format", "Json").status == 0
    assert run_cli("Rules", "LIST").status == 0


def test_did_you_mean_for_commands_options_and_choices() -> None:
    command = run_cli("plna")
    assert command.status == 2
    assert "invalid choice: 'plna'" in command.stderr and "did you mean 'plan'?" in command.stderr
    option = run_cli(*PLAN, "--fromm", "x")
    assert option.status == 2 and "did you mean --from?" in option.stderr
    choice = run_cli(*PLAN, "--format", "jsno")
    assert choice.status == 2 and "did you mean 'json'?" in choice.stderr
    sub = run_cli("profiles", "shwo", "large")
    assert sub.status == 2 and "did you mean 'show'?" in sub.stderr
    for result in (command, option, choice, sub):
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "did you mean" not in run_cli("zzzzzz").stderr  # nothing close: no guess


def _all_parsers() -> list[list[str]]:
    from foretune.commands.completion import full_parser

    paths: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        paths.append(path)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*path, name])

    walk(full_parser(), [])
    return paths


def test_version_everywhere() -> None:
    paths = _all_parsers()
    assert ["plan"] in paths and ["bench", "storage"] in paths and ["profiles", "show"] in paths
    for path in paths:
        result = run_cli(*path, "--version")
        assert (result.status, result.stdout) == (0, f"foretune {__version__}\n"), path
    # where --version is the product version, it still takes one
    assert json.loads(run_cli(*PLAN, "--format", "json").stdout)["input"]["version"] == "6.15"


def test_output_extension_picks_the_format(tmp_path: Path) -> None:
    html = tmp_path / "audit.html"
    audit = run_cli("audit", EXAMPLE, "--output", str(html))
    assert audit.status == 1 and audit.stdout == ""
    assert html.read_text(encoding="utf-8").lstrip().lower().startswith("<!doctype html")
    assert f"foretune: wrote {html}" in audit.stderr
    as_json = tmp_path / "plan.json"
    plan = run_cli(*PLAN, "--output", str(as_json))
    assert plan.status == 0 and plan.stdout == ""
    assert json.loads(as_json.read_text(encoding="utf-8"))["schema"] == "foretune-plan/1"
    hiera = tmp_path / "custom-hiera.yaml"
    assert run_cli(*PLAN, "-o", str(hiera)).status == 0
    assert hiera.read_text(encoding="utf-8") == run_cli(*PLAN, "--format", "hiera").stdout
    forced = tmp_path / "plan.txt"
    assert run_cli(*PLAN, "--output", str(forced), "--format", "installer").status == 0
    assert "\nsatellite-installer \\\n  --tuning large" in forced.read_text(encoding="utf-8")  # after the override comment
    facts = tmp_path / "facts.json"
    assert run_cli("facts", EXAMPLE, "--output", str(facts)).status == 0
    assert json.loads(facts.read_text(encoding="utf-8"))["source"]["kind"] == "sosreport"


def test_an_extension_without_a_format_is_refused(tmp_path: Path) -> None:
    for argv, name in ((PLAN, "plan.pdf"), (("audit", EXAMPLE), "audit.pdf"), (("rules", "list"), "rules.yaml")):
        target = tmp_path / name
        result = run_cli(*argv, "--output", str(target))
        assert result.status == 2 and result.stdout == "" and not target.exists(), result.stderr
        assert len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(f"foretune: error: --output {target}: no format of this command writes "
                                        f"{target.suffix} (") and result.stderr.endswith("); name one with --format\n")
    named = tmp_path / "audit.pdf"  # --format names it: any file name then
    assert run_cli("audit", EXAMPLE, "--format", "json", "--output", str(named)).status == 1
    assert json.loads(named.read_text(encoding="utf-8"))["findings"]


def test_a_usage_error_names_its_command_once() -> None:
    result = run_cli(*PLAN[:-2], "--ram", "lots")
    assert result.status == 2
    assert result.stderr.startswith("foretune plan: error: argument --ram: ") and result.stderr.count("foretune") == 1
    assert run_cli("plna").stderr.startswith("foretune: error: argument COMMAND: invalid choice")


def test_status_lines_go_to_stderr(tmp_path: Path) -> None:
    result = run_cli(*PLAN, "--format", "json", "--output-dir", str(tmp_path / "apply"))
    assert result.status == 0
    json.loads(result.stdout)  # stdout is only the document
    assert "foretune: wrote" in result.stderr
    old_name = run_cli(*PLAN, "--out", str(tmp_path / "old"), "--output", str(tmp_path / "p.json"))
    assert old_name.status == 0 and old_name.stdout == ""
    assert (tmp_path / "old" / "custom-hiera.yaml").exists()


def test_plan_fail_on_like_audit() -> None:
    problems = {p["severity"] for p in json.loads(run_cli(*SMALL, "--format", "json").stdout)["problems"]}
    assert {"critical", "high"} <= problems
    assert run_cli(*SMALL).status == 0  # without --fail-on a plan is never a failure
    assert run_cli(*SMALL, "--fail-on", "critical").status == 1
    assert run_cli(*SMALL, "--fail-on", "High").status == 1
    assert run_cli(*PLAN, "--fail-on", "info").status == 0  # a well-sized box has no problems
    assert run_cli(*SMALL, "--fail-on", "severe").status == 2


def test_root_help_examples_run_as_printed() -> None:
    help_text = run_cli("--help").stdout
    examples = [line.strip() for line in help_text.split("examples:\n", 1)[1].split("\n\n", 1)[0].splitlines()]
    assert len(examples) >= 3
    for line in examples:
        argv = shlex.split(line)
        assert argv[0] == "foretune"
        done = subprocess.run([sys.executable, "-m", "foretune", *argv[1:]], cwd=REPO, capture_output=True, text=True,
                              timeout=120, check=False)
        # audit exits 1 on the mistuned example: it has findings, as it should; plan exits 0
        assert done.returncode == (1 if argv[1] == "audit" else 0), (line, done.stderr)
        assert "error" not in done.stderr, (line, done.stderr)
        assert done.stdout.strip(), line


def test_environment_variables_are_documented() -> None:
    used = set()
    for path in (REPO / "src" / "foretune").rglob("*.py"):
        used |= set(re.findall(r"[\"'](FORETUNE_[A-Z_]+|NO_COLOR)[\"']", path.read_text(encoding="utf-8")))
    assert {"FORETUNE_PG_CONNINFO", "FORETUNE_REDIS_URL", "NO_COLOR"} <= used
    help_text = run_cli("--help").stdout
    reference = (REPO / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    man = (REPO / "docs" / "foretune.1").read_text(encoding="utf-8").replace("\\-", "-")
    for name in used:
        assert name in help_text and name in reference and name in man, name


def test_man_page_covers_every_command_and_option() -> None:
    from foretune.commands.completion import full_parser

    man = (REPO / "docs" / "foretune.1").read_text(encoding="utf-8").replace("\\-", "-")
    assert man.startswith(".TH FORETUNE 1")
    root = full_parser()
    for path in _all_parsers():
        parser = root
        for name in path:
            parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
        if path:
            assert f'.SS "foretune {" ".join(path)}"' in man, path
        for action in parser._actions:
            if action.help != argparse.SUPPRESS:
                for option in action.option_strings:
                    assert option in man, (path, option)


def test_bash_completion_completes_commands_options_and_choices(tmp_path: Path) -> None:
    script = tmp_path / "foretune.bash"
    result = run_cli("completion", "bash")
    assert result.status == 0
    script.write_text(result.stdout, encoding="utf-8")
    probe = r"""
source "$1"
complete_line() {
    read -ra COMP_WORDS <<< "$1"
    [[ "$1" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$1"; COMP_POINT=${#1}; COMPREPLY=()
    _shtab_foretune foretune "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
    echo "${COMPREPLY[*]}"
}
complete_line "foretune pl"
complete_line "foretune plan --prod"
complete_line "foretune plan --product "
complete_line "foretune bench st"
"""
    done = subprocess.run(["bash", "-c", probe, "probe", str(script)], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["plan", "--product", "foreman satellite orcharhino", "storage"], done.stderr


def test_zsh_completion_is_a_compdef_for_every_command() -> None:
    from foretune.cli import COMMANDS

    result = run_cli("completion", "zsh")
    assert result.status == 0
    assert result.stdout.startswith("#compdef foretune")
    for name in COMMANDS:
        assert f"_shtab_foretune_{name.replace('-', '_')}" in result.stdout, name
    assert run_cli("completion", "tcsh").status == 2


def test_fish_completion_completes_every_command_and_the_product_choices() -> None:
    from foretune.cli import COMMANDS

    result = run_cli("completion", "fish")
    assert result.status == 0
    lines = result.stdout.splitlines()
    for name in COMMANDS:
        assert any(line.startswith("complete -c foretune ") and f" -a {name} " in line for line in lines), name
    assert ("complete -c foretune -n '_shtab_foretune_using plan' -l product -xka \"foreman satellite orcharhino\" "
            "-d product") in lines


def test_completion_without_shtab_is_one_line() -> None:
    code = ("import sys; sys.modules['shtab'] = None\n"  # an installation without shtab
            "from foretune.cli import main; sys.exit(main(['completion', 'bash']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["foretune: error: completion needs the shtab module, which this installation "
                                        "lacks (pip install shtab)"]


@pytest.mark.parametrize("argv", [
    ["plan", "--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"],
    ["collector"],
])
def test_output_dash_is_standard_output(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli(*argv, "--output", "-")
    assert result.status == 0, result.stderr
    assert result.stdout == run_cli(*argv).stdout and result.stdout
    assert list(tmp_path.iterdir()) == []  # no file named "-"
