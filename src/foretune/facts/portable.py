"""Rewrite a small, self-contained foretune module as source that Python 2.7 and 3.6 also run.

The collector embeds :mod:`foretune.host.redact` this way, so it redacts with foretune's own
code rather than a copy. Only what that module needs is rewritten: annotations and the
``__future__``/``typing`` imports go, f-strings become ``str.format``, ``lru_cache`` decorators
(a speed-up only) go, classes get ``object`` as base, ``pattern.fullmatch(s)`` becomes an
anchored match, and every ``re`` call gets ``re.UNICODE`` (Python 3's default for text, so
nothing changes there; Python 2 then matches ``\\w`` and ``\\s`` as Python 3 does). Anything else
newer than 2.7 raises ``ValueError``, so a change to the module cannot slip into the collector
unconverted.

>>> print(portable("from __future__ import annotations\\ndef f(x: int) -> str:\\n    return f'{x!r}:{x:>3}'\\n"))
def f(x):
    return '{!r}:{:>3}'.format(x, x)
"""

from __future__ import annotations

import ast

RE_FUNCTIONS = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "sub": 4, "subn": 4, "split": 3, "findall": 2,
                "finditer": 2}  # position of ``flags`` among the positional arguments
FULLMATCH = '''
def _fullmatch(pattern, text):
    """``pattern.fullmatch(text)`` for Python 2.7."""
    return re.match("(?:%s)\\\\Z" % pattern.pattern, text, pattern.flags)
'''
UNSUPPORTED = (ast.NamedExpr, ast.AsyncFunctionDef, ast.Await, ast.YieldFrom, ast.Nonlocal)


def portable(source: str) -> str:
    """``source`` rewritten for Python 2.7 and 3.6 (see the module docstring); ValueError for what cannot be."""
    tree = _Rewrite().visit(ast.parse(source))
    allowed = {id(call.args[-1]) for call in ast.walk(tree) if isinstance(call, ast.Call) and call.args}  # f(a, *rest)
    for node in ast.walk(tree):
        _check(node)
        if isinstance(node, ast.Starred) and id(node) not in allowed:
            raise ValueError(f"line {getattr(node, 'lineno', '?')}: unpacking with * outside a call's last argument")
        if isinstance(node, ast.Dict) and None in node.keys:
            raise ValueError(f"line {getattr(node, 'lineno', '?')}: ** inside a dict display")
    text = ast.unparse(ast.fix_missing_locations(tree))
    if "_fullmatch(" in text:
        text += "\n" + FULLMATCH
    if not text.isascii():
        raise ValueError("non-ASCII characters: Python 2 reads source as ASCII")
    return text


def _check(node: ast.AST) -> None:
    if isinstance(node, UNSUPPORTED):
        raise ValueError(f"line {getattr(node, 'lineno', '?')}: {type(node).__name__} has no Python 2.7 equivalent")
    if isinstance(node, ast.arguments) and (node.kwonlyargs or node.posonlyargs):
        raise ValueError("keyword-only or positional-only parameters")
    if isinstance(node, ast.Raise) and node.cause is not None:
        raise ValueError(f"line {node.lineno}: raise ... from")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args:
        raise ValueError(f"line {node.lineno}: super() without arguments")
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        if any(name.split(".")[0] == "foretune" for name in names):
            raise ValueError("imports foretune: the module must stand alone")


class _Rewrite(ast.NodeTransformer):
    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        return None if node.module in ("__future__", "typing") else node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        self.generic_visit(node)
        node.returns = None
        node.decorator_list = [d for d in node.decorator_list if "lru_cache" not in ast.unparse(d)]
        for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs, node.args.vararg, node.args.kwarg]:
            if arg is not None:
                arg.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if node.value is None:
            return None
        return ast.copy_location(ast.Assign(targets=[node.target], value=self.visit(node.value)), node)

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        self.generic_visit(node)
        if not node.bases:
            node.bases = [ast.Name(id="object", ctx=ast.Load())]
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        template, values = [], []
        for part in node.values:
            if isinstance(part, ast.Constant):
                template.append(str(part.value).replace("{", "{{").replace("}", "}}"))
                continue
            assert isinstance(part, ast.FormattedValue)
            field = "{" + ({-1: "", 115: "!s", 114: "!r", 97: "!a"}[part.conversion])
            if part.format_spec is not None:
                spec = part.format_spec
                if not (isinstance(spec, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in spec.values)):
                    raise ValueError(f"line {node.lineno}: computed format spec")
                field += ":" + "".join(str(v.value) for v in spec.values if isinstance(v, ast.Constant))
            template.append(field + "}")
            values.append(self.visit(part.value))
        call = ast.Call(func=ast.Attribute(value=ast.Constant("".join(template)), attr="format", ctx=ast.Load()),
                        args=values, keywords=[])
        return ast.copy_location(call, node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "fullmatch" and not _is_re(func.value):
            if len(node.args) != 1 or node.keywords:
                raise ValueError(f"line {node.lineno}: fullmatch with positions")
            return ast.copy_location(ast.Call(func=ast.Name(id="_fullmatch", ctx=ast.Load()),
                                              args=[func.value, *node.args], keywords=node.keywords), node)
        if isinstance(func, ast.Attribute) and _is_re(func.value) and func.attr in RE_FUNCTIONS:
            unicode = ast.Attribute(value=ast.Name(id="re", ctx=ast.Load()), attr="UNICODE", ctx=ast.Load())
            position = RE_FUNCTIONS[func.attr]
            flags = next((k for k in node.keywords if k.arg == "flags"), None)
            if flags is not None:
                flags.value = ast.BinOp(left=flags.value, op=ast.BitOr(), right=unicode)
            elif len(node.args) > position:
                node.args[position] = ast.BinOp(left=node.args[position], op=ast.BitOr(), right=unicode)
            elif func.attr == "compile":
                node.args.append(unicode)
            else:
                node.keywords.append(ast.keyword(arg="flags", value=unicode))
        return node


def _is_re(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "re"
