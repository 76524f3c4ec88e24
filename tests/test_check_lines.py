"""benchmarks/check_lines.py: check lines stay under 15 % of the idea functions' bodies."""

import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import check_lines  # noqa: E402

EXAMPLE = '''
def f(x, n):
    """Docstring."""
    x, n = _args.f(x, n)
    if n > 3:
        raise ValueError(
            "n"
        )
    for t in (x,):
        check_tensor("t", t)
    y = x * n  # the idea
    return y
'''


def test_a_check_is_an_if_raise_a_guard_call_or_a_checking_loop():
    function = ast.parse(EXAMPLE).body[0]
    lines = check_lines.count(function, "f")
    assert (lines.checks, lines.body) == (1 + 4 + 2, 9)  # guard, wrapped if-raise, loop
    statements = check_lines.count(function, "f", statements=True)
    assert (statements.checks, statements.body) == (3, 5)


def test_the_idea_functions_are_under_15_percent_checks():
    counts = check_lines.idea_functions()
    assert len(counts) > 90
    share = sum(c.checks for c in counts) / sum(c.body for c in counts)
    assert share < 0.15, f"{share:.1%} of the idea functions' body lines are checks"
