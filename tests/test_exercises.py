"""Every exercise can be solved and graded: the reference solution passes, a wrong answer fails."""

import json
import re
from pathlib import Path

import pytest

from vitexplain import exercises as ex

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
ALL = ex.exercises()


@pytest.mark.parametrize("exercise_id", sorted(ALL))
def test_reference_solution_passes(exercise_id, capsys):
    assert ex.check(exercise_id, ex.solution(exercise_id)) is True
    assert capsys.readouterr().out == f"Exercise {exercise_id}: right.\n"


@pytest.mark.parametrize("exercise_id", sorted(ALL))
def test_wrong_answer_fails_with_a_hint(exercise_id, capsys):
    assert ex.check(exercise_id, ALL[exercise_id].wrong()) is False
    out = capsys.readouterr().out
    assert out.startswith(f"Exercise {exercise_id}: not yet. Hint: ")
    assert len(out) > len(f"Exercise {exercise_id}: not yet. Hint: ") + 10


@pytest.mark.parametrize("exercise_id", sorted(ALL))
def test_placeholder_is_not_an_answer(exercise_id, capsys):
    assert ex.check(exercise_id, ...) is False
    assert "no answer yet" in capsys.readouterr().out


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

    function_exercises = [i for i, e in ALL.items() if callable(e.solution())]
    if not function_exercises:
        pytest.skip("no exercise asks for a function yet")
    assert ex.check(function_exercises[0], broken) is False
    assert "RuntimeError: boom" in capsys.readouterr().out
