"""The grading rules, at the bottom of the grading layer: what an exercise is, one form for an
answer, closeness, one way to describe a value, and the declarative value specs.

A value exercise (a number, an int, True/False, a tuple of ints, a set of indices) is graded by
a :class:`ValueSpec`: its answer, tolerance, accepted forms and hints, written as plain data. The
same spec, exported to JSON (:meth:`ValueSpec.to_json`), is what the site's in-page grader
(``docs/_js/exercises.js``) reads, so the two graders share one set of rules; a browser test
pushes the same answers through both. Nothing here computes a reference at check time: the
answer is shipped in the spec and a test recomputes it from the worked solution.
"""

from __future__ import annotations

import dis
import math
import numbers
import reprlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from types import CodeType
from typing import Any

import numpy as np
import torch

#: Collections longer than this are not expanded (``range(10**7)`` is judged as it is).
MAX_ITEMS = 64
#: Lists nested deeper than this are refused (a self-referencing list included).
MAX_DEPTH = 8


@dataclass(frozen=True)
class Rule:
    """A hint for a wrong answer, given when every condition that is set holds.

    Args:
        hint: the text; ``{answer}`` is replaced by the learner's answer.
        equals: the answer equals this (numbers within ``tol``; sets as sets).
        tol: absolute tolerance of ``equals`` for numbers.
        low, high: the answer lies in ``[low, high]`` (either end may be open: None) ...
        outside: ... or, when True, outside it.
        item: (a tuple answer) its item ``item`` differs from the right one.
    """

    hint: str
    equals: Any = None
    tol: float = 0.0
    low: float | None = None
    high: float | None = None
    outside: bool = False
    item: int | None = None


@dataclass(frozen=True)
class ValueSpec:
    """How a value answer is graded: the same data drives Python and the site.

    Args:
        kind: ``"number"``, ``"int"``, ``"bool"``, ``"int_tuple"`` or ``"int_set"``.
        answer: the right answer (a tuple for int_tuple, a sorted tuple for int_set).
        expects: what a right answer is, for the hint on a wrong type: "an int".
        default: the hint when no rule matches.
        rules: hints for known slips, tried in order.
        tol, rel: (number) absolute and relative tolerance around ``answer``.
        accepted: (number) other values that are right too (the answer rounded as allowed).
        percent: (number) the site also accepts a percentage, ``6.7%``.
        pairs: (int_tuple) an item may be a pair of equal ints, as nn.Unfold takes them.
        grid: (int_set of patch numbers) ``(rows, cols)``: the site also shows the patches as a
            grid of toggle buttons, numbered 1 to rows * cols in raster order as the series
            numbers patches; pressing them writes the list into the text box, graded as typed.
    """

    kind: str
    answer: Any
    expects: str
    default: str
    rules: tuple[Rule, ...] = ()
    tol: float = 0.0
    rel: float = 0.0
    accepted: tuple[float, ...] = ()
    percent: bool = False
    pairs: bool = False
    grid: tuple[int, int] | None = None

    def to_json(self) -> dict[str, Any]:
        """The spec as JSON data, for the site's grader (``grid`` only when it is set)."""
        data = asdict(self)
        if self.grid is None:
            del data["grid"]
        data["answer"] = list(self.answer) if isinstance(self.answer, tuple) else self.answer
        for rule in data["rules"]:
            if isinstance(rule["equals"], tuple):
                rule["equals"] = list(rule["equals"])
        return data


@dataclass(frozen=True)
class Exercise:
    """One exercise. Its statement is the notebook's Markdown cell above the answer cell.

    Args:
        id: ``"NN.k"``: notebook NN, exercise k (1-based), as the notebook names it.
        grade: a :class:`ValueSpec` for a value answer; for a function answer, a grader that
            takes the learner's function (called as the runtime runs it) and returns None when
            it is right, else a hint that does not give the solution away.
        solution: returns the reference answer (worked; read its source after trying).
        wrong: returns an obviously wrong answer, which the grader must reject.
        why: the explanation shown beside the worked solution (one or two sentences).
        asks: for a function exercise, the signature the task asks for, ``"f(x, y)"``.
        returns: for a function exercise, what the function returns as the grader compares it:
            ``torch.Tensor``, ``np.ndarray`` (either is accepted and converted) or ``int``.
        forbids: dotted paths of helpers (functions, classes or whole modules) the task says
            not to call; a right function that calls one is told so.
    """

    id: str
    grade: ValueSpec | Callable[[Any], str | None]
    solution: Callable[[], Any]
    wrong: Callable[[], Any]
    why: str
    asks: str = ""
    returns: type | None = None
    forbids: tuple[str, ...] = field(default=())


# --- one describer ---------------------------------------------------------------------------

_REPR = reprlib.Repr()
_REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxtuple = 40, 40, 6, 6
_REPR.maxlong = 40


def _a(noun: str) -> str:
    vowel = noun[:1].lower() in "aeiou" or noun.startswith("nd")  # "an ndarray"
    return ("an " if vowel else "a ") + noun


def _scalar_repr(value: Any) -> str:
    if type(value) is int and value.bit_length() > 128:
        return f"about {int(value.bit_length() * math.log10(2)) + 1} digits"
    return _REPR.repr(value)


def describe(value: Any) -> str:
    """What a value is, in one short line for a hint: ``"a str ('abc')"``, ``"an int (5)"``,
    ``"a tuple (196, 768)"``, ``"a tensor of shape (2,), dtype torch.float32"``."""
    if isinstance(value, torch.Tensor | np.ndarray):
        where = f" on {value.device}" if isinstance(value, torch.Tensor) and value.is_meta else ""
        name = "tensor" if isinstance(value, torch.Tensor) else type(value).__name__
        return f"{_a(name)} of shape {tuple(value.shape)}, dtype {value.dtype}{where}"
    if value is None:
        return "None"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    if isinstance(value, bool | int | float | str):
        return f"{_a(type(value).__name__)} ({_scalar_repr(value)})"
    if isinstance(value, frozenset | set) and all(type(v) is int for v in value):
        items = ", ".join(_scalar_repr(v) for v in sorted(value)[:6])
        return f"a set ({{{items}{', ...' if len(value) > 6 else ''}}})"
    if isinstance(value, tuple | list) and value and len(value) <= MAX_ITEMS:
        if all(type(v) in (int, float, bool) for v in value):
            return f"{_a(type(value).__name__)} {_REPR.repr(tuple(value))}"
        kinds = sorted({type(v).__name__ for v in value})
        return f"{_a(type(value).__name__)} of {len(value)} items ({', '.join(kinds)})"
    if callable(value):
        return f"a function ({getattr(value, '__name__', type(value).__name__)})"
    if isinstance(value, range):
        return f"a range of {len(value)} items"
    return _a(type(value).__name__)


# --- one form for an answer ------------------------------------------------------------------


class Unusable(ValueError):
    """An answer no grader can use; the message is the hint."""


NOT_FINITE = "your answer holds NaN or infinity, which is never right."


def _number(value: Any) -> Any:
    """An exact Python bool, int or float for any scalar (int subclasses converted first)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int.__int__(int(value)) if isinstance(value, np.integer) else int.__int__(value)
    if isinstance(value, float | np.floating):
        number = float.__float__(float(value))
    elif isinstance(value, numbers.Real):  # Fraction, Decimal
        number = float(value)
    else:
        return value
    if not math.isfinite(number):
        raise Unusable(NOT_FINITE)
    return number


def normalize(answer: Any, depth: int = 0) -> Any:
    """One form for the many ways a right value can be written.

    Scalars (Python, NumPy, torch, Fraction) become exact Python bool, int or float; tensors
    and arrays of at most :data:`MAX_ITEMS` entries become numbers (one entry) or nested tuples;
    ranges, lists and tuples of at most :data:`MAX_ITEMS` items become tuples, sets frozensets
    (items normalized). Anything else is returned as it is.

    Raises:
        Unusable: NaN or infinity, a meta tensor, a list nested more than MAX_DEPTH deep.
    """
    if depth > MAX_DEPTH:
        raise Unusable(f"your answer is nested more than {MAX_DEPTH} levels deep")
    if isinstance(answer, torch.Tensor):
        if answer.is_meta:
            raise Unusable("a tensor on the meta device holds no values: compute it on the CPU")
        if answer.numel() > MAX_ITEMS or answer.is_complex():
            return answer
        return normalize(torch.Tensor.tolist(torch.Tensor.detach(answer)))  # [[5]] reads as 5
    if isinstance(answer, np.ndarray):
        if answer.size > MAX_ITEMS or answer.dtype.kind not in "biuf":
            return answer
        return normalize(answer.tolist())
    if isinstance(answer, numbers.Number | np.generic) and not isinstance(answer, complex):
        return _number(answer)
    if isinstance(answer, range | list | tuple) and len(answer) <= MAX_ITEMS:
        items = tuple(normalize(a, depth + 1) for a in tuple.__iter__(tuple(answer)))
        return items[0] if len(items) == 1 and isinstance(answer, list | tuple) else items
    if isinstance(answer, set | frozenset) and len(answer) <= MAX_ITEMS:
        return frozenset(normalize(a, depth + 1) for a in answer)
    return answer


def as_int(answer: Any) -> int | None:
    """A normalized answer as an int (an int, or a float with a whole value), else None."""
    if type(answer) is int:
        return answer
    if type(answer) is float and answer.is_integer():
        return int(answer)
    return None


def as_number(answer: Any) -> float | None:
    """A normalized answer as a finite float (an int or a float, not a bool), else None."""
    if type(answer) not in (int, float):
        return None
    try:
        return float(answer)
    except OverflowError:  # an int beyond float's range
        return None


# --- closeness -------------------------------------------------------------------------------

# (rtol, atol) by the less precise dtype of the two: float64 and exact ints, float32, float16,
# bfloat16 (8 bits of mantissa: a result rounded to it is off by up to 0.4 %, more after sums).
_TOLERANCE = {64: (1e-7, 1e-8), 32: (1e-4, 1e-5), 16: (1e-2, 2e-3), 8: (5e-2, 1e-2)}


def _bits(dtype: torch.dtype) -> int:
    if not dtype.is_floating_point:
        return 64  # integers and bools are exact
    if dtype == torch.bfloat16:
        return 8
    return min(64, torch.finfo(dtype).bits)


def _plain(value: Any) -> torch.Tensor:
    """A plain CPU tensor of the numbers (subclasses and their overrides left behind)."""
    if isinstance(value, torch.Tensor):
        with torch._C.DisableTorchFunctionSubclass():
            return value.detach().cpu().as_subclass(torch.Tensor)
    return torch.as_tensor(np.asarray(value), device="cpu")


def close(result: Any, expected: Any) -> bool:
    """Whether a learner's numbers match the reference, with the tolerance of their precision.

    The tolerance follows the less precise of the two: both in float64, about 1e-8; float32
    about 1e-5 relative; float16 1e-2; bfloat16 5e-2. Shapes must agree; NaN never matches.
    """
    result, expected = _plain(result), _plain(expected)
    if result.shape != expected.shape:
        return False
    rtol, atol = _TOLERANCE[min(_bits(result.dtype), _bits(expected.dtype))]
    return bool(torch.allclose(result.double(), expected.double(), rtol=rtol, atol=atol))


# --- grading a value by its spec ---------------------------------------------------------------


def _unpair(item: Any) -> Any:
    """A pair of equal ints (nn.Unfold's (height, width) form) as one int."""
    if isinstance(item, tuple) and len(item) == 2 and item[0] == item[1]:
        return item[0]
    return item


def parse(spec: ValueSpec, answer: Any) -> Any:
    """The normalized answer in the spec's kind (an int, a float, a bool, a tuple of ints, a
    frozenset of ints), or None when it is not of that kind."""
    if spec.kind == "bool":
        return answer if type(answer) is bool else None
    if spec.kind == "int":
        return as_int(answer)
    if spec.kind == "number":
        return as_number(answer)
    if spec.kind == "int_set":
        items = answer if isinstance(answer, tuple | frozenset) else (answer,)
        ints = [as_int(i) for i in items]
        return None if None in ints else frozenset(ints)
    if spec.kind == "int_tuple":
        if not isinstance(answer, tuple) or len(answer) != len(spec.answer):
            return None
        items = tuple(_unpair(i) if spec.pairs else i for i in answer)
        ints = tuple(as_int(i) for i in items)
        return None if None in ints else ints
    raise ValueError(f"unknown kind {spec.kind!r}")


def _equal(spec: ValueSpec, value: Any, target: Any, tol: float) -> bool:
    if spec.kind == "number":
        return abs(value - target) <= tol
    if spec.kind == "int_set":
        return value == frozenset(target)
    return value == target


def is_right(spec: ValueSpec, value: Any) -> bool:
    """Whether a parsed answer is right."""
    if spec.kind != "number":
        return _equal(spec, value, spec.answer, 0)
    if abs(value - spec.answer) <= spec.tol + spec.rel * abs(spec.answer):
        return True
    return any(abs(value - other) <= 1e-12 for other in spec.accepted)


def _matches(spec: ValueSpec, rule: Rule, value: Any) -> bool:
    if rule.equals is not None and not _equal(spec, value, rule.equals, rule.tol):
        return False
    if rule.low is not None or rule.high is not None:
        inside = (rule.low is None or value >= rule.low) and (
            rule.high is None or value <= rule.high
        )
        if inside == rule.outside:
            return False
    return rule.item is None or value[rule.item] != spec.answer[rule.item]


def grade_value(spec: ValueSpec, answer: Any, given: Any = None) -> str | None:
    """None when a normalized answer is right by the spec, else the hint (a wrong type is
    named as the learner ``given`` it, if passed)."""
    value = parse(spec, answer)
    if value is None:
        return f"expected {spec.expects}, got {describe(answer if given is None else given)}"
    if is_right(spec, value):
        return None
    for rule in spec.rules:
        if _matches(spec, rule, value):
            return rule.hint.replace("{answer}", _scalar_repr(value))
    return spec.default


def rounded(value: float, first: int, last: int = 6) -> tuple[float, ...]:
    """``value`` rounded to ``first`` ... ``last`` decimals: the rounded forms a task allows."""
    return tuple(sorted({round(value, d) for d in range(first, last + 1)}))


# --- a function answer: filled in? its result in one plain form -----------------------------

#: What a function answer must return, as the hints name it.
EXPECTED: dict[type, str] = {
    torch.Tensor: "a tensor (a NumPy array is fine too)",
    np.ndarray: "a NumPy array (a tensor is fine too)",
    int: "an int",
}


class LearnerError(Exception):
    """The learner's function failed: it raised, ran out of time, returned the wrong type, or
    ended its process. The message is the hint."""


def is_unfilled(function: Callable[..., Any]) -> bool:
    """Whether a function's body is still only ``...`` or ``pass`` (a docstring aside)."""
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType):
        return False
    ops = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP")]
    if len(ops) == 1 and ops[0].opname == "RETURN_CONST":  # Python 3.12+
        return ops[0].argval is None or ops[0].argval is Ellipsis
    return (
        len(ops) == 2
        and ops[0].opname == "LOAD_CONST"
        and (ops[0].argval is None or ops[0].argval is Ellipsis)
        and ops[1].opname == "RETURN_VALUE"
    )


def _array(result: Any) -> np.ndarray:
    """A plain NumPy array of numbers, or LearnerError (in the worker)."""
    if isinstance(result, torch.Tensor):
        if result.is_meta:
            raise LearnerError("your function returned a tensor on the meta device: no values")
        with torch._C.DisableTorchFunctionSubclass():
            tensor = result.detach().cpu().as_subclass(torch.Tensor)
        result = (tensor.float() if tensor.dtype == torch.bfloat16 else tensor).numpy()
        keep = str(tensor.dtype).removeprefix("torch.")  # bfloat16 keeps its tolerance
        return np.array(result, dtype=result.dtype), keep
    array = np.array(result)
    if array.dtype.kind not in "biuf":
        raise ValueError
    return array, str(array.dtype)


def coerce(result: Any, returns: type) -> Any:
    """The function's result as plain data (in the worker): a Python int, or (array, dtype name)
    for a tensor or array; else LearnerError with the hint."""
    if result is None:
        raise LearnerError("your function returned None: is a `return` missing?")
    wrong = LearnerError(f"your function returned {describe(result)}; expected {EXPECTED[returns]}")
    if returns is int:
        try:
            value = normalize(result)
        except Unusable as error:
            raise LearnerError(f"your function returned {describe(result)}: {error}") from None
        if type(value) is float and value.is_integer():
            value = int(value)
        if type(value) is not int:
            raise wrong
        return value
    if isinstance(result, tuple | list) and any(
        isinstance(item, torch.Tensor | np.ndarray) and item.ndim > 0 for item in result
    ):
        raise LearnerError(
            f"your function returned {describe(result)}; return only {EXPECTED[returns]}, "
            "not a tuple or list of them"
        )
    if not isinstance(result, torch.Tensor | np.ndarray | list | tuple):
        raise wrong
    try:
        return _array(result)
    except (TypeError, ValueError, RuntimeError):
        raise wrong from None


# --- a choice: one of a few lettered options (predictions) ---------------------------------


@dataclass(frozen=True)
class ChoiceSpec:
    """How a multiple-choice answer is graded, by Python and by the site alike.

    Args:
        answer: the right option's letter, ``"b"``.
        options: the options' texts, lettered ``a``, ``b``, ... in this order.
        default: the hint when no rule matches.
        rules: hints for known wrong options (``Rule(hint, equals="a")``), tried in order.
    """

    answer: str
    options: tuple[str, ...]
    default: str
    rules: tuple[Rule, ...] = ()
    kind: str = "choice"

    @property
    def letters(self) -> tuple[str, ...]:
        return tuple("abcdefgh"[: len(self.options)])

    @property
    def expects(self) -> str:
        return "one of the letters " + ", ".join(f"'{c}'" for c in self.letters)

    def to_json(self) -> dict[str, Any]:
        """The spec as JSON data, for the site's grader."""
        data = asdict(self)
        data["options"] = list(self.options)
        data["expects"] = self.expects
        return data


def grade_choice(spec: ChoiceSpec, answer: Any) -> str | None:
    """None when ``answer`` names the right option (``"b"``, ``"B"``, ``"(b)"``), else the
    hint of the rule for that option, or the default; a wrong type or letter is named."""
    letter = answer.strip().strip("().").strip().lower() if isinstance(answer, str) else None
    if letter not in spec.letters:
        return f"expected {spec.expects}, got {describe(answer)}"
    if letter == spec.answer:
        return None
    for rule in spec.rules:
        if rule.equals == letter:
            return rule.hint.replace("{answer}", repr(letter))
    return spec.default
