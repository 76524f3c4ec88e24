"""Exercises that check themselves, offline: ``vx.exercises.check("05.1", answer)``.

Every notebook ends with a few exercises; the statement is the notebook's Markdown cell. The
learner writes an answer in the empty cell under it (a number, a pair, a tensor, or a function)
and calls :func:`check`, which prints whether it is right and, when it is not, a hint -- never
the solution. :func:`solution` shows the worked answer (the source of a function).

Layers, bottom up: ``_rules`` (the :class:`Exercise`, one form for an answer, closeness, one
describer, the declarative :class:`ValueSpec` that also drives the site's grader), ``_watch``,
``_output`` and ``_run`` (the learner's function in a killable worker process, time-limited; what
it prints and displays shown once), ``nb01`` ... ``nb09`` (the exercises), and this module (the
registry and the public API).

Grading neither reads nor changes the learner's global state (default dtype and device, random
states): it runs under :func:`~vitexplain.exercises._run.clean_state`. A value answer is graded
at once from its spec (the reference is shipped in the spec; a test recomputes it). A function
answer runs in a worker process, killed as soon as one call passes :data:`ANSWER_TIME_LIMIT`
seconds (on Linux, macOS and Windows alike); its result comes back as plain numbers. One that no
worker can take (it reads a lock or a generator of the notebook) runs in a thread here, under
the same limit. An interrupted check raises :class:`~._run.Interrupted`, one line in a notebook.

Writing an exercise: add an :class:`Exercise` to ``EXERCISES`` of the notebook's ``nbNN.py``.

Predictions and warm-ups (:func:`prompts`) are graded the same way: a prediction ``"NN.pk"``
(``PREDICTIONS``) is the learner's guess before a cell shows the result, its ``why`` the common
wrong prediction and why it is wrong; a warm-up ``"NN.wk"`` (``WARMUPS``) asks, at the start of
notebook NN, about an earlier one. A prediction may be a choice (:class:`ChoiceSpec`). The
concept check (:func:`concept_check`, ``"cc.01"`` ... ``"cc.20"``, module ``concepts``) is 20 such
choices on the whole series, each wrong option a named misconception.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from . import concepts, nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb09
from ._output import show
from ._rules import (
    ChoiceSpec,
    Exercise,
    Unusable,
    ValueSpec,
    as_int,
    as_number,
    close,
    describe,
    grade_choice,
    grade_value,
    is_unfilled,
    normalize,
)
from ._run import Interrupted, LearnerFunction, clean_state, grade_function, prestart

__all__ = [
    "ANSWER_TIME_LIMIT",
    "ChoiceSpec",
    "Exercise",
    "ValueSpec",
    "as_int",
    "as_number",
    "check",
    "close",
    "concept_check",
    "describe",
    "exercise",
    "exercises",
    "grade",
    "normalize",
    "prompts",
    "solution",
]

#: Seconds a function answer may run per call before the checker stops it.
ANSWER_TIME_LIMIT = 10.0

#: What check() prints for an answer cell still holding ``...`` (the notebooks store it).
NO_ANSWER = "no answer yet: replace ... with yours and run the cell again."
#: ... and for a function whose body is still ``...``.
NO_FUNCTION = "no answer yet: fill in the function, run the cell again."

_MODULES = (nb01, nb02, nb03, nb04, nb05, nb06, nb07, nb08, nb09)
# Every function answer is also told off for calling the worked solution.
_ALWAYS_FORBIDDEN = ("vitexplain.exercises.solution",)


def exercises() -> dict[str, Exercise]:
    """All exercises of the series, by id, in notebook order."""
    found: dict[str, Exercise] = {}
    for module in _MODULES:
        for item in module.EXERCISES:
            if item.id in found:
                raise RuntimeError(f"exercise id {item.id!r} is defined twice")
            found[item.id] = item
    return found


def prompts() -> dict[str, Exercise]:
    """The predictions (``"02.p1"``) and warm-ups (``"02.w1"``) of the series, by id, in
    notebook order: graded like the exercises, by :func:`check`."""
    found: dict[str, Exercise] = {}
    for module in _MODULES:
        for item in getattr(module, "WARMUPS", []) + getattr(module, "PREDICTIONS", []):
            if item.id in found:
                raise RuntimeError(f"prompt id {item.id!r} is defined twice")
            found[item.id] = item
    return found


def exercise(exercise_id: str) -> Exercise:
    """The exercise, prediction or warm-up with this id, e.g. ``"05.1"``, ``"05.p1"``."""
    if not isinstance(exercise_id, str):
        raise TypeError(f"exercise_id must be a str such as '05.1', got {exercise_id!r}")
    table = exercises() | prompts() | concepts.items()
    if exercise_id not in table:
        raise ValueError(f"no exercise {exercise_id!r}; there are {', '.join(table)}")
    return table[exercise_id]


class _Shown:
    """A reference function that displays as its source code, and still runs."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.__name__ = function.__name__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return textwrap.dedent(inspect.getsource(self.function)).rstrip()


def solution(exercise_id: str) -> Any:
    """The reference answer of an exercise (try first: :func:`check` gives hints).

    A function answer is returned as a callable that displays as its source code; pasted into
    the notebook under its imports, that source defines the function the task asks for.
    """
    item = exercise(exercise_id)
    with clean_state():
        answer = item.solution()
    return _Shown(answer) if item.returns is not None else answer


def _grade_function(item: Exercise, answer: Any) -> tuple[str, str | None]:
    name = item.asks.partition("(")[0]
    if isinstance(answer, type) or not callable(answer):
        return "hint", f"expected a function {item.asks}, got {describe(answer)}"
    if is_unfilled(answer):
        return "hint", NO_FUNCTION
    forbids = item.forbids + _ALWAYS_FORBIDDEN
    learner = LearnerFunction(answer, item.returns, forbids, ANSWER_TIME_LIMIT)
    kind, hint = grade_function(item.grade, learner)
    show(name, learner.outputs)
    if kind == "hint" and hint is None and learner.used is not None:
        return "hint", f"right \N{EM DASH} and now without {learner.used}, as the task asks."
    return kind, hint


def _grade_value(item: Exercise, answer: Any) -> tuple[str, str | None]:
    if isinstance(item.grade, ChoiceSpec):
        return "hint", grade_choice(item.grade, answer)
    try:
        return "hint", grade_value(item.grade, normalize(answer), given=answer)
    except Unusable as error:
        return "hint", str(error)
    except RecursionError:
        return "hint", "your answer is nested too deeply to be read"


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
    try:
        prestart()  # without fork: a worker warms up for the next function answer
        if answer is Ellipsis:
            return NO_ANSWER
        with clean_state():
            if isinstance(item.grade, ValueSpec | ChoiceSpec):
                kind, hint = _grade_value(item, answer)
            else:
                kind, hint = _grade_function(item, answer)
    except KeyboardInterrupt:  # one line in a notebook, not the checker's traceback
        raise Interrupted(f"the check of exercise {exercise_id} was interrupted") from None
    if kind == "bug":  # the grader failed: say so, do not blame the learner
        return (
            f"the checker could not use this answer ({textwrap.shorten(hint, 160)}). If it has "
            "the form the task asks for, the checker has a bug: please report it."
        )
    return hint


def concept_check() -> None:
    """Print the concept check: 20 questions on the series; answer one with
    ``check("cc.03", "b")``. Take it before notebook 01 and again after 08 or 09."""
    for item in concepts.CONCEPTS:
        print(f"{item.id}  {item.question}")
        for letter, option in zip("abcdefgh", item.options, strict=False):
            print(f"  ({letter}) {option.text}")
    print('Answer with vx.exercises.check("cc.01", "b"); each verdict names the section to read.')


def _label(exercise_id: str) -> str:
    """What check() calls an item: "Prediction 02.p1", "Warm-up 02.w1", "Question cc.01"."""
    if exercise_id.startswith("cc."):
        return f"Question {exercise_id}"
    kinds = {"p": "Prediction", "w": "Warm-up"}
    return f"{kinds[exercise_id[3]]} {exercise_id}" if exercise_id[3:4] in kinds else ""


def verdict(exercise_id: str, hint: str | None, why: str = "") -> str:
    """The line check() prints for a hint (None: right); a prediction's verdict adds its
    ``why`` when right (the hint of a wrong guess explains it already)."""
    if label := _label(exercise_id):
        guess = exercise_id[3] == "p" or exercise_id.startswith("cc.")  # a why when right
        if hint is None:
            return f"{label}: right. {why}" if guess else f"{label}: right."
        if hint == NO_ANSWER and exercise_id[3] == "p":
            return f"{label}: no guess yet: replace ... with yours and run the cell, then the next."
        if hint == NO_ANSWER:
            return f"{label}: {hint}"
        return f"{label}: not quite: {hint}" if guess else f"{label}: not yet. Hint: {hint}"
    if hint is None:
        return f"Exercise {exercise_id}: right."
    if hint in (NO_ANSWER, NO_FUNCTION) or hint.startswith("right \N{EM DASH}"):
        return f"Exercise {exercise_id}: {hint}"
    return f"Exercise {exercise_id}: not yet. Hint: {hint}"


def check(exercise_id: str, answer: Any) -> None:
    """Grade an answer and print the verdict: "right", or "not yet" with a hint.

    Prints one line and returns nothing, so an answer cell shows only that line. Use
    :func:`grade` to get the verdict as a value. What a function answer prints and displays
    (``display(obj)``; a figure ``plt.show()`` shows under the inline backend) in the first of
    the checker's calls that has output is shown once, above that line: at most 2,000
    characters of text and 10 displays.

    Args:
        exercise_id: e.g. ``"05.1"``.
        answer: a value or a function, as the exercise asks. ``...`` (Ellipsis), the placeholder
            the notebooks store in the answer cells, means "not answered yet"; so does a function
            whose body is still ``...``.
    """
    hint = grade(exercise_id, answer)
    print(verdict(exercise_id, hint, exercise(exercise_id).why))
