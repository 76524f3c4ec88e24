"""Figures for the notebooks: pure functions, data in and a ``matplotlib.figure.Figure`` out.

Nothing here calls ``plt.show()`` or touches the global rcParams. Figures are built with
``matplotlib.figure.Figure`` (no pyplot state), so a notebook displays one by leaving it as the
cell's last value. Colour conventions: ``Purples_r`` for the picture and its tokens, a diverging
map with limits -1..1 for embeddings.

One module per subject (``core`` holds the shared building blocks, ``files`` turns figures into
PNG and GIF files; ``training`` holds notebook 06's figures of the trained ViT, ``interpret``
notebook 08's); every figure function is importable from ``vitexplain.plotting``.
"""

from . import (
    attention,
    clocks,
    core,
    files,
    interpret,
    learned_position,
    patches,
    position,
    position_similarity,
    relative_position,
    t2t,
    t2t_animation,
    training,
)

_MODULES = (
    core,
    files,
    patches,
    attention,
    position,
    clocks,
    position_similarity,
    relative_position,
    t2t,
    t2t_animation,
    training,
    learned_position,
    interpret,
)
for _module in _MODULES:
    globals().update({name: getattr(_module, name) for name in _module.__all__})
del _module

__all__ = sorted({name for module in _MODULES for name in module.__all__}, key=str.lower)
