"""Figures to files and bytes: deterministic PNG, a small GIF, and where a notebook's figures go.

``save_figure`` and ``save_gif`` write where the notebook asks (``../figures/NN_name.png``) unless
the environment variable ``VITEXPLAIN_FIGURES_DIR`` names another folder: ``make test`` sets it, so
that running the notebooks under test never rewrites the committed figures.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

__all__ = [
    "figure_path",
    "FIGURES_DIR_VARIABLE",
    "figure_to_array",
    "figure_to_png",
    "save_figure",
    "save_gif",
]


def figure_to_array(fig: Figure) -> np.ndarray:
    """Render a figure in memory and return its pixels.

    Args:
        fig: the figure.

    Returns:
        uint8 array of shape (height, width, 3), RGB.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


FIGURES_DIR_VARIABLE = "VITEXPLAIN_FIGURES_DIR"


def figure_path(path: str | Path) -> Path:
    """Where a figure meant for ``path`` is written: ``path`` itself, or, when the environment
    variable ``VITEXPLAIN_FIGURES_DIR`` is set, a file of the same name in that folder.

    ``make test`` sets the variable, so the notebooks it runs leave ``figures/`` untouched and
    their figures can be compared with the committed ones; ``make figures`` does not set it.

    Args:
        path: the file a notebook asks for, e.g. ``"../figures/01_token12.png"``.

    Returns:
        The path to write; its parent folder exists.
    """
    path = Path(path)
    folder = os.environ.get(FIGURES_DIR_VARIABLE)
    if folder:
        path = Path(folder) / path.name
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def save_figure(fig: Figure, path: str | Path, dpi: int = 100) -> Path:
    """Write a figure as a PNG whose bytes depend only on the figure (no software/date stamps).

    Args:
        fig: the figure.
        path: file to write (redirected by :func:`figure_path` when ``VITEXPLAIN_FIGURES_DIR`` is
            set); parent folders are created.
        dpi: resolution.

    Returns:
        The path written.
    """
    if Path(path).suffix != ".png":
        raise ValueError(f"save_figure writes PNG files, got path {str(path)!r}")
    path = figure_path(path)
    fig.savefig(path, dpi=dpi, metadata={"Software": None})
    return path


def save_gif(frames: Sequence[np.ndarray], path: str | Path, fps: float = 10.0) -> Path:
    """Write frames as a looping GIF with one shared palette.

    The palette (at most 256 colours, no dithering) is taken from a sample of the frames (up to
    eight, evenly spaced, first and last included, at half resolution), so colours that appear
    only in later frames get entries too; every frame is mapped onto it, so flat figure colours
    stay flat and the file stays small.

    Args:
        frames: uint8 arrays of shape (H, W, 3), all the same shape (e.g. from
            :func:`figure_to_array`).
        path: file to write (redirected by :func:`figure_path` when ``VITEXPLAIN_FIGURES_DIR`` is
            set); parent folders are created.
        fps: frames per second.

    Returns:
        The path written.
    """
    from PIL import Image

    if len(frames) == 0:
        raise ValueError("frames is empty: a GIF needs at least one frame")
    shapes = {np.shape(f) for f in frames}
    if len(shapes) != 1 or len(next(iter(shapes))) != 3 or next(iter(shapes))[2] != 3:
        raise ValueError(f"frames must all have one shape (H, W, 3), got shapes {sorted(shapes)}")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    path = figure_path(path)
    sample = np.linspace(0, len(frames) - 1, min(len(frames), 8)).round().astype(int)
    stacked = np.concatenate([np.asarray(frames[i], dtype=np.uint8)[::2, ::2] for i in sample])
    palette = Image.fromarray(stacked).quantize(colors=256, dither=Image.Dither.NONE)
    indexed = [
        Image.fromarray(np.asarray(f, dtype=np.uint8)).quantize(
            palette=palette, dither=Image.Dither.NONE
        )
        for f in frames
    ]
    # Written as paletted frames: converting them back to RGB made the writer quantise each
    # frame again (two thirds of the time). Pillow stores each frame as its change to the last.
    indexed[0].save(
        path, format="GIF", save_all=True, append_images=indexed[1:], duration=1000 / fps, loop=0
    )
    return path


def figure_to_png(fig: Figure, dpi: int = 100) -> bytes:
    """Render a figure to PNG bytes in memory, the same bytes :func:`save_figure` writes.

    Args:
        fig: the figure.
        dpi: resolution.

    Returns:
        The PNG file's bytes (no software/date stamps, so equal figures give equal bytes).
    """
    from io import BytesIO

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    buffer = BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


# --- building blocks shared by the figure modules -------------------------------------------------
