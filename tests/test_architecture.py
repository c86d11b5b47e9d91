"""docs/architecture.md shows the layers the import contract enforces: same layers, same order, every package placed."""

from __future__ import annotations

import ast
import io
import os
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

from tests.conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.9/3.10: the same parser's predecessor
    import tomli as tomllib  # type: ignore[no-redef]


def contract_layers() -> list[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["id"] == "pipeline"]
    assert contract["type"] == "layers"
    return [" ".join(layer.split()) for layer in contract["layers"]]


def documented_layers() -> list[str]:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = text.split("<!-- layers: begin", 1)[1].split("<!-- layers: end -->", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| layer ")]
    layers = []
    for row in rows:
        packages = re.split(r"(?<!\\)\|", row.strip().strip("|"))[1]
        layers.append(" ".join(packages.replace("\\|", "|").replace("`", "").split()))
    return layers


def test_the_architecture_doc_lists_the_contract_layers_in_order() -> None:
    assert documented_layers() == contract_layers()


def test_every_package_and_module_of_foretune_has_a_layer() -> None:
    placed = {name for layer in contract_layers() for name in re.split(r" [|:] ", layer)}
    src = REPO / "src" / "foretune"
    present = {f"foretune.{p.stem}" for p in src.glob("*.py") if p.name != "__init__.py"}
    present |= {f"foretune.{p.parent.name}" for p in src.glob("*/__init__.py")}
    assert present == placed


def test_lint_imports_keeps_the_tree_and_breaks_on_an_upward_import(tmp_path: Path) -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    shutil.copytree(REPO / "src" / "foretune", tmp_path / "foretune", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    kept = subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    with (tmp_path / "foretune" / "host" / "text.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef _upward() -> None:\n    from foretune.facts import catalog  # noqa: F401\n")
    broken = subprocess.run([str(lint), "--no-cache"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert broken.returncode == 1
    assert "foretune.host is not allowed to import foretune.facts" in broken.stdout
    assert "foretune.host.text -> foretune.facts.catalog" in broken.stdout


def _imports(src: Path) -> tuple[dict[str, set[str]], list[tuple[str, str, int]]]:
    """foretune's module-level imports (module -> modules; TYPE_CHECKING blocks left out) and its
    function-level ones (module, imported module, line)."""
    paths = {".".join(p.relative_to(src).with_suffix("").parts).removesuffix(".__init__"): p
             for p in (src / "foretune").rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    top: dict[str, set[str]] = {}
    inner: list[tuple[str, str, int]] = []
    for module, path in paths.items():
        if path.name == "collector_template.py":  # Python 2.7 source, no foretune imports
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
                for n in ast.walk(node)}
        in_function = {id(n) for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for n in ast.walk(node)}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                names = [base, *(f"{base}.{a.name}" for a in node.names)]
            targets = {t for t in (resolve(n) for n in names if n.startswith("foretune")) if t and t != module}
            if id(node) in in_function:
                inner += [(module, t, node.lineno) for t in targets]
            else:
                top.setdefault(module, set()).update(targets)
    return top, inner


def test_no_function_level_import_is_there_to_get_around_a_cycle() -> None:
    top, inner = _imports(REPO / "src")

    def reaches(start: str, goal: str) -> bool:
        seen, stack = set(), [start]
        while stack:
            module = stack.pop()
            if module == goal:
                return True
            if module not in seen:
                seen.add(module)
                stack += top.get(module, ())
        return False

    assert len(inner) > 100  # the parse sees the imports commands make inside run()
    dodges = [f"{module}:{line} imports {target}, which imports it back" for module, target, line in inner
              if reaches(target, module)]
    assert dodges == []


PRAGMA = re.compile(r"\b(noqa|type:\s*ignore|novm|pragma)\b[^#]*", re.IGNORECASE)


def unexplained_function_imports(source: str, name: str) -> list[str]:
    """`name:line` of each import inside a function whose lines carry no comment giving a reason
    (a comment that is only a pragma such as `noqa` or `type: ignore` gives none)."""
    tree = ast.parse(source)
    reasons = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            reasons[token.start[0]] = PRAGMA.sub("", token.string).strip("# \t")
    found = {id(n): n for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return [f"{name}:{node.lineno}" for node in sorted(found.values(), key=lambda n: n.lineno)
            if not any(reasons.get(line) for line in range(node.lineno, (node.end_lineno or node.lineno) + 1))]


def test_the_checker_catches_an_import_without_a_reason() -> None:
    source = ("import os\n\n"
              "def f() -> None:\n"
              "    import json  # start-up: only f writes JSON\n"
              "    import yaml  # noqa: F401\n"
              "    from foretune import (\n"
              "        units,\n"
              "    )\n"
              "    from foretune import term\n\n"
              "    class C:\n"
              "        def g(self) -> None:\n"
              "            import re  # type: ignore[import]  # optional: not on every host\n"
              "            import shtab\n")
    assert unexplained_function_imports(source, "m.py") == ["m.py:5", "m.py:6", "m.py:9", "m.py:14"]


def test_every_function_level_import_says_why() -> None:
    # collector_template.py is left out: it is not imported by foretune but runs alone on the host's
    # Python 2.7/3.6, where an import inside a function picks what that Python has (lzma, for one)
    src = REPO / "src"
    offenders = [found for path in sorted((src / "foretune").rglob("*.py")) if path.name != "collector_template.py"
                 for found in unexplained_function_imports(path.read_text(encoding="utf-8"),
                                                           path.relative_to(REPO).as_posix())]
    assert not offenders, (f"{len(offenders)} function-level imports give no reason; hoist each to module level or "
                           "end its line with a comment such as '# start-up: ...' or '# optional: ...':\n"
                           + "\n".join(offenders))
