"""Notebook code reads as code: few lines per statement, comments above what they explain.

Lines per statement = non-blank source lines of all code cells / their `ast` statement nodes
(every node that is an `ast.stmt`, nested ones included). Run this file as a script to print
the measure per notebook.
"""

import ast
import json
import re
from pathlib import Path

import pytest

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
MAX_LINES_PER_STATEMENT = 1.8
# A line that only closes brackets and then comments: the comment belongs above the statement.
BRACKET_COMMENT = re.compile(r"^\s*[)\]}][)\]},:]*\s*#")


def code_cells(path: Path) -> list[str]:
    """Each code cell's source, an IPython magic line (`%matplotlib inline`) read as `pass`:
    one line, one statement."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    return [re.sub(r"(?m)^[%!].*$", "pass", source) for source in sources]


def measure(path: Path) -> tuple[int, int, list[str]]:
    """(non-blank lines, statements, bracket-comment lines) over a notebook's code cells."""
    lines = statements = 0
    bracket_comments = []
    for source in code_cells(path):
        tree = ast.parse(source)
        statements += sum(isinstance(node, ast.stmt) for node in ast.walk(tree))
        for line in source.splitlines():
            lines += bool(line.strip())
            if BRACKET_COMMENT.match(line):
                bracket_comments.append(line)
    return lines, statements, bracket_comments


def test_the_measure_counts_lines_and_statements():
    """A planted cell: 4 non-blank lines, 2 statements (the `if` and its body), one bracket
    comment."""
    tree = ast.parse("if x:\n\n    y = f(\n        1\n    )  # note\n")
    assert sum(isinstance(n, ast.stmt) for n in ast.walk(tree)) == 2
    assert BRACKET_COMMENT.match("    )  # note") and not BRACKET_COMMENT.match("f(x)  # note")


def test_notebook_code_has_few_lines_per_statement():
    lines = statements = 0
    for path in NOTEBOOKS:
        n_lines, n_statements, _ = measure(path)
        lines, statements = lines + n_lines, statements + n_statements
    assert statements > 0
    assert lines / statements <= MAX_LINES_PER_STATEMENT, (lines, statements)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_comment_after_a_closing_bracket(path: Path):
    assert measure(path)[2] == []


if __name__ == "__main__":
    rows = {path.stem: measure(path) for path in NOTEBOOKS}
    rows["all"] = tuple(sum(r[i] for r in rows.values()) for i in range(2)) + (
        [line for r in rows.values() for line in r[2]],
    )
    for name, (lines, statements, brackets) in rows.items():
        print(
            f"{name:30} {lines / statements:5.2f} lines/statement {len(brackets):4} after brackets"
        )
