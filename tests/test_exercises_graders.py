"""The grading layer over the whole registry: every natural form of every right answer is right,
a function answer cannot hang or fool the checker, and every wrong type gets a hint that names it.

Parametrized over ``vx.exercises.exercises()``: a new exercise is covered without a new test;
what is graded by the kind's code, not the exercise's, over one exercise of each kind.
"""

import dataclasses
import functools
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from exercise_cases import one_per_kind

import vitexplain as vx
from vitexplain import exercises as ex
from vitexplain.exercises import _rules, _watch

ALL = ex.exercises()
VALUES = sorted(i for i, e in ALL.items() if e.returns is None)
FUNCTIONS = sorted(i for i, e in ALL.items() if e.returns is not None)


def right(exercise_id):
    """The right answer: a value exercise's shipped answer (a set's as a list of indices), which
    test_exercises.py recomputes from the worked solution; a function exercise's worked function.
    No value is computed here: what is graded is the grader's code, not the solution's."""
    item = ALL[exercise_id]
    if item.returns is not None:
        return item.solution()
    return list(item.grade.answer) if item.grade.kind == "int_set" else item.grade.answer


def _children() -> list[int]:
    """Processes whose parent is this one, alive or zombie (from /proc); not multiprocessing's
    resource tracker, which the first spawned worker of the session starts and leaves running."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and b"resource_tracker" not in command:
            found.append(int(stat.parent.name))
    return found


def test_function_exercises_are_exactly_those_whose_solution_is_a_function():
    for exercise_id, item in ALL.items():
        function = item.returns is not None
        assert function == callable(right(exercise_id)), exercise_id
        assert function != isinstance(item.grade, _rules.ValueSpec), exercise_id
        assert item.returns in (None, torch.Tensor, np.ndarray, int), exercise_id


# --- every natural form of a right value ------------------------------------------------------


def value_forms(value):
    """The ways a learner may write ``value``: NumPy or torch, float32 or float64, a scalar or
    a one-element array or tensor; for a tuple or list, arrays, tensors and NumPy items."""
    if isinstance(value, bool):
        return [np.bool_(value), torch.tensor(value), np.array([value]), torch.tensor([value])]
    if isinstance(value, int | float):
        forms = [
            np.float64(value),
            np.float32(value),
            torch.tensor(value, dtype=torch.float64),
            torch.tensor(value, dtype=torch.float32),
            np.array([value], dtype=np.float32),  # one element, from a reduction with keepdim
            torch.tensor([value], dtype=torch.float64),
            torch.tensor([[value]]),
        ]
        if isinstance(value, int):
            forms += [
                np.int64(value),
                torch.tensor(value),
                torch.tensor([value]),
                np.array([value]),
            ]
        return forms
    assert isinstance(value, tuple | list), f"no forms for {value!r}"
    forms = [
        np.array(value),
        np.array(value, dtype=np.float64),
        np.array(value, dtype=np.float32),
        torch.tensor(value),
        torch.tensor(value, dtype=torch.float32),
        [np.int64(v) for v in value],
        tuple(torch.tensor(v) for v in value),  # 0-d tensors, e.g. from .argmax()
        list(value),
        tuple(value),
    ]
    if isinstance(value, list):  # a collection of indices: a set is natural too
        forms += [set(value), {np.int64(v) for v in value}]
    return forms


@pytest.mark.parametrize("exercise_id", VALUES)
def test_every_form_of_a_right_value_is_right(exercise_id):
    for form in value_forms(right(exercise_id)):
        assert ex.grade(exercise_id, form) is None, (exercise_id, form)


# --- every form of a right function's result ---------------------------------------------------


def result_forms(returns):
    """Ways a learner's function may return its result: float32 or float64, NumPy or torch, a
    NumPy scalar or a one-element tensor where a number (``returns`` int) is asked."""
    if returns is int:
        return {
            "numpy int": lambda r: np.int64(r),
            "0-d tensor": lambda r: torch.tensor(r),
            "one-element tensor": lambda r: torch.tensor([r]),
            "one-element array": lambda r: np.array([r]),
            "float64": lambda r: np.float64(r),
            "float32": lambda r: torch.tensor(r, dtype=torch.float32),
        }
    tensor = lambda r: r.detach() if isinstance(r, torch.Tensor) else torch.from_numpy(r)  # noqa: E731
    return {
        "float32 tensor": lambda r: tensor(r).float(),
        "float64 tensor": lambda r: tensor(r).double(),
        "float32 array": lambda r: tensor(r).float().numpy(),
        "float64 array": lambda r: tensor(r).double().numpy(),
        "nested list": lambda r: tensor(r).tolist(),
    }


# What a function exercise's own grader receives from any form is the same: the worker's coerce()
# turns a tensor, an array or a nested list into a tensor or an array (by the exercise's
# `returns`), or an int; only a float's precision gets through. So every form runs once per
# return type, and every other exercise's grader takes a float32 and a float64 result.
PER_KIND = set(one_per_kind(FUNCTIONS))


@pytest.mark.parametrize("exercise_id", FUNCTIONS)
def test_every_form_of_a_right_functions_result_is_right(exercise_id):
    reference, returns = right(exercise_id), ALL[exercise_id].returns
    forms = result_forms(returns)
    if exercise_id not in PER_KIND:
        forms = dict(list(forms.items())[:2])  # a float32 and a float64 tensor (two ints)
    for name, form in forms.items():

        def answer(*args, form=form, **kwargs):
            return form(reference(*args, **kwargs))

        assert ex.grade(exercise_id, answer) is None, (exercise_id, name)


def test_a_post_norm_block_computed_in_float64_is_right():
    def post_norm_block(block, z):
        block = block.double()
        z = z.double()
        z = block.norm1(z + block.attn(z))
        return block.norm2(z + block.mlp(z))  # (B, N, D) in float64

    assert ex.grade("06.5", post_norm_block) is None


def test_an_exact_float64_rollout_is_right():
    """The reference is float32: the tolerance follows the less precise of the two."""
    reference = right("08.3")
    assert ex.grade("08.3", lambda maps: reference([m.double() for m in maps])) is None


def test_close_takes_the_tolerance_of_the_less_precise_dtype():
    exact = torch.rand(50, dtype=torch.float64)
    single = exact.float()
    assert ex.close(exact, single) and ex.close(single, exact)  # float32 rounding is right
    assert not ex.close(exact, exact + 1e-6)  # both float64: 1e-6 is an error
    assert ex.close(exact.half(), exact)  # 16-bit: about 1e-3
    assert not ex.close(exact, torch.rand(50))
    # each precision's own (rtol, atol), not torch's defaults (1e-5, 1e-8)
    hundred = torch.tensor([100.0], dtype=torch.float64)
    assert not ex.close(hundred, hundred + 1e-4)  # float64: rtol 1e-7
    assert ex.close(torch.zeros(1), torch.full((1,), 5e-6))  # float32: atol 1e-5
    assert ex.close(torch.ones(2, dtype=torch.bfloat16), torch.full((2,), 1.04))  # rtol 5e-2
    assert ex.close(torch.tensor([1, 2]), np.array([1, 2]))  # integers: exact, as float64
    assert not ex.close(torch.zeros(2), torch.zeros(3))  # shapes must agree
    with torch.device("meta"):  # a kernel's default device changed: compared on the CPU
        assert ex.close([1.0, 2.0], np.array([1.0, 2.0]))


# --- a function cannot hang the checker --------------------------------------------------------


def swallowing_loop(*args, **kwargs):
    """Loops for ever and catches whatever tries to stop it, a bare except included."""
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 -- the point of the test
            pass


@pytest.mark.parametrize("exercise_id", one_per_kind(FUNCTIONS))
def test_a_loop_that_swallows_every_exception_is_stopped(exercise_id, monkeypatch):
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 0.5)
    start = time.perf_counter()
    assert ex.grade(exercise_id, swallowing_loop) == "your function took longer than 0.5 s"
    assert time.perf_counter() - start < 5
    assert _children() == []  # killed and reaped: no zombie


def test_a_loop_inside_c_code_is_stopped(monkeypatch):
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 1.0)

    def huge_matmul(q, k, v):
        a = torch.ones(6000, 6000)
        for _ in range(1000):
            a = a @ a  # minutes inside one C call each time
        return a

    start = time.perf_counter()
    assert ex.grade("02.3", huge_matmul) == "your function took longer than 1 s"
    assert time.perf_counter() - start < 5
    assert _children() == []


def test_torch_in_the_child_after_threaded_torch_in_the_parent():
    """fork after the parent's OpenMP pool has run: the child must not deadlock."""
    a = torch.randn(1500, 1500)
    assert torch.get_num_threads() >= 1 and (a @ a).shape == (1500, 1500)
    reference = right("02.3")

    def heavy_but_right(q, k, v):
        b = torch.randn(800, 800)
        assert torch.isfinite(torch.linalg.svdvals(b @ b.T)).all()  # BLAS, LAPACK, reductions
        return reference(q, k, v)

    assert ex.grade("02.3", heavy_but_right) is None
    assert _children() == []


@pytest.mark.parametrize("error", [SystemExit(3), KeyboardInterrupt(), GeneratorExit()])
def test_base_exceptions_raised_by_the_function_are_hints(error):
    def raising(*args):
        raise error

    hint = ex.grade("04.5", raising)
    assert hint.startswith(f"your function raised {type(error).__name__}")


def test_a_function_that_ends_its_process_is_told_so():
    hint = ex.grade("04.5", lambda x: os._exit(0))
    assert hint == "your function ended its process (exit code 0), as os._exit does"
    assert _children() == []


def test_a_grader_failure_on_a_function_answer_is_the_checkers(monkeypatch):
    def broken_grader(function):
        function(torch.zeros(2, 2))
        raise KeyError("internal")

    broken = dataclasses.replace(ALL["04.5"], grade=broken_grader)
    monkeypatch.setattr(ex, "exercise", lambda _id: broken)
    hint = ex.grade("04.5", right("04.5"))
    assert hint.startswith("the checker could not use this answer (KeyError") and "bug" in hint


def test_what_the_function_prints_is_shown(capsys):
    reference = right("04.5")

    def chatty(x):
        print("shape", tuple(x.shape))
        return reference(x)

    ex.check("04.5", chatty)
    out = capsys.readouterr().out
    assert "shape (1, 1)" in out and out.endswith("Exercise 04.5: right.\n")


# --- wrong types get a hint that names them -----------------------------------------------------


@pytest.mark.parametrize("exercise_id", one_per_kind(VALUES))
def test_a_value_of_the_wrong_type_is_named(exercise_id):
    def a_function(x):
        return x

    wrong = [("abc", "'abc'"), (None, "None"), (a_function, "function")]
    wrong.append((torch.zeros(3, 3), "shape (3, 3)"))
    for answer, shown in wrong:
        hint = ex.grade(exercise_id, answer)
        assert hint is not None and shown in hint, (exercise_id, answer, hint)
        assert "bug" not in hint and "LearnerFunction" not in hint, hint


@pytest.mark.parametrize("exercise_id", one_per_kind(FUNCTIONS))
def test_a_function_returning_the_wrong_type_is_told_what_came_and_what_is_expected(exercise_id):
    expected = {torch.Tensor: "a tensor", np.ndarray: "a NumPy array", int: "an int"}
    wrong_results = {
        "str": "abc",
        "generator": (i for i in range(3)),
        "dict": {"a": 1},
    }
    if ALL[exercise_id].returns is int:
        wrong_results["ndarray of shape (2,)"] = np.array([3, 4])
    for name, result in wrong_results.items():
        hint = ex.grade(exercise_id, lambda *args, result=result: result)
        assert hint.startswith("your function returned"), hint
        assert name in hint and expected[ALL[exercise_id].returns] in hint, hint
        assert "bug" not in hint and len(hint) < 160, hint


@pytest.mark.parametrize("exercise_id", one_per_kind(FUNCTIONS))
def test_a_value_where_a_function_is_asked_is_named(exercise_id):
    hint = ex.grade(exercise_id, 5)
    assert hint.startswith("expected a function") and "5" in hint


@pytest.mark.parametrize("exercise_id", one_per_kind(FUNCTIONS))
def test_a_body_without_return_gets_a_hint_and_only_dots_are_no_answer(exercise_id, capsys):
    def no_return(*args):
        result = len(args)  # noqa: F841 -- computed, never returned

    def dots(*args): ...

    def only_pass(*args):
        pass

    def docstring_and_dots(*args):
        """What it should do."""
        ...

    def dots_twice(*args):  # Python 3.11 compiles the first line to a NOP
        ...
        ...

    assert ex.grade(exercise_id, no_return) == "your function returned None: is a `return` missing?"
    for unfilled in (dots, only_pass, docstring_and_dots, dots_twice, lambda *args: ...):
        ex.check(exercise_id, unfilled)
        out = capsys.readouterr().out
        assert (
            out
            == f"Exercise {exercise_id}: no answer yet: fill in the function, run the cell again.\n"
        )


def test_a_function_returning_a_tuple_of_tensors_is_told_to_return_one():
    def with_weights(q, k, v):
        weights = torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1)
        return weights @ v, weights

    def rows(q, k, v):
        return list(with_weights(q, k, v)[0])  # (N, d) as N tensors of shape (d,)

    def numbers(q, k, v):
        return list(with_weights(q, k, v)[0].flatten())  # 0-d tensors: numbers, read as such

    tensor = _rules.EXPECTED[torch.Tensor]
    hint = ex.grade("02.3", with_weights)
    assert hint == f"your function returned a tuple of 2 items (Tensor); return only {tensor}, " + (
        "not a tuple or list of them"
    )
    assert ex.grade("02.3", rows).startswith("your function returned a list of ")
    assert "not a tuple or list" not in ex.grade("02.3", numbers)  # a wrong shape, not a list


def test_an_int_function_returning_nan_is_told_what_came():
    hint = ex.grade("05.3", lambda *args, **kwargs: float("nan"))
    assert hint == f"your function returned a float (nan): {_rules.NOT_FINITE}"


# --- forbidden helpers --------------------------------------------------------------------------


def _attention_by_sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def _attention_by_vx(q, k, v):
    return vx.attention(q, k, v)[0]


def _unsoft_by_fold_tokens(tokens, h, w, k, s, p):
    from vitexplain.unfold import fold_tokens as ft  # imported under another name: still seen

    return ft(tokens, h, w, k, s, p)


def _grid_similarity_by_vx(table, grid_size):
    return vx.grid_similarity(table, grid_size)


def _rollout_by_vx(maps):
    return vx.attention_rollout(maps)


def _patchify_by_vx(image, patch_size):
    return vx.patchify(torch.as_tensor(image)[None, None], patch_size)[0].numpy()


def _count_by_vx(h, w, k, s, p):
    return vx.count_tokens(h, w, k, s, p)[2]


def _count_by_unfold(h, w, k, s, p):
    return torch.nn.Unfold(k, stride=s, padding=p)(torch.zeros(1, 1, h, w)).shape[-1]


def _attention_by_aten(q, k, v):
    return torch.ops.aten.scaled_dot_product_attention(q, k, v)


def _attention_with_position(q, k, v):
    zero = torch.zeros(q.shape[0], k.shape[0], dtype=q.dtype)  # (N, M): no position term
    return vx.attention_with_position(q, k, v, zero)[0]


def _count_by_f_unfold(h, w, k, s, p):
    return F.unfold(torch.zeros(1, 1, h, w), k, stride=s, padding=p).shape[-1]


def _count_by_im2col(h, w, k, s, p):
    x = torch.zeros(1, 1, h, w)
    return torch.ops.aten.im2col(x, [k, k], [1, 1], [p, p], [s, s]).shape[-1]


def _count_by_boxes(h, w, k, s, p):
    return len(vx.soft_split_boxes(h, w, k, s, p))


def _grid_similarity_by_embedding_similarity(table, grid_size):
    rows, cols = grid_size
    return vx.embedding_similarity(table).reshape(rows, cols, rows, cols)


def _patchify_by_slicing(image, patch_size):
    x = torch.as_tensor(image)[None, None]
    return vx.patchify_by_slicing(x, patch_size)[0].numpy()


def _patchify_by_conv(image, patch_size):
    x = torch.as_tensor(image)[None, None]
    return vx.patchify_by_conv(x, patch_size)[0].numpy()


def _gradient_rollout_by_vx(maps, grads):
    return vx.gradient_rollout(maps, grads)


CHEATS = {
    ("02.3", "F.scaled_dot_product_attention"): _attention_by_sdpa,
    ("02.3", "vx.attention"): _attention_by_vx,
    ("02.3", "vx.attention_with_position"): _attention_with_position,
    ("05.3", "F.unfold"): _count_by_f_unfold,
    ("05.3", "torch._C._nn.im2col"): _count_by_im2col,
    ("05.3", "vx.soft_split_boxes"): _count_by_boxes,
    ("07.4", "vx.embedding_similarity"): _grid_similarity_by_embedding_similarity,
    ("01.4", "vx.patchify_by_slicing"): _patchify_by_slicing,
    ("01.4", "vx.patchify_by_conv"): _patchify_by_conv,
    ("05.5", "vx.fold_tokens"): _unsoft_by_fold_tokens,
    ("07.4", "vx.grid_similarity"): _grid_similarity_by_vx,
    ("08.3", "vx.attention_rollout"): _rollout_by_vx,
    ("09.2", "vx.gradient_rollout"): _gradient_rollout_by_vx,
    ("01.4", "vx.patchify"): _patchify_by_vx,
    ("05.3", "vx.count_tokens"): _count_by_vx,
    ("05.3", "nn.Unfold"): _count_by_unfold,
}


def test_every_forbidden_helper_has_a_cheat_here():
    forbidden = {(i, _watch.display_name(p)) for i, e in ALL.items() for p in e.forbids}
    assert forbidden == set(CHEATS) - {("02.3", "F.scaled_dot_product_attention (aten)")}
    assert {("02.3", "F.scaled_dot_product_attention"), ("05.5", "vx.fold_tokens")} <= forbidden


CHEATS["02.3", "F.scaled_dot_product_attention (aten)"] = _attention_by_aten


@pytest.mark.parametrize(("exercise_id", "helper"), sorted(CHEATS))
def test_a_right_function_that_uses_a_forbidden_helper_is_told_so(exercise_id, helper, capsys):
    ex.check(exercise_id, CHEATS[exercise_id, helper])
    helper = helper.removesuffix(" (aten)")
    assert capsys.readouterr().out == (
        f"Exercise {exercise_id}: right \N{EM DASH} and now without {helper}, as the task asks.\n"
    )


# --- one exercise at a time: the edges the issue lists ------------------------------------------


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("02.2", {np.int64(0), np.int64(1)}),  # a set of NumPy ints
        ("02.1", torch.tensor([1 / 15])),  # one-element tensors where a number is asked
        ("02.4", np.array([2.0])),
        ("03.1", torch.tensor([4080.185])),
        ("01.2", np.array([13])),
        ("05.4", ((20, 20), (20, 20), (0, 0))),  # nn.Unfold's own pair form
        ("05.4", np.array([[20, 20], [20, 20], [0, 0]])),
        ("05.4", (20, (20, 20), 0)),
        ("02.1", 0.07),  # 1/15 to two decimals
        ("02.1", 0.067),
    ],
)
def test_edge_forms_of_right_answers(exercise_id, answer):
    assert ex.grade(exercise_id, answer) is None


def test_08_answers_by_index_and_as_one_element_tensors():
    assert ex.grade("08.1", torch.tensor([right("08.1")])) is None
    assert ex.grade("08.2", torch.tensor([right("08.2")])) is None


def test_02_1_a_near_miss_is_not_right():
    assert ex.grade("02.1", 1 / 16) is not None  # 16 is d, not the number of keys
    assert ex.grade("02.1", 0.06) is not None


def test_out_of_range_fractions_are_told_the_range():
    assert "fraction in [0, 1]" in ex.grade("06.3", 50)
    assert "percentage" in ex.grade("06.3", 50)
    assert "fraction in [0, 1]" in ex.grade("06.3", -0.5)
    assert "fraction in [0, 1]" in ex.grade("06.3", 150)


def test_the_base_instead_of_the_exponent_is_told_so():
    for base in (10**25, 1e25, 10**30):
        hint = ex.grade("03.5", base)
        assert "exponent" in hint and "smaller base" not in hint, hint


def test_each_int_exercise_of_04_has_a_default_hint_of_its_own():
    defaults = {i: ex.grade(i, 1001) for i in ("04.1", "04.2", "04.3", "04.4")}
    assert len(set(defaults.values())) == 4, defaults


def test_the_worked_unsoft_split_does_not_fold_with_fold_tokens():
    assert "fold_tokens" not in repr(ex.solution("05.5"))
    assert ex.grade("05.5", ex.solution("05.5")) is None  # not "right -- and now without ..."


def test_08_grading_after_the_first_try_takes_under_a_second():
    ex.grade("08.1", 0.0)  # computes the references once
    ex.grade("08.2", 0)
    for exercise_id, answer in (("08.1", 0.0), ("08.2", 0), ("08.1", right("08.1"))):
        start = time.perf_counter()
        ex.grade(exercise_id, answer)
        assert time.perf_counter() - start < 1.0, exercise_id


def test_is_unfilled_tells_a_written_body_from_dots():
    def written(x):
        return x

    def forgot_return(x):
        x + 1  # noqa: B018

    def a_constant(x):
        return 5

    assert not _rules.is_unfilled(written) and not _rules.is_unfilled(forgot_return)
    assert not _rules.is_unfilled(a_constant)  # one constant returned, as `...` is: not None
    assert not _rules.is_unfilled(print) and not _rules.is_unfilled(functools.partial(written, 1))


def test_rounded_lists_every_rounding_a_task_allows():
    """The specs' accepted roundings, which the package builds when it is imported (so a
    mutation tool that imports it once sees none of them change): each distinct, ascending."""
    assert _rules.rounded(1 / 15, 2) == (0.066667, 0.06667, 0.0667, 0.067, 0.07)
    assert _rules.rounded(2.5, 0, 1) == (2.0, 2.5)  # round() halves to even: 2.5 -> 2
    assert _rules.rounded(0.5, 1, 3) == (0.5,)


def test_describe_names_each_kind_of_value_in_one_line():
    """Every branch of the one describer, against the line written out by hand."""
    cases = [
        (np.zeros(2), "an ndarray of shape (2,), dtype float64"),
        (torch.zeros(2, 3), "a tensor of shape (2, 3), dtype torch.float32"),
        (torch.zeros(2, device="meta"), "a tensor of shape (2,), dtype torch.float32 on meta"),
        (5, "an int (5)"),
        (2**128 - 1, "an int (340282366920938463463374607431768211455)"),  # 128 bits: written
        (2**128, "an int (about 39 digits)"),  # longer: counted
        (10**200, "an int (about 201 digits)"),
        ({3, 1, 2}, "a set ({1, 2, 3})"),
        (set(range(7, 0, -1)), "a set ({1, 2, 3, 4, 5, 6, ...})"),  # 7 items: 6 shown
        (set(range(6)), "a set ({0, 1, 2, 3, 4, 5})"),  # 6 items: all shown
        ({1.5}, "a set"),  # not a set of indices
        ((1, 2.5, True), "a tuple (1, 2.5, True)"),
        (list(range(64)), "a list (0, 1, 2, 3, 4, 5, ...)"),  # MAX_ITEMS: still described
        (list(range(65)), "a list"),
        (["a", 1], "a list of 2 items (int, str)"),
        (range(3), "a range of 3 items"),
        (len, "a function (len)"),
        (functools.partial(len), "a function (partial)"),  # a callable without a __name__
    ]
    for value, line in cases:
        assert _rules.describe(value) == line, value


def test_a_rule_about_one_item_names_the_item_that_is_wrong():
    spec = ALL["01.1"].grade
    tokens, length = (rule.hint for rule in spec.rules if rule.item is not None)
    assert ex.grade("01.1", (14, 768)) == tokens  # the number of tokens is off
    assert ex.grade("01.1", (196, 256)) == length  # the token length is off


def test_only_a_pair_of_equal_ints_reads_as_one_int():
    assert ex.grade("05.4", ((20, 20), (20, 20), (0, 0))) is None
    assert ex.grade("05.4", ((20, 21), (20, 20), (0, 0))).startswith("expected a tuple")


def _nested(levels, box):
    value = box()
    for _ in range(levels):
        value = box([value])
    return value


def test_normalize_gives_one_form_up_to_its_limits_and_refuses_or_keeps_beyond():
    """MAX_DEPTH levels of lists or sets and MAX_ITEMS items get one form; one more level is
    refused, one more item left as it is (graded as a wrong type); complex numbers are never
    read as real ones, a meta tensor holds none, an int subclass gives its own value."""
    limit, deep = (
        _rules.MAX_ITEMS,
        f"your answer is nested more than {_rules.MAX_DEPTH} levels deep",
    )
    for box, one_form in ((list, ()), (frozenset, _nested(_rules.MAX_DEPTH, frozenset))):
        assert _rules.normalize(_nested(_rules.MAX_DEPTH, box)) == one_form
        with pytest.raises(_rules.Unusable, match=f"^{deep}$"):
            _rules.normalize(_nested(_rules.MAX_DEPTH + 1, box))
    for make in (list, torch.arange, np.arange):
        assert _rules.normalize(make(range(limit)) if make is list else make(limit)) == tuple(
            range(limit)
        )
        longer = list(range(limit + 1)) if make is list else make(limit + 1)
        assert _rules.normalize(longer) is longer
    as_frozenset = _rules.normalize(set(range(limit)))
    assert type(as_frozenset) is frozenset and as_frozenset == set(range(limit))
    longer = set(range(limit + 1))
    assert _rules.normalize(longer) is longer
    for complex_numbers in (torch.tensor([1 + 2j]), np.array([1j])):
        assert _rules.normalize(complex_numbers) is complex_numbers
    meta = "a tensor on the meta device holds no values: compute it on the CPU"
    with pytest.raises(_rules.Unusable, match=f"^{re.escape(meta)}$"):
        _rules.normalize(torch.zeros(2, device="meta"))

    class Lying(int):
        def __int__(self):
            return 99

    assert type(_rules.normalize(Lying(5))) is int and _rules.normalize(Lying(5)) == 5


def test_grade_value_reads_a_spec_as_written():
    """A wrong type without the learner's own form named as it came; a pair of equal ints only
    where the spec says pairs; a rule's tolerance includes its edge; {answer} in a hint."""
    spec = _rules.ValueSpec(kind="int_tuple", answer=(3, 4), expects="two ints", default="no")
    assert _rules.grade_value(spec, "34") == "expected two ints, got a str ('34')"
    assert _rules.grade_value(spec, ((3, 3), 4)).startswith("expected two ints, got a tuple")
    assert _rules.grade_value(dataclasses.replace(spec, pairs=True), ((3, 3), 4)) is None
    rule = _rules.Rule("one, within a half", equals=1.0, tol=0.5)
    number = _rules.ValueSpec(kind="number", answer=3.0, expects="a number", default="no")
    assert _rules.grade_value(dataclasses.replace(number, rules=(rule,)), 1.5) == rule.hint
    assert ex.grade("03.5", 3) == "with base 10**3 a slow pair still tells the positions apart"
