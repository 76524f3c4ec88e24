"""Exercises that check themselves, offline: ``vx.exercises.check("05.1", answer)``.

Every notebook ends with a few exercises. The learner writes an answer in the empty cell under
each one (a number, a pair, a tensor, or a function) and calls :func:`check`, which prints whether
it is right and, when it is not, a hint -- never the solution. :func:`solution` shows the worked
answer (the source of a function), once you have tried.

One grading layer serves every exercise. Before a grader sees an answer, :func:`normalize` turns
NumPy and torch scalars and one-element arrays and tensors into Python numbers, and ranges,
lists, sets, short 1-D arrays and tensors into tuples (sets into frozensets), so every natural
form of a right answer is accepted; NaN and infinity are never right. A function answer is graded
in a forked child process (on Linux; see ``_run``), which is killed as soon as one call of the
function passes :data:`ANSWER_TIME_LIMIT` seconds, so nothing the function catches or loops in
can hang the checker; each call gets fresh copies of its inputs, and its result is brought to the
one form the grader compares (a tensor, an array, or a number: a NumPy array is as good as a
tensor). A function
that raises, runs out of time or returns the wrong type gets a hint that says so; an exception
raised by a grader is reported as the checker's. A function whose body is still ``...`` is not
an answer yet; a right function that calls a helper the task forbids is told so.

Writing an exercise: add an :class:`Exercise` to the list ``EXERCISES`` of the notebook's module
``nbNN.py`` (registered in ``_NOTEBOOK_MODULES``). Its ``grade`` takes the normalized answer and
returns None when it is right, else a hint that points to the idea without the number; echo an
answer with :func:`short`. It carries its reference ``solution`` and an obviously ``wrong``
answer; the tests run both through the grader, so no exercise can be unsolvable or mis-graded.
A function exercise names the type its function ``returns`` and the helpers it ``forbids``.
"""

from __future__ import annotations

import importlib
import inspect
import math
import reprlib
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from ._run import LearnerFunction, grade_function, is_unfilled

__all__ = [
    "ANSWER_TIME_LIMIT",
    "Exercise",
    "check",
    "close",
    "exercise",
    "exercises",
    "grade",
    "normalize",
    "short",
    "solution",
]

#: Seconds a function answer may run per call before the checker stops it.
ANSWER_TIME_LIMIT = 10.0

#: What check() prints for an answer cell still holding ``...`` (the notebooks store it).
NO_ANSWER = "no answer yet: replace ... with yours and run the cell again."
#: ... and for a function whose body is still ``...``.
NO_FUNCTION = "no answer yet: fill in the function, run the cell again."

# One module per notebook; each defines EXERCISES: list[Exercise].
_NOTEBOOK_MODULES: tuple[str, ...] = tuple(f"nb{n:02d}" for n in range(1, 9))


@dataclass(frozen=True)
class Exercise:
    """One exercise: its statement, a grader, and two answers for the tests.

    Args:
        id: ``"NN.k"``: notebook NN, exercise k (1-based), as the notebook names it.
        task: the statement, one short paragraph (the notebook shows it in Markdown).
        grade: takes the learner's answer, normalized (:func:`normalize`); returns None when it
            is right, else a hint that does not give the solution away. If it raises, the
            checker reports its own failure, not the learner's.
        solution: returns the reference answer (worked; read its source after trying).
        wrong: returns an obviously wrong answer, which ``grade`` must reject.
        returns: for an exercise that asks for a function, what the function returns, as the
            grader compares it: ``torch.Tensor``, ``np.ndarray`` (either is accepted and
            converted) or ``int``; None for an exercise that asks for a value.
        forbids: dotted paths of helpers the task says not to call (e.g.
            ``"vitexplain.unfold.fold_tokens"``); a right function that calls one is told so.
    """

    id: str
    task: str
    grade: Callable[[Any], str | None]
    solution: Callable[[], Any]
    wrong: Callable[[], Any]
    returns: type | None = None
    forbids: tuple[str, ...] = ()


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxtuple = 40, 40, 6, 6


def short(value: Any) -> str:
    """A repr of at most a short line, to echo an answer in a hint."""
    if isinstance(value, torch.Tensor | np.ndarray):
        return f"{type(value).__name__} of shape {tuple(value.shape)}, dtype {value.dtype}"
    if isinstance(value, LearnerFunction):
        return repr(value)
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return f"a function ({value.__name__})"
    text = _SHORT.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# Precision levels of dtypes: 2 float64 (and exact integers), 1 float32, 0 16-bit floats.
_TOLERANCE = {2: (1e-7, 1e-8), 1: (1e-4, 1e-5), 0: (1e-2, 1e-3)}


def _precision(dtype: torch.dtype) -> int:
    if not dtype.is_floating_point and not dtype.is_complex:
        return 2  # integers and bools are exact
    bits = torch.finfo(dtype).bits
    return 2 if bits >= 64 else 1 if bits >= 32 else 0


def close(result: Any, expected: Any) -> bool:
    """Whether a learner's numbers match the reference, with the tolerance of their precision.

    The tolerance follows the less precise of the two: both in float64, they must match to
    about 1e-8; if either is float32, to about 1e-5 relative (1e-3 for 16-bit floats). Shapes
    must agree; NaN never matches.
    """
    result = torch.as_tensor(np.asarray(result) if not isinstance(result, torch.Tensor) else result)
    expected = torch.as_tensor(
        np.asarray(expected) if not isinstance(expected, torch.Tensor) else expected
    )
    if result.shape != expected.shape:
        return False
    rtol, atol = _TOLERANCE[min(_precision(result.dtype), _precision(expected.dtype))]
    return bool(torch.allclose(result.double(), expected.double(), rtol=rtol, atol=atol))


class _NotFinite(ValueError):
    pass


def _scalar(value: Any) -> Any:
    """Python bool, int or float for a NumPy or torch scalar or a one-element array or tensor."""
    if isinstance(value, torch.Tensor | np.ndarray | np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotFinite
    return value


def normalize(answer: Any) -> Any:
    """One form for the many ways a right answer can be written.

    NumPy and torch scalars and arrays and tensors of one element (0-d, or of shape (1,),
    (1, 1), ...) become Python bool, int or float; ranges, lists and tuples become tuples and
    sets become frozensets (their items normalized); 1-D arrays and tensors of at most 8
    entries become tuples of Python numbers (a pair or a triple given as an array). Anything
    else, a function included, is returned as it is.

    Raises:
        ValueError: the answer holds NaN or infinity, which is never right.
    """
    if isinstance(answer, torch.Tensor | np.ndarray):
        size = answer.size if isinstance(answer, np.ndarray) else answer.numel()
        if size == 1:  # 0-d, or (1,), (1, 1), ...: a number
            return _scalar(answer)
        if answer.ndim == 1 and answer.shape[0] <= 8:
            return tuple(_scalar(a) for a in answer)
        return answer
    if isinstance(answer, np.generic | float):
        return _scalar(answer)
    if isinstance(answer, range | list | tuple):
        return tuple(normalize(a) for a in answer)
    if isinstance(answer, set | frozenset):
        return frozenset(normalize(a) for a in answer)
    return answer


def as_int(answer: Any) -> int | None:
    """A normalized answer as an int (an int, or a float with a whole value), else None."""
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int):
        return answer
    if isinstance(answer, float) and answer.is_integer():
        return int(answer)
    return None


def as_number(answer: Any) -> float | None:
    """A normalized answer as a float (an int or a float, not a bool), else None."""
    if isinstance(answer, bool) or not isinstance(answer, int | float):
        return None
    return float(answer)


def exercises() -> dict[str, Exercise]:
    """All exercises of the series, by id, in notebook order."""
    found: dict[str, Exercise] = {}
    for name in _NOTEBOOK_MODULES:
        try:
            module = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
            continue
        for item in module.EXERCISES:
            if item.id in found:
                raise RuntimeError(f"exercise id {item.id!r} is defined twice")
            found[item.id] = item
    return found


def exercise(exercise_id: str) -> Exercise:
    """The exercise with this id, e.g. ``"05.1"``."""
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a str such as '05.1', got {exercise_id!r}")
    table = exercises()
    if exercise_id not in table:
        raise ValueError(f"no exercise {exercise_id!r}; there are {', '.join(table)}")
    return table[exercise_id]


class _Shown:
    """A reference function that displays as its source code, and still runs."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return textwrap.dedent(inspect.getsource(self.function)).rstrip()


def solution(exercise_id: str) -> Any:
    """The reference answer of an exercise (try first: :func:`check` gives hints).

    A function answer is returned as a callable that displays as its source code.
    """
    answer = exercise(exercise_id).solution()
    return _Shown(answer) if callable(answer) else answer


def grade(exercise_id: str, answer: Any) -> str | None:
    """The verdict without printing: None when the answer is right, else the hint.

    Args:
        exercise_id: e.g. ``"05.1"``.
        answer: a value or a function, as the exercise asks; ``...`` means not answered yet.

    Returns:
        None for a right answer, else one line: a hint, "no answer yet: ..." for ``...`` or a
        function whose body is still ``...``, or "right -- and now without ..." for a right
        function that calls a helper the task forbids.
    """
    item = exercise(exercise_id)
    if answer is Ellipsis:
        return NO_ANSWER
    if item.returns is not None and callable(answer) and not isinstance(answer, type):
        if is_unfilled(answer):
            return NO_FUNCTION
        learner = LearnerFunction(answer, item.returns, item.forbids, ANSWER_TIME_LIMIT)
        kind, hint = grade_function(item.grade, learner)
        if kind == "hint" and hint is None and learner.used is not None:
            return f"right \N{EM DASH} and now without {learner.used}, as the task asks."
    else:
        try:
            answer = normalize(answer)
        except _NotFinite:
            return "your answer holds NaN or infinity, which is never right."
        try:
            kind, hint = "hint", item.grade(answer)
        except Exception as error:
            kind, hint = "bug", f"{type(error).__name__}: {error}"
    if kind == "bug":  # the grader failed: say so, do not blame the learner
        message = textwrap.shorten(hint, 160)
        return (
            f"the checker could not use this answer ({message}). Check that it has the form the "
            "task asks for; if it does, the checker has a bug: please report it."
        )
    return hint


def check(exercise_id: str, answer: Any) -> None:
    """Grade an answer and print the verdict: "right", or "not yet" with a hint.

    Prints one line and returns nothing, so an answer cell shows only that line. Use
    :func:`grade` to get the verdict as a value.

    Args:
        exercise_id: e.g. ``"05.1"``.
        answer: a value or a function, as the exercise asks. ``...`` (Ellipsis), the placeholder
            the notebooks store in the answer cells, means "not answered yet"; so does a function
            whose body is still ``...``.
    """
    hint = grade(exercise_id, answer)
    if hint is None:
        print(f"Exercise {exercise_id}: right.")
    elif hint in (NO_ANSWER, NO_FUNCTION) or hint.startswith("right \N{EM DASH}"):
        print(f"Exercise {exercise_id}: {hint}")
    else:
        print(f"Exercise {exercise_id}: not yet. Hint: {hint}")
