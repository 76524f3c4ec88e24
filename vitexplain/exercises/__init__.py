"""Exercises that check themselves, offline: ``vx.exercises.check("05.1", answer)``.

Every notebook ends with a few exercises. The learner writes an answer in the empty cell under
each one (a number, a pair, a tensor, or a function) and calls :func:`check`, which prints whether
it is right and, when it is not, a hint -- never the solution. :func:`solution` shows the worked
answer (the source of a function), once you have tried.

One grading layer serves every exercise. Before a grader sees an answer, :func:`normalize` turns
NumPy and torch scalars and 0-d tensors into Python ones, and ranges, lists, short 1-D arrays and
tensors into tuples, so every natural form of a right answer is accepted; NaN and infinity are
never right. A function answer is wrapped: each call gets fresh copies of its inputs (a function
that changes them in place is graded on what it returns) and stops after
:data:`ANSWER_TIME_LIMIT` seconds. An exception raised by the learner's function is reported as
such; one raised by a grader is reported as the checker's.

Writing an exercise: add an :class:`Exercise` to the list ``EXERCISES`` of the notebook's module
``nbNN.py`` (registered in ``_NOTEBOOK_MODULES``). Its ``grade`` takes the normalized answer and
returns None when it is right, else a hint that points to the idea without the number; echo an
answer with :func:`short`. It carries its reference ``solution`` and an obviously ``wrong``
answer; the tests run both through the grader, so no exercise can be unsolvable or mis-graded.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import math
import reprlib
import signal
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

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
    """

    id: str
    task: str
    grade: Callable[[Any], str | None]
    solution: Callable[[], Any]
    wrong: Callable[[], Any]


class LearnerError(Exception):
    """The learner's function failed: it raised, or it ran out of time. The message is the hint."""


class _TimeUp(BaseException):
    """Raised by the alarm inside a learner's function (a BaseException: ``except Exception`` in
    the learner's code cannot swallow it)."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Stop the code inside after ``seconds`` with :class:`_TimeUp` (Unix, main thread; elsewhere
    the code runs without a limit)."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def ring(_signum: int, _frame: object) -> None:
        raise _TimeUp

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _fresh(value: Any) -> Any:
    """A copy the learner's function may change freely."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, int | float | bool | str | type(None)):
        return value
    return copy.deepcopy(value)


class _LearnerFunction:
    """A learner's function as graders call it: fresh inputs, a time limit, its errors named."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_fresh(a) for a in args)
        kwargs = {k: _fresh(v) for k, v in kwargs.items()}
        try:
            with _time_limit(ANSWER_TIME_LIMIT):
                result = self.function(*args, **kwargs)
        except _TimeUp:
            raise LearnerError(f"your function took longer than {ANSWER_TIME_LIMIT:g} s") from None
        except Exception as error:
            raise LearnerError(f"your function raised {type(error).__name__}: {error}") from None
        if result is None:
            raise LearnerError(
                "your function returned None: is its body still `...`, or is a `return` missing?"
            )
        return result


_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxtuple = 40, 40, 6, 6


def short(value: Any) -> str:
    """A repr of at most a short line, to echo an answer in a hint."""
    if isinstance(value, torch.Tensor | np.ndarray):
        return f"{type(value).__name__} of shape {tuple(value.shape)}, dtype {value.dtype}"
    text = _SHORT.repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def close(result: Any, expected: Any) -> bool:
    """Whether a learner's numbers match the reference, with the tolerance of their precision.

    Computed in float64, an answer must match to about 1e-8; in float32 (or lower), to about
    1e-5 relative: both are right. Shapes must agree; NaN never matches.
    """
    result = torch.as_tensor(np.asarray(result) if not isinstance(result, torch.Tensor) else result)
    expected = torch.as_tensor(expected).double()
    if result.shape != expected.shape:
        return False
    double = result.dtype == torch.float64
    rtol, atol = (1e-7, 1e-8) if double else (1e-4, 1e-5)
    return bool(torch.allclose(result.double(), expected, rtol=rtol, atol=atol))


class _NotFinite(ValueError):
    pass


def _scalar(value: Any) -> Any:
    """Python bool, int or float for a NumPy or torch scalar or a 0-d array or tensor."""
    if isinstance(value, torch.Tensor | np.ndarray | np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise _NotFinite
    return value


def normalize(answer: Any) -> Any:
    """One form for the many ways a right answer can be written.

    NumPy and torch scalars and 0-d arrays and tensors become Python bool, int or float;
    ranges, lists and tuples become tuples (their items normalized); 1-D arrays and tensors of at
    most 8 entries become tuples of Python numbers (a pair or a triple given as an array);
    functions are wrapped so that every call gets fresh inputs and a time limit. Anything else is
    returned as it is.

    Raises:
        ValueError: the answer holds NaN or infinity, which is never right.
    """
    if isinstance(answer, torch.Tensor | np.ndarray):
        if answer.ndim == 0:
            return _scalar(answer)
        if answer.ndim == 1 and answer.shape[0] <= 8:
            return tuple(_scalar(a) for a in answer)
        return answer
    if isinstance(answer, np.generic | float):
        return _scalar(answer)
    if isinstance(answer, range | list | tuple):
        return tuple(normalize(a) for a in answer)
    if callable(answer) and not isinstance(answer, type):
        return _LearnerFunction(answer)
    return answer


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
        None for a right answer, else a one-line hint.
    """
    item = exercise(exercise_id)
    if answer is Ellipsis:
        return "no answer yet: replace ... with yours and run the cell again."
    try:
        answer = normalize(answer)
    except _NotFinite:
        return "your answer holds NaN or infinity, which is never right."
    try:
        return item.grade(answer)
    except LearnerError as error:  # the learner's function failed: that is a hint
        return str(error)
    except Exception as error:  # the grader failed: say so, do not blame the learner
        message = textwrap.shorten(f"{type(error).__name__}: {error}", 160)
        return (
            f"the checker could not use this answer ({message}). Check that it has the form the "
            "task asks for; if it does, the checker has a bug: please report it."
        )


def check(exercise_id: str, answer: Any) -> None:
    """Grade an answer and print the verdict: "right", or "not yet" with a hint.

    Prints one line and returns nothing, so an answer cell shows only that line. Use
    :func:`grade` to get the verdict as a value.

    Args:
        exercise_id: e.g. ``"05.1"``.
        answer: a value or a function, as the exercise asks. ``...`` (Ellipsis), the placeholder
            the notebooks store in the answer cells, means "not answered yet"; so does a function
            whose body is still ``...`` (it returns None).
    """
    hint = grade(exercise_id, answer)
    if hint is None:
        print(f"Exercise {exercise_id}: right.")
    elif answer is Ellipsis:
        print(f"Exercise {exercise_id}: {hint}")
    elif callable(answer) and hint.startswith("your function returned None"):
        print(f"Exercise {exercise_id}: no answer yet: fill in the function, run the cell again.")
    else:
        print(f"Exercise {exercise_id}: not yet. Hint: {hint}")
