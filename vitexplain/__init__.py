"""vitexplain: the code behind a notebook series on how Vision Transformers work.

Every public name is importable from here (``import vitexplain as vx; vx.patchify(...)``); each
lives in the module of the notebook that introduces it, and ``__all__`` is the union of those
modules' ``__all__``. The figure functions (``vitexplain.plotting``, ``vitexplain.explore``) load
matplotlib, so they are imported on first use (PEP 562), not by ``import vitexplain``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from . import attention as _attention
from . import data as _data
from . import errata as _errata
from . import inspection as _inspection
from . import learned_position as _learned_position
from . import patches as _patches
from . import position as _position
from . import relative_position as _relative_position
from . import scramble as _scramble
from . import t2t as _t2t
from . import torch_modules as _torch_modules
from . import training as _training
from . import unfold as _unfold
from . import vit as _vit

__version__ = "0.1.0"

# Modules whose names are re-exported eagerly: torch, numpy and einops only.
_EAGER: tuple[ModuleType, ...] = (
    _data,
    _unfold,
    _patches,
    _attention,
    _position,
    _relative_position,
    _errata,
    _vit,
    _t2t,
    _training,
    _scramble,
    _inspection,
    _learned_position,
    _torch_modules,
)
# Modules that import matplotlib (or ipywidgets): loaded when one of their names is first used.
_LAZY: tuple[str, ...] = ("plotting", "explore")
# Subpackages reached as attributes: ``vx.exercises.check(...)``.
_SUBPACKAGES: tuple[str, ...] = ("exercises",)

for _module in _EAGER:
    globals().update({name: getattr(_module, name) for name in _module.__all__})
del _module


def _lazy_module(name: str) -> ModuleType:
    return importlib.import_module(f".{name}", __name__)


def __getattr__(name: str) -> object:
    if name == "__all__":
        names = {n for m in _EAGER for n in m.__all__}
        names.update(n for m in _LAZY for n in _lazy_module(m).__all__)
        return sorted(names, key=str.lower)
    if name in _LAZY or name in _SUBPACKAGES:
        return _lazy_module(name)
    for module_name in _LAZY:
        module = _lazy_module(module_name)
        if name in module.__all__:
            value = getattr(module, name)
            globals()[name] = value  # later look-ups skip __getattr__
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__getattr__("__all__")) | set(_SUBPACKAGES))
