"""Figures of notebook 03, part 2: every sin/cos pair of the table as a clock hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..position import clock_pairs, clock_periods, sinusoid_encoding
from .core import (
    as_array,
    fixed_figure,
    show_embedding,
)
from .position import POSITION_CMAP, base_label, period_label

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "show_clock_explorer",
    "show_clocks",
]


def _draw_clocks(
    ax: Axes,
    cax: Axes,
    table: np.ndarray,
    base: float,
    pairs: Sequence[int],
    ncols: int = 3,
    orientation: str = "vertical",
) -> None:
    """Draw pair i of ``table`` as points (sin, cos) on a unit circle, one circle per pair.

    The circles sit on a grid of ``ncols`` columns inside one axes (one axes is much faster to
    draw than nine); the position colour bar goes into ``cax``, drawn in ``orientation``.
    """
    from matplotlib.patches import Circle

    periods = clock_periods(table.shape[1], base)
    pairs = [int(p) for p in pairs]
    nrows = -(-len(pairs) // ncols)
    centres = np.array([(2.8 * (n % ncols), -3.3 * (n // ncols)) for n in range(len(pairs))])
    xs, ys = [], []
    for (x0, y0), i in zip(centres, pairs, strict=True):
        ax.add_patch(Circle((x0, y0), 1, fill=False, color="0.7", lw=1))
        ax.plot([x0, x0], [y0 + 0.85, y0 + 1.15], color="0.4", lw=1)  # 12 o'clock: position 0
        ax.text(
            x0,
            y0 + 1.25,
            f"pair {i}\nperiod {period_label(periods[i])}",
            ha="center",
            va="bottom",
            fontsize=8,
            linespacing=1.1,
        )
        xs.append(x0 + table[:, 2 * i])
        ys.append(y0 + table[:, 2 * i + 1])
    positions = np.tile(np.arange(len(table)), len(pairs))
    scatter = ax.scatter(
        np.concatenate(xs),
        np.concatenate(ys),
        c=positions,
        s=9,
        cmap=POSITION_CMAP,
        vmin=0,
        vmax=max(len(table) - 1, 1),
    )
    ax.set_xlim(-1.3, 2.8 * (ncols - 1) + 1.3)
    ax.set_ylim(-3.3 * (nrows - 1) - 1.15, 2.05)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.figure.colorbar(scatter, cax=cax, label="position (token)", orientation=orientation)


def show_clocks(
    table: np.ndarray | torch.Tensor,
    base: float = 10000.0,
    pairs: Sequence[int] | None = None,
    figsize: tuple[float, float] = (4.8, 5.6),
) -> Figure:
    """Draw chosen sin/cos pairs of an embedding table as clocks: points on unit circles.

    Position pos puts pair i at (sin(pos w_i), cos(pos w_i)): it starts at the top of the circle
    (12 o'clock, marked) and turns clockwise by w_i radians per position. Points are coloured by
    position, and each circle is titled with its pair's period in tokens.

    Args:
        table: array of shape (L, D), a sinusoidal table (``sinusoid_encoding(L, D, base)``).
        base: the base the table was made with (for the periods in the titles).
        pairs: indices of at most 9 pairs to draw; ``clock_pairs(D)`` when None.
        figsize: size of the figure.

    Returns:
        The figure: a 3 x 3 grid of unit circles (horizontal axis sin, vertical axis cos) in one
        axes, and a colour bar for the position below it (it fits a phone's width).
    """

    table = as_array(table)  # (L, D)
    pairs = clock_pairs(table.shape[1]) if pairs is None else list(pairs)
    num_pairs = table.shape[1] // 2
    if not 0 < len(pairs) <= 9 or not all(0 <= p < num_pairs for p in pairs):
        raise ValueError(f"pairs must hold 1 to 9 indices in [0, {num_pairs}), got {pairs}")
    fig = fixed_figure(figsize)
    ax = fig.add_axes((0.01, 0.18, 0.98, 0.815))
    cax = fig.add_axes((0.15, 0.145, 0.7, 0.025))
    _draw_clocks(ax, cax, table, base, pairs, orientation="horizontal")
    fig.text(
        0.5,
        0.01,
        r"horizontal: $\sin(pos\,\omega_i)$, vertical: $\cos(pos\,\omega_i)$;"
        "\nthe mark at 12 o'clock is position 0",
        ha="center",
        fontsize=8,
    )
    return fig


def show_clock_explorer(
    base: float = 10000.0,
    dim: int = 18,
    num_tokens: int = 100,
    figsize: tuple[float, float] = (9, 4),
) -> Figure:
    """The table and its clocks for one (base, dim): what the Explore sliders of notebook 03 redraw.

    Args:
        base: the wavelength scale.
        dim: embedding length D (at least 2).
        num_tokens: number of positions L.
        figsize: size of the figure.

    Returns:
        The figure: the (L, D) table on the left (diverging map, limits -1..1, colour bar), and on
        the right up to 9 pairs spread from fast to slow (``clock_pairs(D)``) drawn as clocks, with
        a position colour bar. Fixed layout (no layout engine), so that a redraw stays fast.
    """

    table = sinusoid_encoding(num_tokens, dim, base).numpy()  # (L, D)
    pairs = clock_pairs(dim)
    fig = fixed_figure(figsize)
    left = fig.add_axes((0.07, 0.12, 0.31, 0.78))
    show_embedding(
        table,
        ax=left,
        colorbar=False,
        title=f"{num_tokens} x {dim} table, base {base_label(base)}",
    )
    fig.colorbar(left.images[0], cax=fig.add_axes((0.39, 0.2, 0.012, 0.62)), label="value")
    right = fig.add_axes((0.47, 0.01, 0.44, 0.98))
    _draw_clocks(right, fig.add_axes((0.93, 0.2, 0.012, 0.62)), table, base, pairs)
    return fig
