"""Every exercise can be solved and graded: the reference solution passes, a wrong answer fails;
and the grading layer accepts every natural form of a right answer and reports failures fairly."""

import contextlib
import functools
import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch
from exercise_cases import SHARED, grouped, one_per_kind, solved

from vitexplain import exercises as ex

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = ex.exercises()
VALUES = sorted(i for i, e in ALL.items() if e.returns is None)
FUNCTIONS = sorted(i for i, e in ALL.items() if e.returns is not None)


@pytest.mark.parametrize("exercise_id", sorted(ALL))
def test_wrong_answer_fails_with_a_hint(exercise_id, capsys):
    ex.check(exercise_id, ALL[exercise_id].wrong())
    out = capsys.readouterr().out
    assert out.startswith(f"Exercise {exercise_id}: not yet. Hint: ")
    assert len(out) > len(f"Exercise {exercise_id}: not yet. Hint: ") + 10


@pytest.mark.parametrize("exercise_id", one_per_kind(ALL))
def test_placeholder_is_not_an_answer(exercise_id, capsys):
    ex.check(exercise_id, ...)
    assert capsys.readouterr().out == (
        f"Exercise {exercise_id}: no answer yet: replace ... with yours and run the cell again.\n"
    )


def test_ids_are_numbered_per_notebook():
    for exercise_id in ALL:
        assert re.fullmatch(r"0[1-9]\.[1-9]", exercise_id), exercise_id


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.name)
def test_each_notebook_checks_its_own_exercises(notebook):
    """A notebook calls check() for exactly the exercises whose id starts with its number."""
    number = notebook.name[:2]
    cells = json.loads(notebook.read_text())["cells"]
    source = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    called = set(re.findall(r"check\(\s*\"(\d\d\.\d)\"", source))
    expected = {i for i in ALL if i.startswith(number + ".")}
    assert called == expected


def test_unknown_id_is_a_clear_error():
    with pytest.raises(ValueError, match="'99.1'"):
        ex.check("99.1", 1)
    with pytest.raises(TypeError, match="exercise_id"):
        ex.check(5.1, 1)


def test_a_failing_function_is_a_hint_not_a_crash(capsys):
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    function_exercises = [i for i, e in ALL.items() if e.returns is not None]
    if not function_exercises:
        pytest.skip("no exercise asks for a function yet")
    assert ex.grade(function_exercises[0], broken) == "your function raised RuntimeError: boom"


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("01.1", np.array([196, 768])),  # a pair as an array
        ("01.1", torch.tensor([196, 768])),  # ... or a tensor
        ("01.1", [np.int64(196), 768]),  # NumPy ints inside a list
        ("01.2", torch.tensor([3.0, 13.0]).argmax() + 12),  # a 0-d tensor from argmax
        ("01.2", np.int64(13)),
        ("02.1", np.float32(1 / 15)),  # float32 is right too
        ("02.1", torch.tensor(1 / 15)),
        ("02.2", range(2)),  # indices as a range
        ("02.2", np.array([0, 1])),
        ("03.2", np.bool_(False)),
        ("04.4", torch.tensor([True, False]).sum() - 1),  # a 0-d integer tensor, from .sum()
        ("02.1", Fraction(1, 15)),  # an exact fraction
        ("02.1", 1 / 15),
        ("06.3", 0.7 - 0.2),  # 0.49999999999999994
        ("08.1", 0.10),  # the mean rounded to 2 decimals
        ("06.4", torch.tensor(True)),  # from .all() or a comparison
        ("05.4", [20, 20, 0]),  # a triple as a list
        ("05.4", np.array([20, 20, 0])),
        ("07.3", torch.tensor(True)),
    ],
)
def test_every_natural_form_of_a_right_answer_is_accepted(exercise_id, answer):
    assert ex.grade(exercise_id, answer) is None


def test_nan_and_infinity_are_never_right():
    assert "NaN or infinity" in ex.grade("02.4", float("nan"))  # abs(nan - 8) > 0.25 is False
    assert "NaN or infinity" in ex.grade("02.1", torch.tensor(float("inf")))
    assert "NaN or infinity" in ex.grade("01.1", (196, float("nan")))


def test_a_function_that_changes_its_inputs_is_graded_on_its_result():
    def in_place_block(block, z):
        z += block.attn(z)  # changes the caller's tensor
        z[:] = block.norm1(z)
        z += block.mlp(z)
        z[:] = block.norm2(z)
        return z

    assert ex.grade("06.5", in_place_block) is None


def test_answers_are_echoed_in_one_short_line(capsys):
    ex.check("01.2", list(range(1_000_000)))
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and len(out) < 300


def test_solution_of_a_function_exercise_shows_its_source():
    shown = ex.solution("02.3")
    assert "def my_attention" in repr(shown) and callable(shown)


# 08.1 is a mean of 397 rank correlations between maps of the trained ViT: ties among the ranks
# depend on the last bits of the maps, so the mean moves with the CPU's kernels (0.10366 here,
# 0.10312 under the baseline instruction set). The grader accepts anything within 0.0051 of the
# shipped mean, so a learner on either CPU is right; the tests allow 2e-3 for that one answer.
CPU_TOLERANCE = {"08.1": 2e-3}


@pytest.mark.parametrize("exercise_id", grouped(VALUES))
def test_the_shipped_answer_is_what_the_worked_solution_computes(exercise_id, one_thread):
    """Value answers are shipped in their specs (checks compute nothing); here they are
    recomputed from the worked solution, an independent computation."""
    spec, computed = ALL[exercise_id].grade, solved(exercise_id)
    if spec.kind == "number":
        tol = CPU_TOLERANCE.get(exercise_id, 1e-9)
        assert computed == pytest.approx(spec.answer, rel=1e-9, abs=tol)
    elif spec.kind == "int_set":
        assert tuple(sorted(computed)) == spec.answer
    else:
        assert computed == spec.answer and type(computed) is type(spec.answer)
    assert ex.grade(exercise_id, computed) is None  # the reference solution passes, on this CPU


@pytest.mark.xdist_group(SHARED["08.1"])
def test_the_08_1_slips_are_what_they_say():
    from statistics import median

    from vitexplain.exercises import nb08

    without, with_identity = nb08._agreement(residual=False), nb08._agreement(residual=True)
    tol = CPU_TOLERANCE["08.1"]
    assert sum(without) / len(without) == pytest.approx(nb08._MEAN_WITHOUT_RESIDUAL, abs=tol)
    assert median(without) == pytest.approx(nb08._MEDIAN_WITHOUT_RESIDUAL, abs=tol)
    assert sum(with_identity) / len(with_identity) == pytest.approx(
        nb08._MEAN_WITH_RESIDUAL, abs=tol
    )
    # each slip stays apart from the mean by more than the CPUs move them
    assert abs(nb08._MEDIAN_WITHOUT_RESIDUAL - nb08._MEAN_WITHOUT_RESIDUAL) > 4 * tol
    assert abs(nb08._MEAN_WITH_RESIDUAL - nb08._MEAN_WITHOUT_RESIDUAL) > 4 * tol
    assert "median" in ex.grade("08.1", 0.112) and "median" not in ex.grade("08.1", 0.11)
    assert ex.grade("08.1", 0.1037) is None and ex.grade("08.1", 0.10) is None


def test_06_1_formula_counts_what_count_parameters_counts():
    from vitexplain.exercises import nb06

    assert nb06._count_by_formula(**nb06._SMALL_VIT) == nb06._count_small_vit()
    assert nb06._count_by_formula(**{**nb06._SMALL_VIT, "qkv_bias": False}) == (
        vx_count(nb06, qkv_bias=False)
    )


def vx_count(nb06, **change):
    with torch.device("meta"):
        model = nb06.ViT(**{**nb06._SMALL_VIT, **change})
    return nb06.count_parameters(model)["total"]


@functools.cache
def _first_cell(number: str) -> str:
    """Notebook ``number``'s first code cell, its magics (``%matplotlib inline``) left out."""
    notebook = json.loads(next(NOTEBOOKS.glob(f"{number}_*.ipynb")).read_text(encoding="utf-8"))
    source = "".join(next(c for c in notebook["cells"] if c["cell_type"] == "code")["source"])
    return re.sub(r"^%.*$", "", source, flags=re.M)


@contextlib.contextmanager
def _notebook_state():
    """What a notebook's first cell sets (grad mode, deterministic algorithms, threads, seeds),
    in force inside as in the notebook, and the test process's own restored after."""
    grad, threads = torch.is_grad_enabled(), torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    with torch.random.fork_rng(devices=[]):
        try:
            yield
        finally:
            torch.set_grad_enabled(grad)
            torch.use_deterministic_algorithms(deterministic)
            torch.set_num_threads(threads)


@pytest.mark.parametrize("exercise_id", FUNCTIONS)  # values: in the shipped-answer test above
def test_the_worked_function_pasted_under_its_notebooks_imports_is_right(exercise_id, capsys):
    """The source solution() shows, run in a fresh namespace under only its notebook's first
    cell (its imports and settings), defines the name the task asks for, and check() calls
    that function right: the reference solution passes, as a learner pastes it."""
    namespace = {}
    with _notebook_state():
        exec(_first_cell(exercise_id[:2]), namespace)
        exec(repr(ex.solution(exercise_id)), namespace)
        capsys.readouterr()  # what the first cell printed
        function = namespace.get(ALL[exercise_id].asks.partition("(")[0])
        assert ex.check(exercise_id, function) is None  # prints, shows no value
    assert capsys.readouterr().out == f"Exercise {exercise_id}: right.\n"


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_every_worked_function_has_the_asked_name(exercise_id):
    shown = repr(ex.solution(exercise_id))
    name = ALL[exercise_id].asks.partition("(")[0]
    assert shown.startswith(f"def {name}("), shown.splitlines()[0]
    assert "_" + name not in shown


def test_every_exercise_has_an_explanation():
    assert [i for i in sorted(ALL) if len(ALL[i].why) <= 40] == []
