"""Running a learner's function for a grader: in a worker process, each call under a time limit.

The grader runs here, in the learner's process; only the learner's function runs in a worker
(a ``multiprocessing`` process with an explicit start method), one worker per grading. Each call
sends the inputs by value through a ``Pipe`` and waits with ``Connection.poll(limit)``; a call
that passes the limit gets the worker killed (``Process.kill``), whatever the function catches
or wherever it loops. The worker returns the result as plain numbers (a NumPy array or a Python
number), so nothing it changes or fakes reaches the grader.

Start methods: ``fork`` on Linux (the worker inherits the function: no pickling, ready in
milliseconds); ``spawn`` elsewhere, or when :data:`START_METHOD` says so (the tests force it):
the function is sent by value (``cloudpickle``) to a worker started ahead of time and kept warm
(a fresh one is started after each grading). A function that cannot be sent (it reads a lock, a
generator or a DataLoader iterator of the notebook) or that the worker cannot load (an
``lru_cache`` wrapper of the notebook, sent by name) is run here instead, in a thread, under the
same time limit (:func:`_here`). In the worker each call starts from the same state
(float32, CPU, seeds 0) and runs under a memory limit where the OS has ``RLIMIT_DATA`` (Linux).
What a call prints and displays comes back with its result (:mod:`._output`); a spawned worker
of a notebook starts an IPython shell of its own, so that ``display()`` works there too.

Interrupting a check (Ctrl-C, Jupyter's Interrupt) is the learner's process's business: workers
start with SIGINT blocked (a POSIX child keeps the signal mask of the thread that starts it, a
spawned Python too) and then ignore it, so no worker prints a traceback of its own; a Ctrl-C that
lands while a worker starts is held until it has started (:func:`_interrupts_held`). The
learner's process raises :class:`Interrupted`, which a notebook shows as one line.
"""

from __future__ import annotations

import contextlib
import functools
import io
import multiprocessing
import os
import pickle
import random
import signal
import sys
import textwrap
import threading
import types
import warnings
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
import torch

from ._output import Event, ipython, recording, shell_settings, start_ipython
from ._rules import LearnerError, coerce
from ._watch import watch

#: "fork" or "spawn"; None: fork where the platform defaults to it (Linux), else spawn.
START_METHOD: str | None = os.environ.get("VITEXPLAIN_GRADER_START") or None
#: Seconds a worker may take to start (spawn imports torch) before the grading gives up.
STARTUP_LIMIT = 120.0
#: Bytes a call may allocate beyond what the worker holds when it starts (Linux only).
MEMORY_LIMIT = 2 << 30

_POSIX = hasattr(signal, "pthread_sigmask")  # Windows has no signal masks


@contextlib.contextmanager
def clean_state() -> Iterator[None]:
    """Standard torch/NumPy/random state inside (float32, CPU, the caller's RNG states kept),
    the caller's own state restored after: grading neither reads nor changes it."""
    dtype, threads = torch.get_default_dtype(), torch.get_num_threads()
    states = (np.random.get_state(), random.getstate())
    try:
        with torch.random.fork_rng(devices=[]), torch.device("cpu"):
            torch.set_default_dtype(torch.float32)
            torch.set_num_threads(1)  # small tensors: one thread is fastest, and the same
            yield
    finally:
        torch.set_num_threads(threads)
        torch.set_default_dtype(dtype)
        np.random.set_state(states[0])
        random.setstate(states[1])


def _fresh_state() -> None:
    """The state every call starts from, in the worker."""
    torch.set_default_dtype(torch.float32)
    torch.manual_seed(0)
    np.random.seed(0)
    random.seed(0)


def _call(function: Callable[..., Any], returns: type, forbids: tuple[str, ...], args: Any):
    """One call of the learner's function in the worker: ("ok" | "error", value, used, output)."""
    with watch(forbids) as used, recording() as output:
        try:
            _fresh_state()
            with torch.device("cpu"):
                kind, value = "ok", coerce(function(*args), returns)
        except LearnerError as error:
            kind, value = "error", str(error)
        except BaseException as error:  # SystemExit, KeyboardInterrupt too: the learner's code
            detail = textwrap.shorten(str(error), 120)
            kind, value = (
                "error",
                f"your function raised {type(error).__name__}" + (f": {detail}" if detail else ""),
            )
    return kind, value, (used or [None])[0], output.events


def _limit_memory() -> None:
    try:
        import resource

        with open("/proc/self/status") as status:
            data = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmData"))
        resource.setrlimit(resource.RLIMIT_DATA, (data + MEMORY_LIMIT, data + MEMORY_LIMIT))
    except (ImportError, OSError, ValueError, StopIteration):
        pass  # no /proc or no RLIMIT_DATA (macOS, Windows): no memory limit


def _serve(conn: Connection, function: Callable[..., Any] | None, shell: str | None) -> None:
    """The worker: receive the function (spawn) and its settings, then answer calls."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the learner's process handles interrupts,
    if _POSIX:  # and one sent while this worker started (blocked since) is dropped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    torch.set_num_threads(1)  # small inputs; and a forked child has no OpenMP pool
    if shell is not None:  # spawned for a notebook: display() needs a shell (fork inherits it)
        start_ipython(shell)
    conn.send(("ready",))
    message = conn.recv()
    if function is None:
        import cloudpickle

        try:
            function = cloudpickle.loads(message[1])
        except Exception as error:  # e.g. an lru_cache wrapper of the notebook, sent by name
            conn.send(("unloadable", f"{type(error).__name__}: {error}"))
            return
    conn.send(("loaded",))
    returns, forbids = message[2], message[3]
    _limit_memory()
    while (request := conn.recv_bytes()) != b"":
        conn.send_bytes(pickle.dumps(_call(function, returns, forbids, pickle.loads(request))))
    conn.close()


class _Holder:
    """Stands in for a cached function until its code arrives (a recursive one refers to its
    own cache: the cache is made first, the code set after)."""

    function: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.function(*args, **kwargs)


def _cache(maxsize: int | None, typed: bool) -> Callable[..., Any]:
    return functools.lru_cache(maxsize=maxsize, typed=typed)(_Holder())


def _fill(cache: Any, function: Callable[..., Any]) -> None:
    cache.__wrapped__.function = function
    functools.update_wrapper(cache, function)


def _dumps(function: Callable[..., Any]) -> bytes:
    """The function by value (cloudpickle), and with it the notebook's ``lru_cache`` wrappers
    (``@functools.cache`` too), which pickle would send by a name the worker does not have."""
    import cloudpickle

    class Pickler(cloudpickle.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, functools._lru_cache_wrapper) and obj.__module__ == "__main__":
                settings = obj.cache_parameters()
                cache = (settings["maxsize"], settings["typed"])
                return _cache, cache, obj.__wrapped__, None, None, _fill
            return super().reducer_override(obj)

    buffer = io.BytesIO()
    Pickler(buffer, protocol=pickle.DEFAULT_PROTOCOL).dump(function)
    return buffer.getvalue()


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """A Ctrl-C held back while a worker starts, and raised here once it has started.

    SIGINT is blocked in this thread, so the worker starts with it blocked (:func:`_serve`
    ignores it, then unblocks it); another thread may still receive it (a kernel has several),
    so the main thread's handler only notes it meanwhile.
    """
    noted: list[int] = []
    previous = signal.getsignal(signal.SIGINT)  # None: set outside Python, not restorable
    main = threading.current_thread() is threading.main_thread() and previous is not None
    if main:  # only the main thread may set a handler
        signal.signal(signal.SIGINT, lambda *_: noted.append(1))
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if _POSIX else None
    try:
        yield
    finally:
        if mask is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one held is noted now
        if main:
            signal.signal(signal.SIGINT, previous)
        if noted:
            signal.raise_signal(signal.SIGINT)  # to the learner's handler: KeyboardInterrupt


def _start(method: str, function: Callable[..., Any] | None) -> tuple[Any, Connection]:
    context = multiprocessing.get_context(method)
    ours, theirs = context.Pipe()
    shell = shell_settings() if method == "spawn" else None
    process = context.Process(target=_serve, args=(theirs, function, shell), daemon=True)
    main = sys.modules["__main__"]
    if method == "spawn" and _POSIX:  # its first start unblocks SIGINT: before ours, not in it
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    if method == "spawn":  # spawn would run the learner's script (a __main__ with a __file__)
        # again in the worker; the function travels by value, so the worker needs no __main__.
        sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        with warnings.catch_warnings(), _interrupts_held():  # Python 3.12+: fork of a
            warnings.simplefilter("ignore", DeprecationWarning)  # threaded process; 1 thread
            process.start()
    except KeyboardInterrupt:  # a Ctrl-C while it started: it ends too
        if process.pid is not None:
            process.kill()
            process.join()
        raise
    finally:
        sys.modules["__main__"] = main
    theirs.close()
    return process, ours


def _stop(worker: tuple[Any, Connection], now: bool = False) -> None:
    """End a worker: ask, and kill it if it has not ended a second later (or at once: ``now``,
    for a worker busy with a call or still starting)."""
    process, conn = worker
    if not now:
        with contextlib.suppress(OSError):
            conn.send_bytes(b"")
        process.join(1)
    if process.is_alive():
        process.kill()
        process.join()
    conn.close()


def _load(worker: tuple[Any, Connection], message: tuple) -> bool:
    """Whether the worker started and loaded the function; if not, it is stopped."""
    conn = worker[1]
    try:
        if conn.poll(STARTUP_LIMIT) and conn.recv() == ("ready",):
            conn.send(message)
            if conn.poll(STARTUP_LIMIT) and conn.recv() == ("loaded",):
                return True
    except (EOFError, OSError):  # the worker ended while starting
        pass
    except BaseException:  # interrupted (Ctrl-C) while it starts: it ends too
        _stop(worker, now=True)
        raise
    _stop(worker)
    return False


class Interrupted(KeyboardInterrupt):
    """A check the learner interrupted; a notebook shows it as one line, not a traceback."""

    def _render_traceback_(self) -> list[str]:  # IPython shows these lines instead of one
        return [f"KeyboardInterrupt: {self}"]


def _interrupt(thread: threading.Thread) -> None:
    """Raise Interrupted in a thread at its next line of Python (a learner's loop ends there)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread.ident), ctypes.py_object(Interrupted)
    )


def _here(
    function: Callable[..., Any], returns: type, forbids: tuple[str, ...], args: Any, limit: float
):
    """One call in this process, for a function no worker can hold: in a thread, on a copy of
    the inputs, stopped at ``limit`` seconds (if it runs Python code then), the result copied.

    Returns:
        What :func:`_call` returns, or None when the call took longer than ``limit``.
    """
    box: list[Any] = []
    args = pickle.loads(pickle.dumps(args))
    shell = ipython()
    streams = sys.stdout, sys.stderr, shell.display_pub if shell is not None else None
    thread = threading.Thread(
        target=lambda: box.append(_call(function, returns, forbids, args)), daemon=True
    )
    thread.start()
    late = True
    try:
        thread.join(limit)
        late = thread.is_alive()
    finally:
        if late:  # too long, or the learner interrupted the check
            _interrupt(thread)
            thread.join(0.5)
        if thread.is_alive():  # still in C code (a sleep): the learner's output is theirs again
            sys.stdout, sys.stderr = streams[:2]
            if shell is not None:
                shell.display_pub = streams[2]
    return None if late else pickle.loads(pickle.dumps(box[0]))


_spare: tuple[Any, Connection] | None = None  # a spawned worker waiting for its function


def start_method() -> str:
    """The start method the next grading uses."""
    if START_METHOD is not None:
        return START_METHOD
    return "fork" if sys.platform.startswith("linux") else "spawn"


def prestart() -> None:
    """Start a spawned worker ahead of the next grading (no-op with fork)."""
    global _spare
    if start_method() == "spawn" and (_spare is None or not _spare[0].is_alive()):
        _spare = _start("spawn", None)


def _ended(process: Any) -> str:
    process.join(1)
    code = process.exitcode
    if code is not None and code < 0:
        name = signal.Signals(-code).name
        why = " (out of memory?)" if name == "SIGKILL" else ""
        return f"your function's process was killed by {name}{why}"
    return f"your function ended its process (exit code {code}), as os._exit does"


class LearnerFunction:
    """A learner's function as graders call it: run in a worker, time-limited, result plain.

    Use as a context manager (it starts and ends the worker). Calls return a Python int, or a
    tensor (``returns`` torch.Tensor) or array (np.ndarray) of the dtype the learner returned.
    A function no worker can hold (see the module) runs in this process: :func:`_here`.
    """

    def __init__(self, function: Callable[..., Any], returns: type, forbids=(), limit=10.0):
        self.function, self.returns, self.forbids, self.limit = function, returns, forbids, limit
        self.used: str | None = None
        self.outputs: list[Event] = []  # what the first call that printed or displayed did
        self._worker: tuple[Any, Connection] | None = None  # None: calls run in this process

    def __repr__(self) -> str:
        return f"your function {getattr(self.function, '__name__', '')}".rstrip()

    def __enter__(self) -> LearnerFunction:
        global _spare
        method, payload = start_method(), None
        if method == "spawn":
            try:
                payload = _dumps(self.function)
            except Exception:  # it reads a lock, a generator, an iterator ...: run it here
                return self
            prestart()
            worker, _spare = _spare, None
        else:
            worker = _start(method, self.function)
        if _load(worker, ("load", payload, self.returns, self.forbids)):
            self._worker = worker
        return self

    def __exit__(self, *exc: object) -> None:
        if self._worker is not None:  # busy with a call if interrupted: killed at once
            _stop(self._worker, now=exc[0] is not None)
            self._worker = None
        if start_method() == "spawn":
            prestart()  # warm for the next grading

    def _result(self, args: tuple) -> tuple:
        """("ok" | "error", value, used, outputs) of one call, in the worker or here."""
        if self._worker is None:
            reply = _here(self.function, self.returns, self.forbids, args, self.limit)
            if reply is None:
                raise LearnerError(f"your function took longer than {self.limit:g} s")
            return reply
        process, conn = self._worker
        try:
            conn.send_bytes(pickle.dumps(args))
        except (OSError, ValueError):
            raise LearnerError(_ended(process)) from None
        if not conn.poll(self.limit):
            process.kill()
            raise LearnerError(f"your function took longer than {self.limit:g} s")
        try:
            return pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            raise LearnerError(_ended(process)) from None

    def __call__(self, *args: Any) -> Any:
        kind, value, used, outputs = self._result(args)
        self.used = self.used or used
        self.outputs = self.outputs or outputs
        if kind == "error":
            raise LearnerError(value)
        if self.returns is int:
            return value
        array, dtype = value
        if self.returns is np.ndarray:  # NumPy has no bfloat16: float16 keeps its tolerance
            return array.astype(np.float16) if dtype == "bfloat16" else array
        tensor = torch.from_numpy(array)
        return tensor.bfloat16() if dtype == "bfloat16" else tensor


Outcome = tuple[str, str | None]  # ("hint", hint or None) | ("learner" | "bug", message)


def grade_function(grader: Callable[[Any], str | None], learner: LearnerFunction) -> Outcome:
    """Run ``grader`` on the learner's function, which runs in a worker process.

    Returns:
        ("hint", the grader's verdict), ("learner", a hint about the function's failure) or
        ("bug", the grader's own error). :attr:`LearnerFunction.used` and ``outputs`` are set.
    """
    try:
        with learner:
            return "hint", grader(learner)
    except LearnerError as error:
        return "learner", str(error)
    except Exception as error:  # the grader failed
        return "bug", f"{type(error).__name__}: {error}"
