"""Grading without fork (macOS, Windows), forced here on Linux: the answers of issue 38 that a
spawned worker could not take, and an interrupted check.

A notebook's functions live in its ``__main__``; so do they here (a module put in
``sys.modules["__main__"]``), so that they are pickled as a notebook's are: a function by value,
an ``lru_cache`` wrapper by name (which a spawned worker cannot find), a lock or a generator not
at all. None of them may be refused as "the checker has a bug" or "ended its process": each is
graded (in the learner's process, under the time limit, when no worker can hold it).
"""

import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
import torch

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


@functools.cache
def count_cached(h, w, k, s, p):
    return along(h, k, s, p) * along(w, k, s, p)


@functools.lru_cache(maxsize=None)
def along_cached(n, k, s, p):
    return (n + 2 * p - k) // s + 1


def count_with_cached_helper(h, w, k, s, p):
    return along_cached(h, k, s, p) * along_cached(w, k, s, p)


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
def notebook(monkeypatch, tmp_path):
    """The cell above, run in a ``__main__`` of its own, with spawn forced."""
    main = types.ModuleType("__main__")
    main.__dict__["__file__path"] = str(tmp_path / "log.txt")
    monkeypatch.setitem(sys.modules, "__main__", main)
    exec(compile(NOTEBOOK, "<notebook>", "exec"), main.__dict__)
    monkeypatch.setattr(_run, "START_METHOD", "spawn")
    yield main.__dict__
    main.__dict__["log"].close()
    if _run._spare is not None:  # do not leave the warm worker behind
        _run._spare[0].kill()
        _run._spare[0].join()
        _run._spare = None


def _graded_right_keeping_the_learners_state(notebook, name, capfd) -> None:
    assert _run.start_method() == "spawn"
    torch.manual_seed(7)
    before = (torch.random.get_rng_state(), torch.get_default_dtype(), torch.get_num_threads())
    assert ex.grade("05.3", notebook[name]) is None, name
    after = (torch.random.get_rng_state(), torch.get_default_dtype(), torch.get_num_threads())
    assert torch.equal(before[0], after[0]) and before[1:] == after[1:], name  # the learner's
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err + captured.out, name  # no worker's traceback either


@pytest.mark.parametrize("name", RIGHT)
def test_a_right_function_no_worker_can_take_is_right(notebook, name, capfd):
    _graded_right_keeping_the_learners_state(notebook, name, capfd)


def test_the_notebooks_caches_travel_to_the_worker(notebook, monkeypatch, capfd):
    """An lru_cache wrapper of the notebook (``@functools.cache`` too, and a function calling
    one) is sent by value with its code (a recursive one too): those answers are graded right
    in a worker, not in the learner's process, as the right ones above are."""
    exec(
        "@functools.cache\n"
        "def steps(n, k, s):\n"
        "    return 1 if n < k + s else 1 + steps(n - s, k, s)\n"
        "def count_recursive(h, w, k, s, p):\n"
        "    return steps(h + 2 * p, k, s) * steps(w + 2 * p, k, s)\n",
        notebook,
    )
    held = []  # whether a worker held the function, per grading
    leave = _run.LearnerFunction.__exit__

    def spying_exit(learner, *exc):
        held.append(learner._worker is not None)
        return leave(learner, *exc)

    monkeypatch.setattr(_run.LearnerFunction, "__exit__", spying_exit)
    for name in ("count_cached", "count_with_cached_helper", "count_recursive"):
        _graded_right_keeping_the_learners_state(notebook, name, capfd)
    assert held == [True, True, True]


def test_a_wrong_one_gets_the_hint_and_a_loop_the_time_limit(notebook, monkeypatch):
    hint = ex.grade("05.3", notebook["wrong_under_lock"])
    assert hint == ex.grade("05.3", ALL_WRONG()), hint  # as a worker would grade it
    assert "bug" not in hint and "process" not in hint
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 1.0)
    start = time.perf_counter()
    assert ex.grade("05.3", notebook["loop_under_lock"]) == "your function took longer than 1 s"
    assert time.perf_counter() - start < 5


def test_a_call_stuck_in_c_code_gives_the_learner_their_output_back(notebook, monkeypatch, capsys):
    exec(
        "import time\ndef sleeping(h, w, k, s, p):\n    with lock:\n        time.sleep(3)\n",
        notebook,
    )
    monkeypatch.setattr(ex, "ANSWER_TIME_LIMIT", 1.0)
    assert ex.grade("05.3", notebook["sleeping"]) == "your function took longer than 1 s"
    print("the learner's own line")
    assert "the learner's own line" in capsys.readouterr().out
    time.sleep(2.5)  # the thread ends, and leaves the output as it is
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


# --- an interrupted check: one line, no worker's traceback -----------------------------------

# A notebook cell run by IPython (as a kernel runs it), in a process group of its own, as
# Jupyter's Interrupt and a terminal's Ctrl-C signal the whole group.
CELL = """
import sys, time
from pathlib import Path
from IPython.core.interactiveshell import InteractiveShell
from vitexplain.exercises import _run

_run.START_METHOD = "spawn"
shell = InteractiveShell.instance()
shell.run_cell('''
import time
from pathlib import Path
import vitexplain as vx

def count(h, w, k, s, p):
    Path(sys.argv[1]).touch()  # the worker runs the function now
    time.sleep(60)

print("checking", flush=True)
vx.exercises.check("05.3", count)
''')
print("cell done", flush=True)
"""


def _interrupted_cell(tmp_path: Path, when: str) -> list[str]:
    """The lines a cell checking a slow function shows when interrupted ``when``."""
    marker = tmp_path / "called"
    process = subprocess.Popen(
        [sys.executable, "-c", CELL.replace("sys.argv[1]", repr(str(marker))), str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        cwd=tmp_path,
    )
    try:
        assert process.stdout.readline() == "checking\n"
        if when == "while the worker starts":
            # the spawned worker exists, and is importing torch (seconds): on a busy machine a
            # fixed wait from "checking" could land in the parent's start() itself
            deadline = time.monotonic() + 120
            while not _has_spawned_worker(process.pid):
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
            time.sleep(0.3)
        else:
            deadline = time.monotonic() + 120
            while not marker.exists():
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        os.killpg(process.pid, signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    return out.splitlines()


def _has_spawned_worker(pid: int) -> bool:
    """Whether process ``pid`` has a spawned multiprocessing child (Linux's /proc; elsewhere
    True: the fixed wait alone)."""
    if not Path("/proc/self/stat").exists():
        return True
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rpartition(")")[2].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError):  # it ended meanwhile
            continue
        if parent == pid and b"spawn_main" in command:
            return True
    return False


@pytest.mark.parametrize("when", ["while the worker starts", "while the function runs"])
def test_an_interrupted_check_shows_one_line(tmp_path, when):
    lines = _interrupted_cell(tmp_path, when)
    assert lines == [
        "KeyboardInterrupt: the check of exercise 05.3 was interrupted",
        "cell done",
    ], "\n".join(lines)


def test_the_interruption_is_still_a_keyboardinterrupt():
    """So that Run All stops at the interrupted cell."""
    assert issubclass(_run.Interrupted, KeyboardInterrupt)
    shown = _run.Interrupted("the check of exercise 05.3 was interrupted")._render_traceback_()
    assert shown == ["KeyboardInterrupt: the check of exercise 05.3 was interrupted"]


def test_a_worker_ignores_an_interrupt_from_its_start(monkeypatch):
    """Started with SIGINT ignored (a spawned Python keeps SIG_IGN): an interrupt while it
    imports torch does not end it; and the learner's process has its handler back."""
    handler = signal.getsignal(signal.SIGINT)
    worker = _run._start("spawn", None)
    try:
        assert signal.getsignal(signal.SIGINT) is handler
        os.kill(worker[0].pid, signal.SIGINT)  # it is importing torch now
        assert worker[1].poll(120) and worker[1].recv() == ("ready",)
    finally:
        _run._stop(worker)
