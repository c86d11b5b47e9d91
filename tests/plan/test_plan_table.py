"""The plan table joined without rich (pipes, files) is the text rich prints unwrapped."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from foretune.commands import plan as plan_command
from foretune.env import Environment
from foretune.render import plan_table
from tests.conftest import REPO
from tests.plan.cases import CASES

FIXTURES = REPO / "tests" / "fixtures" / "sosreports"


def _plan(*argv: str) -> object:
    args = plan_command.build_parser("foretune plan").parse_args(list(argv))
    return plan_command.plan_from_args(args, Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={}))


ARGVS = [
    *CASES.values(),
    ["--from", str(FIXTURES / "satellite-6.15")],  # installer column from the answers file and custom-hiera.yaml
    ["--from", str(FIXTURES / "satellite-6.9")],
    ["--product", "satellite", "--version", "6.15", "--hosts", "60000", "--cpus", "4", "--ram", "8G"],  # problems, OVER
]


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a)[:60] for a in ARGVS])
def test_plain_text_equals_rich_unwrapped(argv: list[str]) -> None:
    plan = _plan(*argv)
    blocks = plan_table.layout(plan)  # type: ignore[arg-type]
    plain = plan_table._plain(blocks)
    assert plain is not None
    assert plain == plan_table._rich(plan, blocks, color=False, width=None)  # type: ignore[arg-type]


def test_problems_and_origins_are_in_the_compared_cases() -> None:
    texts = [plan_table.render(_plan(*argv)) for argv in ARGVS[-3:]]  # type: ignore[arg-type]
    assert any("(a) = set in the answers file" in t for t in texts)
    assert "OVER" in texts[-1] and "Problems:\n" in texts[-1]


def test_text_only_rich_can_measure_goes_through_rich() -> None:
    plan = _plan(*CASES["satellite-6.15-large"])
    tunable = next(iter(plan.tunables.values()))  # type: ignore[attr-defined]
    odd = tunable._replace(id="wide\u4e2d\u6587\ttab\x1bescape")
    plan.tunables[tunable.id] = odd  # type: ignore[attr-defined]
    blocks = plan_table.layout(plan)  # type: ignore[arg-type]
    assert plan_table._plain(blocks) is None
    text = plan_table.render(plan)  # type: ignore[arg-type]
    assert "\x1b" not in text and "\\x1b" in text  # the escape is made visible, not sent


def test_piped_plan_table_does_not_import_rich() -> None:
    code = ("import sys; from foretune.cli import main; import io, contextlib\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['plan', '--product', 'satellite', '--version', '6.15', '--hosts', '8000', '--cpus', '8', '--ram', '32G'])\n"
            "print('\\n'.join(sys.modules))")
    environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "FORCE_COLOR")}  # not a terminal
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, env=environ)
    assert "foretune.plan.planner" in done.stdout.split()
    assert not [m for m in done.stdout.split() if m.split(".")[0] == "rich"]


def test_plain_foreman_says_it_has_no_tuning_profiles() -> None:
    from tests.conftest import run_cli as cli

    out = cli("plan", "--product", "foreman", "--version", "3.9", "--no-katello", "--hosts", "2000", "--cpus", "4",
              "--ram", "8G", "--virtual").stdout
    assert "services: Puma, Apache event MPM; no --tuning size profiles without Katello" in out
