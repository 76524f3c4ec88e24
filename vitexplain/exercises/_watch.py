"""Which forbidden helper a learner's function called, however it reached it.

A forbidden path names a Python function or class (seen by a profile hook when its code runs,
whatever name it was imported under), a module or package (any of its functions), or a torch
function implemented in C (seen by a torch function mode, also when reached as
``torch.ops.aten.<name>``).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from torch.overrides import TorchFunctionMode


def display_name(path: str) -> str:
    """How a task names a helper: ``F.x``, ``nn.X``, ``vx.x``."""
    for prefix, short in (("torch.nn.functional.", "F."), ("torch.nn.", "nn.")):
        if path.startswith(prefix):
            return short + path.removeprefix(prefix)
    if path.startswith("vitexplain.exercises."):
        return "vx." + path.removeprefix("vitexplain.")
    if path.startswith("vitexplain."):
        return "vx." + path.rpartition(".")[2]
    return path


def _resolve(path: str) -> Any:
    """The object a dotted path names (a module, or an attribute of one)."""
    with contextlib.suppress(ImportError):
        return importlib.import_module(path)
    module_name, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), name)


class _Targets:
    """The forbidden paths, sorted by how each is recognised."""

    def __init__(self, forbidden: tuple[str, ...]) -> None:
        self.codes: dict[CodeType, str] = {}
        self.folders: dict[str, str] = {}  # file or package folder -> name
        self.torch_names: dict[str, str] = {}  # __name__ of a C function -> name
        for path in forbidden:
            target = _resolve(path)
            if isinstance(target, ModuleType):
                file = Path(target.__file__)
                where = file.parent if file.name == "__init__.py" else file
                name = "vx.exercises.solution" if ".exercises" in path else display_name(path)
                self.folders[str(where)] = name
                continue
            if isinstance(target, type):
                target = target.__init__
            code = getattr(target, "__code__", None)
            if isinstance(code, CodeType):
                self.codes[code] = display_name(path)
            else:
                self.torch_names[target.__name__] = display_name(path)

    def of_frame(self, code: CodeType) -> str | None:
        if code in self.codes:
            return self.codes[code]
        for where, name in self.folders.items():
            if code.co_filename.startswith(where):
                return name
        return None


class _TorchWatch(TorchFunctionMode):
    def __init__(self, names: dict[str, str], used: list[str]) -> None:
        super().__init__()
        self.names, self.used = names, used

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
        name = getattr(func, "__name__", "")
        qualname = getattr(func, "__qualname__", "") or ""
        if name in self.names and "Tensor" not in qualname and not self.used:
            self.used.append(self.names[name])
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def watch(forbidden: tuple[str, ...]) -> Iterator[list[str]]:
    """Record, in the list it yields, the first forbidden helper the code inside calls."""
    used: list[str] = []
    if not forbidden:
        yield used
        return
    targets = _Targets(forbidden)

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and not used and (name := targets.of_frame(frame.f_code)):
            used.append(name)

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        with _TorchWatch(targets.torch_names, used):
            yield used
    finally:
        sys.setprofile(previous if callable(previous) else None)
