"""Shared by the exercise tests: each worked solution computed once per test process (08.1's
and 06.1's take seconds), and one exercise per grade kind, for the tests of grading code that
is the kind's, not the exercise's (each exercise's own spec is still tested: its reference
solution passes, its default wrong answer fails, its shipped value is what its worked solution
computes)."""

import functools

import pytest

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


#: Ids whose worked solutions share a cached computation of the package: notebook 08's maps and
#: occlusion of the shipped ViT (seconds), notebook 06's two trained models (seconds each). Their
#: tests carry one ``xdist_group`` per computation, so that under ``pytest -n 2`` (``--dist
#: loadgroup``, pyproject.toml) one worker runs them all and pays for it once.
SHARED = dict.fromkeys(("08.1", "08.2", "08.p4"), "nb08 maps") | dict.fromkeys(
    ("06.p1", "06.p2", "06.p3"), "nb06 trained"
)


def grouped(ids):
    """``ids`` as pytest params, those of :data:`SHARED` in their computation's xdist group."""
    return [
        pytest.param(i, marks=pytest.mark.xdist_group(SHARED[i])) if i in SHARED else i for i in ids
    ]
