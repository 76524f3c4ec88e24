"""Grading without fork (macOS, Windows), forced here on Linux: the answers of issue 38 that a
spawned worker could not take, and a Ctrl-C while a worker starts (a real kernel's interrupts:
tests/test_exercises_output.py).

A notebook's functions live in its ``__main__``; so do they here (a module put in
``sys.modules["__main__"]``), so that they are pickled as a notebook's are: a function by value,
an ``lru_cache`` wrapper by name (which a spawned worker cannot find), a lock or a generator not
at all. None of them may be refused as "the checker has a bug" or "ended its process": each is
graded (in the learner's process, under the time limit, when no worker can hold it).

Each worker start imports torch (seconds): the tests share the warm worker (``spawn`` in
conftest.py), and start a fresh one only where the start itself is tested.
"""

import os
import signal
import sys
import threading
import time
import types
from multiprocessing import popen_spawn_posix, resource_tracker
from pathlib import Path

import pytest
import torch
from IPython.display import display

from vitexplain import exercises as ex
from vitexplain.exercises import _run

# Nothing here compares a float that PyTorch or NumPy computed: `make test-baseline` leaves it out.
pytestmark = pytest.mark.cpu_independent

# A notebook's cell: a right count() for 05.3 in each way issue 38 names, and a wrong one.
NOTEBOOK = """
import functools
import threading

import torch

lock = threading.Lock()
squares = (i * i for i in range(10))
log = open(__file__path, "w")
batches = iter(torch.utils.data.DataLoader(list(range(10)), batch_size=2))


def along(n, k, s, p):
    return (n + 2 * p - k) // s + 1


@functools.lru_cache(maxsize=None)
def along_cached(n, k, s, p):
    return (n + 2 * p - k) // s + 1


@functools.cache
def steps(n, k, s):
    return 1 if n < k + s else 1 + steps(n - s, k, s)


@functools.cache
def count_cached(h, w, k, s, p):  # a cache, calling a cache and a recursive one
    return steps(h + 2 * p, k, s) * along_cached(w, k, s, p)


def count_under_lock(h, w, k, s, p):
    with lock:
        return along(h, k, s, p) * along(w, k, s, p)


def count_beside_generator(h, w, k, s, p):
    assert squares is not None
    return along(h, k, s, p) * along(w, k, s, p)


def count_and_log(h, w, k, s, p):
    print(h, w, k, s, p, file=log)
    return along(h, k, s, p) * along(w, k, s, p)


def count_beside_loader(h, w, k, s, p):
    assert batches is not None
    return along(h, k, s, p) * along(w, k, s, p)


def wrong_under_lock(h, w, k, s, p):
    with lock:
        return h * w // (k * k)


def loop_under_lock(h, w, k, s, p):
    with lock:
        while True:
            pass
"""
RIGHT = [  # run in the learner's process: no worker can take them
    "count_under_lock",  # reads a threading.Lock
    "count_beside_generator",  # reads a generator
    "count_and_log",  # writes to an open file
    "count_beside_loader",  # reads a DataLoader iterator
]


@pytest.fixture
def notebook(monkeypatch, tmp_path, spawn):
    """The cell above, run in a ``__main__`` of its own, with spawn forced."""
    main = types.ModuleType("__main__")
    main.__dict__["__file__path"] = str(tmp_path / "log.txt")
    monkeypatch.setitem(sys.modules, "__main__", main)
    exec(compile(NOTEBOOK, "<notebook>", "exec"), main.__dict__)
    yield main.__dict__
    main.__dict__["log"].close()


def _graded_right_keeping_the_learners_state(notebook, name, capfd) -> None:
    assert _run.start_method() == "spawn"
    torch.manual_seed(7)
    before = (torch.random.get_rng_state(), torch.get_default_dtype(), torch.get_num_threads())
    assert ex.grade("05.3", notebook[name]) is None, name
    after = (torch.random.get_rng_state(), torch.get_default_dtype(), torch.get_num_threads())
    assert torch.equal(before[0], after[0]) and before[1:] == after[1:], name  # the learner's
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out, name  # no worker's traceback either


def _sigint_held_or_ignored(pid: int) -> bool:
    """Whether process ``pid`` blocks or ignores SIGINT now (Linux's /proc; elsewhere True)."""
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return True
    fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines())
    return bool((int(fields["SigBlk"], 16) | int(fields["SigIgn"], 16)) & 1 << signal.SIGINT - 1)


def test_a_worker_interrupted_as_it_starts_takes_the_notebooks_caches(notebook, monkeypatch, capfd):
    """A Ctrl-C reaches the whole process group, so also a worker that is importing torch: it
    starts with SIGINT blocked, then ignores it, and prints no traceback; the learner's process
    has its handler and signal mask back. That worker then takes an lru_cache wrapper of the
    notebook (``@functools.cache`` too) that calls two more, a recursive one among them: each is
    sent by value with its code, and graded right in the worker, not in the learner's process."""
    if _run._spare is not None:  # a fresh worker
        _run._stop(_run._spare, now=True)
        _run._spare = None
    resource_tracker._resource_tracker._stop()  # this start starts it (and it unblocks SIGINT)
    handler = signal.getsignal(signal.SIGINT)
    _run.prestart()
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert _sigint_held_or_ignored(_run._spare[0].pid)
    os.kill(_run._spare[0].pid, signal.SIGINT)  # it is importing torch now
    held = []  # whether a worker held the function
    leave = _run.LearnerFunction.__exit__

    def spying_exit(learner, *exc):
        held.append(learner._worker is not None)
        return leave(learner, *exc)

    monkeypatch.setattr(_run.LearnerFunction, "__exit__", spying_exit)
    _graded_right_keeping_the_learners_state(notebook, "count_cached", capfd)
    assert held == [True]


def test_right_functions_no_worker_can_take_are_right(notebook, capfd):
    for name in RIGHT:  # run in the learner's process
        _graded_right_keeping_the_learners_state(notebook, name, capfd)


def test_a_wrong_one_gets_the_hint_and_a_loop_the_time_limit(notebook, monkeypatch):
    hint = ex.grade("05.3", notebook["wrong_under_lock"])
    monkeypatch.setattr(_run, "START_METHOD", "fork")  # the same formula, graded in a worker
    assert hint == ex.grade("05.3", ALL_WRONG()), hint
    assert "bug" not in hint and "process" not in hint
    monkeypatch.setattr(_run, "START_METHOD", "spawn")
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 0.5)
    start = time.perf_counter()
    assert ex.grade("05.3", notebook["loop_under_lock"]) == "your function took longer than 0.5 s"
    assert time.perf_counter() - start < 5


def test_a_call_stuck_in_c_code_gives_the_learner_their_output_back(notebook, monkeypatch, capsys):
    exec(
        "import time\ndef sleeping(h, w, k, s, p):\n    with lock:\n        time.sleep(1.5)\n",
        notebook,
    )
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 0.5)
    threads = set(threading.enumerate())
    assert ex.grade("05.3", notebook["sleeping"]) == "your function took longer than 0.5 s"
    print("the learner's own line")
    assert "the learner's own line" in capsys.readouterr().out
    deadline = time.monotonic() + 30
    while set(threading.enumerate()) - threads:  # the thread ends, and leaves the output as it is
        assert time.monotonic() < deadline
        time.sleep(0.05)
    print("and the next")
    assert "and the next" in capsys.readouterr().out


def ALL_WRONG():  # noqa: N802 -- the same wrong formula, sent to a worker
    def wrong(h, w, k, s, p):
        return h * w // (k * k)

    return wrong


def test_a_forbidden_helper_is_seen_in_the_learners_process_too(notebook):
    exec(
        "from vitexplain.unfold import count_tokens\n"
        "def count_by_helper(h, w, k, s, p):\n"
        "    with lock:\n"
        "        return count_tokens(h, w, k, s, p)[2]\n",
        notebook,
    )
    hint = ex.grade("05.3", notebook["count_by_helper"])
    assert hint is not None and hint.startswith("right \N{EM DASH} and now without"), hint


def test_each_grading_has_a_worker_of_its_own(spawn, monkeypatch, capsys):
    """(After the tests above, which run their functions here: the warm worker is ready.) The
    function sent by value (a closure) to a spawned worker: what it prints and displays
    shown once (displayed as printed: a worker of a plain Python process starts no shell); its
    global changes stay in its worker, which has ended when the grading has (the next grading
    has another), and never reach the learner's process."""
    patchify_2d = ex.solution("01.4").function  # a closure: it must travel by value
    allclose, workers = torch.allclose, []
    leave = _run.LearnerFunction.__exit__

    def spying_exit(learner, *exc):
        workers.append(learner._worker[0])
        return leave(learner, *exc)

    class Table:
        def _repr_html_(self):
            return "<table><tr><td>1</td></tr></table>"

        def __repr__(self):
            return "Table(1 row)"

    def chatty_and_vandal(image, patch_size):
        print("hello from the worker")
        display(Table())
        torch.set_default_dtype(torch.float64)  # global changes, in the worker only
        torch.allclose = lambda *args, **kwargs: True
        return patchify_2d(image, patch_size)

    monkeypatch.setattr(_run.LearnerFunction, "__exit__", spying_exit)
    ex.check("01.4", chatty_and_vandal)
    assert capsys.readouterr().out == (
        "patchify_2d printed (first call):\nhello from the worker\nTable(1 row)\n"
        "Exercise 01.4: right.\n"
    )
    assert torch.allclose is allclose and torch.get_default_dtype() == torch.float32
    assert len(workers) == 1 and not workers[0].is_alive()


# --- an interrupted check: one line -----------------------------------------------------------


def test_the_interruption_is_still_a_keyboardinterrupt():
    """So that Run All stops at the interrupted cell."""
    assert issubclass(_run.Interrupted, KeyboardInterrupt)
    shown = _run.Interrupted("the check of exercise 05.3 was interrupted")._render_traceback_()
    assert shown == ["KeyboardInterrupt: the check of exercise 05.3 was interrupted"]


@pytest.mark.parametrize("to", ["this thread", "the process, beside a thread"])
def test_a_ctrl_c_while_a_worker_starts_interrupts_the_check(notebook, monkeypatch, to, ctrl_c):
    """A Ctrl-C that lands in the learner's process while it starts a worker (sent from inside
    the start here) interrupts the check at once, not at the time limit, and ends that worker;
    sent to the process while another thread runs (a kernel's), that thread may receive it."""
    launch, launched = popen_spawn_posix.Popen._launch, []

    def interrupted_launch(popen, process):
        if to == "this thread":
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        else:
            os.kill(os.getpid(), signal.SIGINT)
        launch(popen, process)
        launched.append(popen)

    monkeypatch.setattr(_run, "_spare", None)  # the warm worker, if any, set aside: a start
    monkeypatch.setattr(popen_spawn_posix.Popen, "_launch", interrupted_launch)
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 2.0)
    other = threading.Event()
    if to != "this thread":
        threading.Thread(target=other.wait, daemon=True).start()
    handler = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(_run.Interrupted):
            ex.grade("05.3", ALL_WRONG())
    finally:
        other.set()
    assert len(launched) == 1 and launched[0].wait(5) is not None  # started whole, then ended
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
