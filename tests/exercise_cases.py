"""Shared by the exercise tests: each worked solution computed once per test process (08.1's
and 06.1's take seconds), and one exercise per grade kind, for the tests of grading code that
is the kind's, not the exercise's (each exercise's own spec is still tested: its reference
solution passes, its default wrong answer fails, its shipped value is what its worked solution
computes)."""

import functools

from vitexplain import exercises as ex


@functools.cache
def solved(exercise_id):
    """``ex.solution(exercise_id)``, computed once."""
    return ex.solution(exercise_id)


def one_per_kind(ids):
    """The first of ``ids`` of each grade kind: a value's ``grade.kind`` (int, int_tuple,
    int_set, number, bool), a function's return type (array, tensor, int)."""
    kinds = {}
    for i in sorted(ids):
        item = ex.exercise(i)
        kinds.setdefault(getattr(item.grade, "kind", item.returns), i)
    return sorted(kinds.values())
