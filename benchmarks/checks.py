"""How much of the package is argument checking, and how its modules import each other.

    .venv/bin/python benchmarks/checks.py

(a) Lines of argument-checking code, found by the AST, per module and in total. A line counts
(once) when it lies in:

* an ``if`` whose body is only ``raise`` statements of ``ValueError`` or ``TypeError`` (from the
  ``if`` line to the end of the body; an ``elif``/``else`` is not counted);
* a function whose name starts with ``check``, ``_check``, ``_assert`` or ``_require`` (its whole
  definition, decorators included);
* a module that exists only to check: one named ``_args`` or ``_checks`` (all its lines).

(b) The import graph of ``vitexplain``, every ``import`` and ``from ... import`` of a module of
the package, lazy ones inside functions included, by layer: the checking modules
``vitexplain._args`` and ``vitexplain._checks`` at the bottom (0), then the idea modules (the
other ``vitexplain/*.py``, 1), ``plotting`` (2), ``explore`` (3), ``exercises`` (4), the package's
``__init__`` on top (5). An upward import goes from a lower layer to a higher one; a circle is a
set of modules that reach each other through their imports.

The budget (issue 36): at most 600 lines of checking code, no circle, no upward import. The
script exits with 1 when a circle or an upward import exists.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "vitexplain"
BUDGET = 600
CHECK_PREFIXES = ("check", "_check", "_assert", "_require")
CHECK_MODULES = ("_args", "_checks")
LAYERS = ("checks", "idea modules", "plotting", "explore", "exercises", "package")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) == 1:
        return 5  # vitexplain/__init__.py
    return {"_args": 0, "_checks": 0, "plotting": 2, "explore": 3, "exercises": 4}.get(parts[1], 1)


def _raises_value_or_type_error(statement: ast.stmt) -> bool:
    if not isinstance(statement, ast.Raise) or statement.exc is None:
        return False
    exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
    return isinstance(exc, ast.Name) and exc.id in ("ValueError", "TypeError")


def check_lines(tree: ast.Module) -> set[int]:
    """The line numbers of checking code in one module (see the module's docstring)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and all(map(_raises_value_or_type_error, node.body)):
            lines.update(range(node.lineno, node.body[-1].end_lineno + 1))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            CHECK_PREFIXES
        ):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            lines.update(range(first, node.end_lineno + 1))
    return lines


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that module ``name`` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = ".".join(base[: len(base) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            # `from . import patches` names a module; `from .patches import patchify` a name in one
            targets = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in known]
            targets = targets or [source]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main() -> int:
    paths = modules()
    print("(a) argument-checking lines (if-raise of ValueError/TypeError, check*/_assert*/")
    print("    _require* functions, whole _args/_checks modules)")
    total = 0
    for name, path in paths.items():
        text = path.read_text()
        count = (
            len(text.splitlines())
            if name.rsplit(".", 1)[-1] in CHECK_MODULES
            else len(check_lines(ast.parse(text)))
        )
        if count:
            print(f"    {count:5d}  {name}")
        total += count
    verdict = "within" if total <= BUDGET else "over"
    print(f"    {total:5d}  in total ({verdict} the budget of {BUDGET})")

    graph = {name: imports(name, path, set(paths)) for name, path in paths.items()}
    print("\n(b) import graph by layer")
    for number, title in enumerate(LAYERS):
        print(f"  {number} {title}")
        for name in sorted(n for n in graph if layer(n) == number):
            targets = ", ".join(sorted(graph[name])) or "-"
            print(f"      {name} -> {targets}")
    found = circles(graph)
    upward = sorted((a, b) for a in graph for b in graph[a] if layer(b) > layer(a))
    print(f"\n  circles: {len(found)}")
    for component in found:
        print(f"    {len(component)} modules: {', '.join(component)}")
    print(f"  upward imports: {len(upward)}")
    for a, b in upward:
        print(f"    {a} ({LAYERS[layer(a)]}) -> {b} ({LAYERS[layer(b)]})")
    return 1 if found or upward else 0


if __name__ == "__main__":
    sys.exit(main())
