"""Start-up stays lean: cheap commands do not import YAML, the planner or the facts layer.

(Timings live in bench/startup.py; this checks the property that makes them small.)
"""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import REPO

HEAVY = ("yaml", "foretune.plan", "foretune.facts", "foretune.knowledge.releases", "json", "dataclasses",
         "rich", "jinja2", "ruamel", "pygments", "markdown_it")


def imported_by(*argv: str, columns: str | None = None) -> set[str]:
    code = ("import sys; from foretune.cli import main; import io, contextlib\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main({list(argv)!r})\n"
            "print('\\n'.join(sys.modules))")
    environ = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        environ["COLUMNS"] = columns  # wrap as on a terminal of that width
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, env=environ)
    return set(done.stdout.split())


def test_version_and_help_import_nothing_heavy() -> None:
    for argv in (["--version"], ["--help"]):
        loaded = imported_by(*argv)
        assert not [m for m in HEAVY if m in loaded], argv


def test_plan_help_does_not_load_the_planner() -> None:
    loaded = imported_by("plan", "--help")
    assert "foretune.plan.planner" not in loaded and "yaml" not in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("rich", "jinja2", "ruamel")]


def test_plan_table_on_a_terminal_imports_only_the_rich_parts_it_draws_with() -> None:
    loaded = imported_by("plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8", "--ram", "32G",
                         columns="150")
    assert "rich.console" in loaded and "rich.table" in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("pygments", "markdown_it", "jinja2", "ruamel")]
    assert "rich.markdown" not in loaded and "rich.progress" not in loaded and "rich.syntax" not in loaded


def test_plan_off_a_terminal_needs_neither_rich_nor_dataclasses() -> None:
    # the plan's records are named tuples: importing dataclasses (with inspect) cost a third of `plan` (bench/README.md)
    loaded = imported_by("plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8", "--ram", "32G")
    assert "foretune.plan.planner" in loaded and "foretune.render.plan_table" in loaded
    assert not [m for m in ("dataclasses", "inspect", "yaml") if m in loaded]
    assert not [m for m in loaded if m.split(".")[0] == "rich"]
    loaded = imported_by("plan", "--product", "satellite", "--version", "6.15", "--hosts", "8000", "--cpus", "8", "--ram", "32G",
                         "--format", "json")
    assert "dataclasses" not in loaded and "inspect" not in loaded
