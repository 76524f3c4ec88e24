"""What a learner meets: a kernel whose global state they changed, answers that try to fool the
checker or break it (a platform without fork: tests/test_exercises_spawn.py). Each item of the
issue has a test here; those about all exercises are parametrized over the registry."""

import math
import multiprocessing
import os
import random
import signal
import sys
import threading
import time

import numpy as np
import pytest
import torch
from exercise_cases import one_per_kind, solved
from torch import nn

from vitexplain import exercises as ex

ALL = ex.exercises()
VALUES = sorted(i for i, e in ALL.items() if e.returns is None)
FUNCTIONS = sorted(i for i, e in ALL.items() if e.returns is not None)
TENSORS = sorted(i for i in FUNCTIONS if ALL[i].returns is not int)


# every function exercise has its own grader; value exercises share their kind's
GRADERS = sorted(one_per_kind(VALUES) + FUNCTIONS)


right = solved


def _state():
    return (
        torch.get_default_dtype(),
        torch.get_default_device(),
        torch.random.get_rng_state(),
        np.random.get_state()[1].copy(),
        random.getstate(),
        torch.get_num_threads(),
    )


def _same(a, b):
    return (
        a[0] == b[0]
        and a[1] == b[1]
        and torch.equal(a[2], b[2])
        and np.array_equal(a[3], b[3])
        and a[4:] == b[4:]
    )


@pytest.fixture(params=["float64", "bfloat16", "meta"])
def changed_kernel(request):
    """A kernel whose learner changed the default dtype or device, and seeded."""
    torch.manual_seed(1234)
    np.random.seed(99)
    if request.param == "meta":
        torch.set_default_device("meta")
    else:
        torch.set_default_dtype(getattr(torch, request.param))
    yield request.param
    torch.set_default_device(None)
    torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("exercise_id", GRADERS)
def test_grading_ignores_and_keeps_the_learners_global_state(exercise_id, changed_kernel):
    reference, wrong = right(exercise_id), ALL[exercise_id].wrong()
    before = _state()
    assert ex.grade(exercise_id, reference) is None
    hint = ex.grade(exercise_id, wrong)
    assert hint is not None and "bug" not in hint, hint
    assert _same(before, _state())  # dtype, device, RNG states, threads: as they were


def test_solution_keeps_the_learners_random_state():
    torch.manual_seed(5)
    before = _state()
    ex.solution("06.4")  # trains nothing, but seeds a model's initialisation
    assert _same(before, _state())


def swallowing_loop(*args):
    while True:
        try:
            while True:
                pass
        except:  # noqa: E722 -- the point of the test
            pass


@pytest.mark.cpu_independent
def test_a_loop_that_catches_everything_is_stopped_and_os_exit_is_named(monkeypatch):
    """In the worker's process, whatever the function catches (the same code kills or reads
    the exit code of a forked or a spawned worker)."""
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 0.5)
    assert ex.grade("02.3", swallowing_loop) == "your function took longer than 0.5 s"
    assert ex.grade("04.5", lambda x: os._exit(3)).startswith(
        "your function ended its process (exit code 3)"
    )


# --- wrong verdicts and misleading hints ------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("exercise_id", TENSORS)
def test_16_bit_results_are_right_everywhere(exercise_id, dtype):
    reference = right(exercise_id)

    def rounded(*args):
        result = torch.as_tensor(reference(*args))
        return result.to(dtype)

    assert ex.grade(exercise_id, rounded) is None


def test_attention_computed_in_bfloat16_is_right():
    def my_attention(q, k, v):
        q, k, v = (t.bfloat16() for t in (q, k, v))
        return torch.softmax(q @ k.T / q.shape[-1] ** 0.5, dim=-1) @ v

    assert ex.grade("02.3", my_attention) is None


@pytest.mark.parametrize(
    ("exercise_id", "answer", "word"),
    [
        ("08.1", 0.112, "median"),  # the median is not the mean
        ("01.2", 12, "mean"),  # the token of the brightest pixel (argmax of all pixels)
        ("01.2", 14, "mean"),
        ("06.3", 50, "percentage"),
    ],
)
def test_slips_get_the_hint_about_them(exercise_id, answer, word):
    assert word in ex.grade(exercise_id, answer)


def test_a_reshape_instead_of_a_transpose_is_named():
    def unsoft_split(tokens, h, w, k, s, p):
        fold = nn.Fold((h, w), k, stride=s, padding=p)
        b, n, length = tokens.shape
        ones = torch.ones_like(tokens[:1])
        return fold(tokens.reshape(b, length, n)) / fold(ones.reshape(1, length, n))

    assert "transpose" in ex.grade("05.5", unsoft_split)


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [("02.1", 0.7 - 0.6 + 1 / 15 - 0.1), ("06.3", 0.7 - 0.2), ("02.4", 2)],
)
def test_float_rounding_is_not_a_wrong_answer(exercise_id, answer):
    assert ex.grade(exercise_id, answer) is None


# --- never blamed on the checker, never raised out of check() --------------------------------


def _self_referencing():
    a = []
    a.append(a)
    return a


def _deep(n):
    a = []
    for _ in range(n):
        a = [a]
    return a


@pytest.mark.cpu_independent
@pytest.mark.parametrize("exercise_id", one_per_kind(VALUES))
@pytest.mark.parametrize(
    "answer",
    [
        10**400,
        -(10**5000),
        float("inf"),
        torch.zeros(2, device="meta"),
        torch.tensor(1.0, device="meta"),
        _self_referencing(),
        _deep(3000),
        range(10**7),
        nn.Linear,
        {"a": 1},
        1 + 2j,
    ],
    ids=["big", "huge", "inf", "meta2", "meta", "self", "deep", "range", "class", "dict", "c"],
)
def test_odd_values_get_one_line_blaming_the_answer(exercise_id, answer, capsys):
    start = time.perf_counter()
    ex.check(exercise_id, answer)
    out = capsys.readouterr().out
    assert time.perf_counter() - start < 1.0
    assert out.count("\n") == 1 and "not yet. Hint:" in out and "bug" not in out, out
    assert len(out) < 300


@pytest.mark.parametrize(
    "result",
    [float("nan"), float("inf"), 10**5000, torch.zeros(3, device="meta")],
    ids=["nan", "inf", "huge", "meta"],
)
@pytest.mark.parametrize("exercise_id", ["05.3", "02.3"])
def test_odd_results_are_the_functions_fault(exercise_id, result):
    hint = ex.grade(exercise_id, lambda *args: result)
    assert hint.startswith(("your function returned", "wrong", "count(")), hint
    assert "bug" not in hint


class Patchify2D:
    def __init__(self, image, patch_size):
        self.image = image


class AttentionModule(nn.Module):
    def forward(self, q, k, v):
        return q


@pytest.mark.cpu_independent
@pytest.mark.parametrize("exercise_id", one_per_kind(FUNCTIONS))
@pytest.mark.parametrize("cls", [Patchify2D, AttentionModule])
def test_a_class_where_a_function_is_asked_is_named_and_not_run(exercise_id, cls):
    hint = ex.grade(exercise_id, cls)
    assert hint == f"expected a function {ALL[exercise_id].asks}, got the class {cls.__name__}"


# --- loopholes ----------------------------------------------------------------------------


class AlwaysEqual(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def test_an_int_that_equals_everything_is_not_right():
    """The int kind's code path (one exercise of it: every int exercise is graded by it)."""
    exercise_id = next(i for i in VALUES if ALL[i].grade.kind == "int")
    wrong = ALL[exercise_id].grade.answer + 1
    assert ex.grade(exercise_id, AlwaysEqual(wrong)) is not None
    assert ex.grade(exercise_id, [AlwaysEqual(wrong)]) is not None


def test_an_int_set_of_tricky_ints_is_converted():
    assert ex.grade("02.2", [AlwaysEqual(5), AlwaysEqual(6)]) is not None
    assert ex.grade("02.2", [AlwaysEqual(0), AlwaysEqual(1)]) is None  # their values are right


class Liar(torch.Tensor):
    """A tensor that says it is close to everything."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.allclose:
            return True
        return super().__torch_function__(func, types, args, kwargs or {})


def test_a_tensor_subclass_faking_allclose_is_graded_on_its_numbers():
    def lying(q, k, v):
        return torch.zeros(q.shape[0], v.shape[1]).as_subclass(Liar)

    assert ex.grade("02.3", lying) is not None


def test_a_function_that_patches_the_checker_in_its_process_fools_nothing():
    def vandal(q, k, v):
        torch.allclose = lambda *args, **kwargs: True
        ex.close = lambda *args: True
        return torch.zeros(q.shape[0], v.shape[1])

    assert ex.grade("02.3", vandal) is not None


@pytest.mark.cpu_independent
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_DATA: Linux only")
def test_a_function_cannot_take_gigabytes():
    def greedy(x):
        big = torch.ones(3 << 30, dtype=torch.uint8)  # 3 GiB
        return x + big[0]

    hint = ex.grade("04.5", greedy)
    assert hint.startswith("your function raised") and "memory" in hint.lower(), hint


@pytest.mark.cpu_independent
def test_what_a_function_prints_is_capped_and_shown_once(capsys):
    reference = right("04.5")

    def chatty(x):
        print("x" * 100_000)
        return reference(x)

    ex.check("04.5", chatty)
    out = capsys.readouterr().out
    assert len(out) < 2300 and out.count("causal_skew printed") == 1 and "[... cut]" in out
    assert out.endswith("Exercise 04.5: right.\n")


@pytest.mark.cpu_independent
def test_a_class_is_not_a_way_around_the_time_limit(monkeypatch):
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 0.5)

    class Forever:
        def __init__(self, *args):
            while True:
                pass

    start = time.perf_counter()
    assert ex.grade("02.3", Forever).startswith("expected a function")
    assert ex.grade("02.3", lambda *a: Forever()) == "your function took longer than 0.5 s"
    assert time.perf_counter() - start < 5


def test_the_worked_solution_called_inside_an_answer_is_told_so():
    def my_attention(q, k, v):
        return ex.solution("02.3")(q, k, v)

    assert "now without vx.exercises.solution" in ex.grade("02.3", my_attention)


def test_numbers_the_site_shows_are_finite():
    for exercise_id in VALUES:
        spec = ALL[exercise_id].grade
        if spec.kind == "number":
            assert math.isfinite(spec.answer) and spec.tol >= 0 and spec.rel >= 0


@pytest.mark.cpu_independent
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals a thread sends")
def test_ctrl_c_frees_the_kernel_and_ends_the_worker(monkeypatch, ctrl_c):
    """Ctrl-C (SIGINT to the main thread, from another one here) during a check of a function
    that never returns: the check stops at once and the worker is killed (the limit is an hour
    here, so only the interrupt can end it)."""
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 3600.0)
    before = set(multiprocessing.active_children())  # a warm spawned worker, if any
    main = threading.main_thread().ident
    ctrl_c = threading.Timer(0.5, signal.pthread_kill, (main, signal.SIGINT))
    start = time.perf_counter()
    ctrl_c.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            ex.grade("02.3", swallowing_loop)
    finally:
        ctrl_c.cancel()
    assert time.perf_counter() - start < 5
    assert set(multiprocessing.active_children()) <= before
