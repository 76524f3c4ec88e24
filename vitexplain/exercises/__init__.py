"""Exercises that check themselves, offline: ``vx.exercises.check("05.1", answer)``.

Every notebook ends with a few exercises. The learner writes an answer in the empty cell under
each one (a number, a tensor, or a function) and calls :func:`check`, which says whether it is
right and, when it is not, gives a hint -- never the solution.

Each notebook's exercises live in ``nbNN.py`` as a list ``EXERCISES`` of :class:`Exercise`. An
exercise carries its reference ``solution`` (the worked answer, to read after trying) and an
obviously ``wrong`` answer; the tests run both through the grader, so no exercise can be
unsolvable or mis-graded.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Exercise", "check", "exercise", "exercises", "solution"]

# One module per notebook; each defines EXERCISES: list[Exercise].
_NOTEBOOK_MODULES: tuple[str, ...] = ("nb01", "nb02", "nb03", "nb04", "nb05", "nb06", "nb07")


@dataclass(frozen=True)
class Exercise:
    """One exercise: its statement, a grader, and two answers for the tests.

    Args:
        id: ``"NN.k"``: notebook NN, exercise k (1-based), as the notebook names it.
        task: the statement, one short paragraph (the notebook shows it in Markdown).
        grade: takes the learner's answer; returns None when it is right, else a hint that does
            not give the solution away. It may raise; :func:`check` reports that as a hint.
        solution: returns the reference answer (worked; read its source after trying).
        wrong: returns an obviously wrong answer, which ``grade`` must reject.
    """

    id: str
    task: str
    grade: Callable[[Any], str | None]
    solution: Callable[[], Any]
    wrong: Callable[[], Any]


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


def solution(exercise_id: str) -> Any:
    """The reference answer of an exercise (try first: :func:`check` gives hints)."""
    return exercise(exercise_id).solution()


def check(exercise_id: str, answer: Any) -> bool:
    """Grade an answer, print the verdict (with a hint when wrong) and return True if right.

    ``...`` (Ellipsis), the placeholder the notebooks store in the answer cells, means "not
    answered yet"; so does a function whose body is still ``...`` (it returns None).

    Args:
        exercise_id: e.g. ``"05.1"``.
        answer: a value or a function, as the exercise asks.

    Returns:
        True when the answer is right.
    """
    item = exercise(exercise_id)
    if answer is Ellipsis:
        print(f"Exercise {item.id}: no answer yet. Replace ... with yours and run the cell again.")
        return False
    try:
        hint = item.grade(answer)
    except Exception as error:  # the learner's function failed: that is a hint, not a crash
        hint = f"your answer raised {type(error).__name__}: {error}"
    if hint is None:
        print(f"Exercise {item.id}: right.")
        return True
    print(f"Exercise {item.id}: not yet. Hint: {hint}")
    return False
