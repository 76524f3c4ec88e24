"""Running a learner's function for a grader: isolated, time-limited, its result in one form.

On Linux each call runs in a child process made by ``fork``: the child inherits the inputs (no
copying, and nothing it changes reaches the checker), runs the function, and sends the result back
through a pipe. The checker kills the child at :data:`vitexplain.exercises.ANSWER_TIME_LIMIT`
seconds, so the limit holds whatever the function catches (a bare ``except:``) and wherever it
loops (in C code too), and it reaps the child (no zombie). The child runs torch on one thread: the
OpenMP pool of the parent does not exist in a forked child.

Elsewhere (no ``fork``, or ``fork`` refused) the function runs in this process on fresh copies of
its inputs, under a ``SIGALRM`` time limit where Unix offers one in the main thread; that limit
cannot stop a loop that catches every exception or never returns to Python.
"""

from __future__ import annotations

import contextlib
import copy
import dis
import io
import os
import pickle
import select
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from types import CodeType, FunctionType
from typing import Any

import numpy as np
import torch

#: Whether function answers run in a forked child process (Linux only: fork is the default
#: start method there; on macOS forking a process with system frameworks loaded is unsafe).
USE_FORK = sys.platform.startswith("linux") and hasattr(os, "fork")


class LearnerError(Exception):
    """The learner's function failed: it raised, ran out of time, or returned the wrong type.

    The message is the hint.
    """


class _TimeUp(BaseException):
    """Raised by the alarm inside a learner's function (in-process fallback only)."""


def is_unfilled(function: Callable[..., Any]) -> bool:
    """Whether a function's body is still only ``...`` (or ``pass``, or a docstring).

    Such a body compiles to "return the constant None" (``lambda: ...`` returns Ellipsis); any
    written body, even one without ``return``, compiles to more.
    """
    code = getattr(function, "__code__", None)
    if not isinstance(code, CodeType):
        return False
    ops = [i for i in dis.get_instructions(code) if i.opname not in ("RESUME", "NOP", "CACHE")]
    if len(ops) == 1 and ops[0].opname == "RETURN_CONST":  # Python 3.12+
        return ops[0].argval is None or ops[0].argval is Ellipsis
    return (
        len(ops) == 2
        and ops[0].opname == "LOAD_CONST"
        and (ops[0].argval is None or ops[0].argval is Ellipsis)
        and ops[1].opname == "RETURN_VALUE"
    )


def _a(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def describe(value: Any) -> str:
    """What a value is, for a hint: ``"a str ('abc')"``, ``"an ndarray of shape (2,)"``."""
    if isinstance(value, torch.Tensor | np.ndarray):
        return f"{_a(type(value).__name__)} of shape {tuple(value.shape)}, dtype {value.dtype}"
    if isinstance(value, FunctionType):
        return f"a function ({value.__name__})"
    if isinstance(value, tuple | list) and value:
        kinds = sorted({type(v).__name__ for v in value})
        return f"{_a(type(value).__name__)} of {len(value)} items ({', '.join(kinds)})"
    if isinstance(value, int | float | str | bool | type(None)):
        text = repr(value)
        text = text if len(text) <= 40 else text[:37] + "..."
        return f"{_a(type(value).__name__)} ({text})"
    return _a(type(value).__name__)


#: What a function answer must return, as the hints name it.
EXPECTED: dict[type, str] = {
    torch.Tensor: "a tensor (a NumPy array is fine too)",
    np.ndarray: "a NumPy array (a tensor is fine too)",
    int: "an int",
    float: "a number",
}


def coerce(result: Any, returns: type) -> Any:
    """The function's result in the form the grader compares (``returns``), or a LearnerError.

    One rule for every function answer: a tensor where an array is asked and an array where a
    tensor is asked are both right; so are nested lists of numbers, and a one-element tensor or
    array, or a NumPy scalar, where a number is asked.
    """
    if result is None:
        raise LearnerError("your function returned None: is a `return` missing?")
    wrong = LearnerError(f"your function returned {describe(result)}; expected {EXPECTED[returns]}")
    if returns in (int, float):
        from . import normalize  # the package's own scalar rules

        value = normalize(result)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise wrong
        return value
    if isinstance(result, tuple | list) and any(
        isinstance(item, torch.Tensor | np.ndarray) and item.ndim > 0 for item in result
    ):
        raise LearnerError(
            f"your function returned {describe(result)}; return only {EXPECTED[returns]}, "
            "not a tuple or list of them"
        )
    if isinstance(result, torch.Tensor):
        tensor = result.detach()
    elif isinstance(result, np.ndarray | list | tuple):
        try:
            array = np.asarray(result)
        except (TypeError, ValueError):
            raise wrong from None
        if array.dtype.kind not in "biuf":
            raise wrong
        tensor = torch.from_numpy(np.ascontiguousarray(array))
    else:
        raise wrong
    return tensor if returns is torch.Tensor else tensor.cpu().numpy()


def _resolve(path: str) -> Any:
    """The object a dotted path names, e.g. ``"torch.nn.functional.softmax"``."""
    module_name, _, name = path.rpartition(".")
    module = sys.modules.get(module_name)
    if module is None:
        import importlib

        module = importlib.import_module(module_name)
    return getattr(module, name)


def display_name(path: str) -> str:
    """How the task names a forbidden helper: ``F.x``, ``nn.X``, ``vx.x``."""
    for prefix, short in (
        ("torch.nn.functional.", "F."),
        ("torch.nn.", "nn."),
        ("torch.", "torch."),
    ):
        if path.startswith(prefix):
            return short + path.removeprefix(prefix)
    return "vx." + path.rpartition(".")[2] if path.startswith("vitexplain.") else path


@contextlib.contextmanager
def _watch(forbidden: tuple[str, ...]) -> Iterator[list[str]]:
    """Record, in the list it yields, the first forbidden helper the code inside calls.

    A profile hook sees every call, however the helper was imported: a Python function by its
    code object (a class by its ``__init__``), a C function by identity.
    """
    used: list[str] = []
    if not forbidden:
        yield used
        return
    codes: dict[CodeType, str] = {}
    builtins: list[tuple[Any, str]] = []
    for path in forbidden:
        target = _resolve(path)
        if isinstance(target, type):
            target = target.__init__
        code = getattr(target, "__code__", None)
        if isinstance(code, CodeType):
            codes[code] = display_name(path)
        else:
            builtins.append((target, display_name(path)))

    def profile(frame: Any, event: str, arg: Any) -> None:
        if used:
            return
        if event == "call" and frame.f_code in codes:
            used.append(codes[frame.f_code])
        elif event == "c_call":
            for target, name in builtins:
                if arg is target:
                    used.append(name)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield used
    finally:
        sys.setprofile(previous)


def _call(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    returns: type,
    forbidden: tuple[str, ...],
) -> tuple[str, Any, str | None]:
    """Run the function and classify the outcome: ("ok", result) or ("error", hint), and the
    forbidden helper it used (or None). Never raises (the time-limit alarm excepted)."""
    used: list[str] = []
    try:
        with _watch(forbidden) as used:
            result = function(*args, **kwargs)
    except _TimeUp:
        raise
    except BaseException as error:  # SystemExit, KeyboardInterrupt too: the learner's code raised
        text = f"your function raised {type(error).__name__}"
        detail = str(error)
        return "error", text + (f": {detail}" if detail else ""), (used or [None])[0]
    try:
        return "ok", coerce(result, returns), (used or [None])[0]
    except LearnerError as error:
        return "error", str(error), (used or [None])[0]


def _fresh(value: Any) -> Any:
    """A copy the learner's function may change freely (in-process fallback)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, int | float | bool | str | type(None)):
        return value
    return copy.deepcopy(value)


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Raise :class:`_TimeUp` after ``seconds`` (Unix, main thread; elsewhere no limit)."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return

    def ring(_signum: int, _frame: object) -> None:
        raise _TimeUp

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_here(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    returns: type,
    forbidden: tuple[str, ...],
    limit: float,
) -> tuple[str, Any, str | None, str, str]:
    """The fallback: run in this process on fresh inputs; outcome as :func:`run_in_child`."""
    args = tuple(_fresh(a) for a in args)
    kwargs = {k: _fresh(v) for k, v in kwargs.items()}
    try:
        with _alarm(limit):
            kind, value, used = _call(function, args, kwargs, returns, forbidden)
    except _TimeUp:
        return "timeout", None, None, "", ""
    return kind, value, used, "", ""


def _child(
    write_fd: int,
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    returns: type,
    forbidden: tuple[str, ...],
) -> None:
    """The forked child's work: run, pickle the outcome into the pipe. Never returns."""
    status = 1
    try:
        torch.set_num_threads(1)  # the parent's OpenMP threads are not in this process
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            kind, value, used = _call(function, args, kwargs, returns, forbidden)
        data = pickle.dumps((kind, value, used, out.getvalue(), err.getvalue()))
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view) :]
        status = 0
    finally:
        os._exit(status)  # no atexit handlers, no test runner, no kernel loop in the child


def run_in_child(
    function: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    returns: type,
    forbidden: tuple[str, ...],
    limit: float,
) -> tuple[str, Any, str | None, str, str] | None:
    """Run the function in a forked child killed after ``limit`` seconds.

    Returns:
        (kind, value, used, printed, warned): kind "ok" (value: the coerced result), "error"
        (value: the hint) or "timeout"; the forbidden helper used or None; what the function
        printed to stdout and stderr. None when the process cannot fork.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()  # nothing buffered is written twice
    read_fd, write_fd = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that fork in a threaded process may deadlock the child; the
            # child only runs the learner's function on one torch thread and is killed if stuck.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:
        os.close(read_fd)
        _child(write_fd, function, args, kwargs, returns, forbidden)
    os.close(write_fd)
    chunks: list[bytes] = []
    finished = False
    deadline = time.monotonic() + limit
    poller = select.poll()
    poller.register(read_fd, select.POLLIN | select.POLLHUP)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                break
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                finished = True
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        if not finished:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)  # reap: no zombie
    if not finished:
        return "timeout", None, None, "", ""
    if not chunks:  # the child died before it could answer (killed, or out of memory)
        return "error", "your function ended its process (killed, or out of memory?)", None, "", ""
    return pickle.loads(b"".join(chunks))


class LearnerFunction:
    """A learner's function as graders call it: isolated, time-limited, its result coerced.

    Args:
        function: the learner's function.
        returns: the type the grader compares (torch.Tensor, np.ndarray, int or float).
        forbidden: dotted paths of helpers the task forbids; :attr:`used` names the first one
            the function called, if any.
        limit: seconds per call.
    """

    def __init__(
        self,
        function: Callable[..., Any],
        returns: type,
        forbidden: tuple[str, ...] = (),
        limit: float = 10.0,
    ) -> None:
        self.function = function
        self.returns = returns
        self.forbidden = forbidden
        self.limit = limit
        self.used: str | None = None

    def __repr__(self) -> str:
        return f"your function {getattr(self.function, '__name__', '')}".rstrip()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        outcome = None
        if USE_FORK:
            outcome = run_in_child(
                self.function, args, kwargs, self.returns, self.forbidden, self.limit
            )
        if outcome is None:
            outcome = run_here(
                self.function, args, kwargs, self.returns, self.forbidden, self.limit
            )
        kind, value, used, printed, warned = outcome
        if printed:
            sys.stdout.write(printed)
        if warned:
            sys.stderr.write(warned)
        if used and self.used is None:
            self.used = used
        if kind == "timeout":
            raise LearnerError(f"your function took longer than {self.limit:g} s")
        if kind == "error":
            raise LearnerError(value)
        return value
