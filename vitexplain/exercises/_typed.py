"""A typed answer, read as Python reads it: the one number grammar of both graders.

The site's answer box holds text; the page's grader (``docs/_js/exercises.js``) reads it by this
grammar, and so does :func:`grade_text` here; a browser test pushes one list of typed answers
through both and compares the verdicts.

Grammar: Python's literal syntax (``94_714``, ``0.5``, ``1e-3``, ``True``, tuples, lists, sets)
and small arithmetic on numbers (``+ - * / **``, parentheses, unary minus), read by walking the
tree Python's own parser makes (nothing is evaluated). Any other text stays the text (a str).
Where what a learner means and what Python reads differ, the hint says so: ``94,714`` for a
number is the pair (94, 714) in Python, ``0,5`` the pair (0, 5), and a number of 10**308 or more
is too large (a float that large is infinity).
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from ._rules import MAX_DEPTH, Unusable, ValueSpec, grade_value, normalize

#: Numbers from here on are refused (floats end at 1.8e308).
LIMIT = 10**308

#: Hints of the reading itself; the site gets them from docs/_data/exercises.json.
MESSAGES = {
    "too_large": "your number is too large: no answer here is near 10**308",
    "by_zero": "your answer divides by zero",
    "pair": "{text} reads as {tuple} in Python; write {fix}",
    "not_python": "{text} is not a number in Python (a comma separates items); write {fix}",
    "too_deep": f"your answer is nested more than {MAX_DEPTH} levels deep",  # as normalize says
}

_COMMA_NUMBER = re.compile(r"[+-]?\d+(,\d+)+")
_DECIMAL = re.compile(r"[+-]?(0|[1-9]\d*)")  # a group Python reads as an int (no leading 0)


def comma_hint(spec: ValueSpec, text: str) -> str | None:
    """For a number answer typed with commas (``94,714``, ``0,5``): what Python reads and what
    to write instead; else None. Groups of three after the first are a thousands separator
    (``94,714`` -> 94714), otherwise a decimal comma (``0,5`` -> 0.5)."""
    text = text.strip()
    if spec.kind not in ("int", "number") or not _COMMA_NUMBER.fullmatch(text):
        return None
    sign = text[0] if text[0] in "+-" else ""
    groups = text.lstrip("+-").split(",")
    thousands = groups[0] != "0" and len(groups[0]) <= 3 and {len(g) for g in groups[1:]} == {3}
    if thousands:
        fix = f"{sign}{''.join(groups)} or {sign}{'_'.join(groups)}"
    elif len(groups) == 2:
        fix = f"{sign}{groups[0]}.{groups[1]}"
    else:
        return None
    if not all(_DECIMAL.fullmatch(g) or set(g) == {"0"} for g in groups):
        return MESSAGES["not_python"].format(text=text, fix=fix)  # 4,080: 080 is no int
    items = [int(sign + groups[0])] + [int(g) for g in groups[1:]]
    shown = f"{'a pair' if len(items) == 2 else 'a tuple'} ({', '.join(map(str, items))})"
    return MESSAGES["pair"].format(text=text, tuple=shown, fix=fix)


class _NotAnswer(Exception):
    """Text that is not in the grammar: it stays the text."""


def _checked(number: int | float) -> int | float:
    if isinstance(number, float) and not math.isfinite(number):
        if math.isnan(number):
            raise _NotAnswer  # inf - inf: Python reads it, but no grammar here writes it
        raise Unusable(MESSAGES["too_large"])
    if abs(number) >= LIMIT:
        raise Unusable(MESSAGES["too_large"])
    return number


def _number(node: ast.AST) -> int | float:
    value = _value(node)
    if type(value) not in (bool, int, float):
        raise _NotAnswer  # (1, 2) * 2 and the like: Python's meaning, not a number
    return int(value) if type(value) is bool else value


def _power(base: int | float, exponent: int | float) -> int | float:
    if type(base) is int and type(exponent) is int and exponent > 0 and abs(base) > 1:
        if exponent * math.log10(abs(base)) >= 308:  # too large, and not computed
            raise Unusable(MESSAGES["too_large"])
    try:
        result = base**exponent
    except OverflowError:
        raise Unusable(MESSAGES["too_large"]) from None
    if isinstance(result, complex):
        raise _NotAnswer  # (-8) ** (1/3)
    return result


_OPERATIONS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: _power,
}


def _value(node: ast.AST) -> Any:
    """The value of one node of the grammar (raises _NotAnswer outside it)."""
    if isinstance(node, ast.Constant) and type(node.value) in (bool, int, float):
        return node.value if type(node.value) is bool else _checked(node.value)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        if any(isinstance(item, ast.Starred) for item in node.elts):
            raise _NotAnswer
        items = [_value(item) for item in node.elts]
        if isinstance(node, ast.Set):
            if any(isinstance(item, list | set) for item in items):
                raise _NotAnswer  # unhashable: Python refuses it
            return set(items)
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        number = _number(node.operand)
        return _checked(-number if isinstance(node.op, ast.USub) else +number)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
        left, right = _number(node.left), _number(node.right)
        try:
            return _checked(_OPERATIONS[type(node.op)](left, right))
        except ZeroDivisionError:
            raise Unusable(MESSAGES["by_zero"]) from None
    raise _NotAnswer


def read(text: str, percent: bool = False) -> Any:
    """The value Python reads from a typed answer, in the grammar above; other text as it is.

    Args:
        text: what the learner typed.
        percent: the exercise accepts a percentage, ``6.7%`` (a number followed by ``%``).

    Raises:
        Unusable: a number too large to be an answer, a division by zero (the hint).
    """
    text = text.strip()
    if percent and text.endswith("%"):
        number = read(text[:-1])
        return number / 100 if type(number) in (int, float) else text
    try:
        return _value(ast.parse(text, mode="eval").body)
    except Unusable:  # a ValueError, not text
        raise
    except SyntaxError as error:
        if str(error).startswith("Exceeds the limit"):  # an int of more than 4,300 digits
            raise Unusable(MESSAGES["too_large"]) from None
        return text
    except (ValueError, _NotAnswer):  # ValueError: a null character
        return text
    except RecursionError:
        raise Unusable("your answer is nested too deeply to be read") from None


def grade_text(spec: ValueSpec, text: str) -> str | None:
    """A typed answer graded as the site grades it: None when right, else the hint."""
    if hint := comma_hint(spec, text):
        return hint
    try:
        value = read(text, spec.percent)
        return grade_value(spec, normalize(value), given=value)
    except Unusable as error:
        return str(error)
