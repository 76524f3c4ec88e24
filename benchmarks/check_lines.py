"""How much of the idea code is argument checking: check lines over body lines, by the AST.

The idea functions are the public functions of the idea modules (their ``__all__``) and the
``__init__`` and ``forward`` of their public classes. A function's body is its statements after
the docstring, counted in physical lines (a statement wrapped over three lines counts three). A
check line is a line of:

* an ``if ...:`` block whose body only raises (``if x < 0: raise ValueError(...)``),
* a ``raise`` statement,
* a statement that calls ``check_*`` or ``_args.*`` (``x = _args.patchify(x, patch_size)``),
* a loop whose body holds only check lines (``for t in ts: check_tensor(...)``).

    python benchmarks/check_lines.py            # the share, and the ten heaviest functions
    python benchmarks/check_lines.py --all      # every function

``--statements`` counts a wrapped statement as one line (the guard line as one line of reading).
"""

from __future__ import annotations

import argparse
import ast
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "vitexplain"

#: The modules a learner opens beside a notebook (not the checkers, plotting or the exercises).
IDEA_MODULES = (
    "attention",
    "patches",
    "unfold",
    "position",
    "relative_position",
    "vit",
    "t2t",
    "training",
    "inspection",
    "interpret",
    "learned_position",
    "scramble",
    "data",
    "digits",
    "torch_modules",
    "errata",
)


@dataclass
class Count:
    name: str
    body: int  # lines of the body after the docstring
    checks: int  # of which check lines


def _calls_a_check(node: ast.AST) -> bool:
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id.startswith("check_"):
            return True
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if func.value.id == "_args" or func.attr.startswith("check_"):
                return True
    return False


def is_check(statement: ast.stmt) -> bool:
    """Whether a statement (all its lines) only checks arguments."""
    if isinstance(statement, ast.Raise):
        return True
    if isinstance(statement, ast.If):
        return all(isinstance(s, ast.Raise) for s in statement.body) and not statement.orelse
    if isinstance(statement, ast.Expr | ast.Assign | ast.AnnAssign):
        return _calls_a_check(statement.value)
    if isinstance(statement, ast.For):
        return all(is_check(s) for s in statement.body) and not statement.orelse
    return False


def _lines(statement: ast.stmt, statements: bool) -> int:
    return 1 if statements else statement.end_lineno - statement.lineno + 1


def count(function: ast.FunctionDef, name: str, statements: bool = False) -> Count:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    if not body:
        return Count(name, 0, 0)
    if statements:
        total = sum(1 for _ in _flat(body))
        checks = sum(1 for s in _flat(body) if is_check(s))
        return Count(name, total, checks)
    total = body[-1].end_lineno - body[0].lineno + 1  # blank and comment lines included
    checks = sum(_lines(s, False) for s in _top_checks(body))
    return Count(name, total, checks)


def _top_checks(body: list[ast.stmt]):
    """Check statements of a body, looking inside if/for/with/try blocks that are not checks."""
    for statement in body:
        if is_check(statement):
            yield statement
        else:
            for field in ("body", "orelse", "finalbody"):
                yield from _top_checks(getattr(statement, field, []) or [])
            for handler in getattr(statement, "handlers", []) or []:
                yield from _top_checks(handler.body)


def _flat(body: list[ast.stmt]):
    """Every statement, a check counted once with what it holds."""
    for statement in body:
        yield statement
        if is_check(statement):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(statement, field, []) or []
            if isinstance(statement, ast.FunctionDef | ast.ClassDef):
                inner = []
            yield from _flat(inner)


def _public_names(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return {e.value for e in node.value.elts}
    return set()


def idea_functions(statements: bool = False) -> list[Count]:
    counts = []
    for module in IDEA_MODULES:
        tree = ast.parse((PACKAGE / f"{module}.py").read_text())
        public = _public_names(tree)
        for node in tree.body:
            if node.name if isinstance(node, ast.FunctionDef | ast.ClassDef) else None:
                if node.name not in public:
                    continue
                if isinstance(node, ast.FunctionDef):
                    counts.append(count(node, f"{module}.{node.name}", statements))
                    continue
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name in ("__init__", "forward"):
                        name = f"{module}.{node.name}.{item.name}"
                        counts.append(count(item, name, statements))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every function")
    parser.add_argument("--statements", action="store_true", help="a statement counts one line")
    args = parser.parse_args()
    counts = idea_functions(args.statements)
    body = sum(c.body for c in counts)
    checks = sum(c.checks for c in counts)
    unit = "statements" if args.statements else "physical lines"
    print(
        f"{len(counts)} idea functions in {len(IDEA_MODULES)} modules: {checks} check lines of "
        f"{body} body lines = {100 * checks / body:.1f} % ({unit})"
    )
    shown = sorted(counts, key=lambda c: (-c.checks, c.name))
    for c in shown if args.all else shown[:10]:
        print(f"  {c.checks:3d} / {c.body:3d}  {c.name}")


if __name__ == "__main__":
    main()
