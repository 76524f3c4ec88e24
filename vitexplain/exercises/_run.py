"""Running a learner's function for a grader: isolated, time-limited, its result in one form.

On Linux the grading of a function answer runs in a child process made by ``fork`` (one per
:func:`grade_function`): the child inherits the grader and the function, runs the grader, and
sends the verdict back through a pipe. Around each call of the learner's function it writes one
byte to the pipe, so the checker knows when a call began and kills the child once a call passes
its limit: the limit holds whatever the function catches (a bare ``except:``) and wherever it
loops (in C code too), and the checker reaps the child (no zombie). The child runs torch on one
thread: the OpenMP pool of the parent does not exist in a forked child. What the function
prints is captured in the child and printed by the checker.

Elsewhere (no ``fork``, or ``fork`` refused) the grader runs in this process and each call under
a ``SIGALRM`` time limit where Unix offers one in the main thread; that limit cannot stop a loop
that catches every exception or never returns to Python.

Each call gets fresh copies of its inputs, and its result is coerced to the type the grader
compares (:func:`coerce`); a helper the task forbids is detected by a profile hook (:func:`_watch`).
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
    vowel = noun[:1].lower() in "aeiou" or noun.startswith("nd")  # "an ndarray"
    return ("an " if vowel else "a ") + noun


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
    if returns is torch.Tensor:
        return tensor
    return (tensor.float() if tensor.dtype == torch.bfloat16 else tensor).cpu().numpy()


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


class LearnerFunction:
    """A learner's function as graders call it: fresh inputs, a time limit, its result coerced.

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
        self._heartbeat: int | None = None  # in a child: the pipe the parent times calls by

    def __repr__(self) -> str:
        return f"your function {getattr(self.function, '__name__', '')}".rstrip()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        args = tuple(_fresh(a) for a in args)  # the grader may use its inputs again
        kwargs = {k: _fresh(v) for k, v in kwargs.items()}
        if self._heartbeat is not None:  # the parent kills this process at the limit
            _write(self._heartbeat, _CALL)
            kind, value, used = _call(self.function, args, kwargs, self.returns, self.forbidden)
            _write(self._heartbeat, _DONE)
        else:
            try:
                with _alarm(self.limit):
                    kind, value, used = _call(
                        self.function, args, kwargs, self.returns, self.forbidden
                    )
            except _TimeUp:
                kind, value, used = "timeout", None, None
        if used and self.used is None:
            self.used = used
        if kind == "timeout":
            raise LearnerError(f"your function took longer than {self.limit:g} s")
        if kind == "error":
            raise LearnerError(value)
        return value


# One grading = at most one child process. The child writes one byte as each call of the
# learner's function starts and ends, then _RESULT and the pickled outcome.
_CALL, _DONE, _RESULT = b"S", b"E", b"R"

#: Seconds the grader itself may run in the child outside the learner's calls.
GRADER_TIME_LIMIT = 120.0

Outcome = tuple[str, str | None]  # ("hint", hint or None) | ("learner" | "bug", message)


def _grade_here(grader: Callable[[Any], str | None], learner: LearnerFunction) -> Outcome:
    try:
        return "hint", grader(learner)
    except LearnerError as error:  # the learner's function failed: that is a hint
        return "learner", str(error)
    except Exception as error:  # the grader failed
        return "bug", f"{type(error).__name__}: {error}"


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _child(write_fd: int, grader: Callable[[Any], str | None], learner: LearnerFunction) -> None:
    """The forked child's work: grade, send the outcome through the pipe. Never returns."""
    status = 1
    try:
        torch.set_num_threads(1)  # the parent's OpenMP threads are not in this process
        learner._heartbeat = write_fd
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            outcome = _grade_here(grader, learner)
        payload = pickle.dumps((outcome, learner.used, out.getvalue(), err.getvalue()))
        _write(write_fd, _RESULT + payload)
        status = 0
    finally:
        os._exit(status)  # no atexit handlers, no test runner, no kernel loop in the child


def _grade_in_child(
    grader: Callable[[Any], str | None], learner: LearnerFunction
) -> Outcome | None:
    """Grade in a forked child; kill it when a call of the learner's function passes its limit.

    Returns None when the process cannot fork.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()  # nothing buffered is written twice
    read_fd, write_fd = os.pipe()
    try:
        with warnings.catch_warnings():
            # Python 3.12+ warns that fork in a threaded process may deadlock the child; the
            # child runs torch on one thread, and is killed if it hangs all the same.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:
        os.close(read_fd)
        _child(write_fd, grader, learner)
    os.close(write_fd)
    payload = bytearray()
    finished, in_call, call_start = False, False, 0.0
    grader_deadline = time.monotonic() + GRADER_TIME_LIMIT
    poller = select.poll()
    poller.register(read_fd, select.POLLIN | select.POLLHUP)
    try:
        while True:
            now = time.monotonic()
            left = (call_start + learner.limit if in_call else grader_deadline) - now
            if left <= 0 or not poller.poll(left * 1000):
                break
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                finished = True
                break
            if payload:  # the result has begun: the rest is the result
                payload += chunk
                continue
            for position, byte in enumerate(chunk):
                if byte == _CALL[0]:
                    in_call, call_start = True, time.monotonic()
                elif byte == _DONE[0]:
                    in_call = False
                elif byte == _RESULT[0]:
                    payload += chunk[position:]
                    break
    finally:
        os.close(read_fd)
        if not finished:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):  # reaped already by a SIGCHLD handler
            os.waitpid(pid, 0)  # reap: no zombie
    if in_call and not finished:
        return "learner", f"your function took longer than {learner.limit:g} s"
    if not finished:
        return "bug", f"TimeoutError: grading took longer than {GRADER_TIME_LIMIT:g} s"
    if not payload:  # the child died without a result: killed, or out of memory
        if in_call:
            return "learner", "your function ended the checker's process (out of memory?)"
        return "bug", "RuntimeError: the grading process ended without a result"
    outcome, used, printed, warned = pickle.loads(bytes(payload[1:]))
    if printed:
        sys.stdout.write(printed)
    if warned:
        sys.stderr.write(warned)
    learner.used = used
    return outcome


def grade_function(grader: Callable[[Any], str | None], learner: LearnerFunction) -> Outcome:
    """Run ``grader`` on the learner's function: in a forked child where :data:`USE_FORK`, else
    here (each call under a SIGALRM limit where Unix offers one).

    Returns:
        ("hint", the grader's verdict), ("learner", a hint about the function's failure) or
        ("bug", the grader's own error). :attr:`LearnerFunction.used` is set.
    """
    outcome = _grade_in_child(grader, learner) if USE_FORK else None
    return outcome if outcome is not None else _grade_here(grader, learner)
