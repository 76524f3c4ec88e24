"""Figures of notebook 03, part 1: the sinusoidal table itself, its columns and frequencies.

The clocks are in ``plotting/clocks.py``, similarities and resizing in
``plotting/position_similarity.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import torch

from ..position import clock_periods
from .core import EMBEDDING_CMAP, PICTURE_CMAP, as_array, new_axes, new_figure, show_embedding

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "POSITION_CMAP",
    "show_columns",
    "show_embedding_bases",
    "show_frequencies",
    "show_table_bands",
    "show_tokens_plus_embedding",
]

POSITION_CMAP = "viridis"  # the colour of a position along the sequence (the clocks)


def base_label(base: float) -> str:
    """``$10^{4}$`` for a power of ten, else the number."""
    exponent = float(np.log10(base))
    return f"$10^{{{exponent:g}}}$" if exponent == round(exponent) else f"{base:.3g}"


def period_label(period: float) -> str:
    return f"{period:.1f}" if period < 1000 else f"{period:,.0f}"


_DPI = 100  # the pixel layouts below are computed for this resolution (that of save_figure)


class _Band(NamedTuple):
    """One heat map of :func:`_heat_map_bands`; bands with the same ``colorbar`` label share one."""

    matrix: np.ndarray  # (R, C)
    title: str
    cmap: str
    vmin: float
    vmax: float
    colorbar: str
    first_column: int = 0  # index of the matrix's first column, for the ticks


def _heat_map_bands(
    bands: Sequence[_Band], column_px: float, row_px: float, xlabel: str, ylabel: str
) -> Figure:
    """Stack heat maps vertically, each at a fixed number of pixels per column and per row.

    A table of many columns drawn into fewer pixels aliases (columns are dropped or merged into
    moire patterns); here every column gets ``column_px`` >= 1 pixels at the figure's 100 dpi.

    Args:
        bands: the heat maps, top to bottom.
        column_px, row_px: pixels per column and per row.
        xlabel, ylabel: axis labels (the x label on the last band only).

    Returns:
        The figure, with a fixed layout (no layout engine).
    """
    left, right, top, gap, bottom, bar = 64, 110, 28, 56, 44, 14
    widths = [band.matrix.shape[1] * column_px for band in bands]
    heights = [band.matrix.shape[0] * row_px for band in bands]
    width = left + max(widths) + right
    height = top + sum(heights) + gap * (len(bands) - 1) + bottom
    fig = new_figure((width / _DPI, height / _DPI), layout=None, dpi=_DPI)
    y = height - top
    groups: dict[str, list] = {}  # colour bar label -> [(image, bottom, height) of its bands]
    for band, w, h in zip(bands, widths, heights, strict=True):
        y -= h
        ax = fig.add_axes((left / width, y / height, w / width, h / height))
        (rows, cols), c0 = band.matrix.shape, band.first_column
        extent = (c0 - 0.5, c0 + cols - 0.5, rows - 0.5, -0.5)
        colours = {"cmap": band.cmap, "vmin": band.vmin, "vmax": band.vmax}
        im = ax.imshow(
            band.matrix, **colours, aspect="auto", interpolation="nearest", extent=extent
        )
        ax.set_title(band.title, fontsize=10)
        ax.set_ylabel(ylabel)
        groups.setdefault(band.colorbar, []).append((im, y, h))
        y -= gap
    ax.set_xlabel(xlabel)
    x0 = (left + max(widths) + 12) / width
    for label, members in groups.items():
        low, high = min(m[1] for m in members), max(m[1] + m[2] for m in members)
        cax = fig.add_axes((x0, low / height, bar / width, (high - low) / height))
        fig.colorbar(members[0][0], cax=cax, label=label)
    return fig


def show_table_bands(
    table: np.ndarray | torch.Tensor,
    parts: int = 2,
    title: str | None = None,
    column_px: float = 2,
    row_px: float = 2,
) -> Figure:
    """Draw a position-embedding table as ``parts`` bands of columns, every column visible.

    Args:
        table: array of shape (L, D), values in [-1, 1].
        parts: number of bands the D columns are split into (stacked top to bottom).
        title: a title for the first band (bands also say which columns they hold, when
            there are several).
        column_px: pixels per column at 100 dpi (at least 1, so no column is dropped).
        row_px: pixels per row (position).

    Returns:
        The figure: ``parts`` heat maps (diverging map, limits -1..1) sharing one colour bar.
    """
    table = as_array(table)  # (L, D)
    edges = np.linspace(0, table.shape[1], parts + 1).round().astype(int)
    bands = []
    for n, (c0, c1) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
        label = f"columns {c0}-{c1 - 1}"
        if title and n == 0:
            label = title if parts == 1 else f"{title}: {label}"
        band = _Band(table[:, c0:c1], label, EMBEDDING_CMAP, -1.0, 1.0, "value", int(c0))
        bands.append(band)
    return _heat_map_bands(bands, column_px, row_px, "dimension (column)", "position (token)")


def show_columns(
    table: np.ndarray | torch.Tensor,
    columns: Sequence[int],
    base: float = 10000.0,
    figsize: tuple[float, float] = (9, 3.2),
) -> Figure:
    """Plot chosen columns of a sinusoidal table against the position, one curve each.

    Args:
        table: array of shape (L, D), ``sinusoid_encoding(L, D, base)``.
        columns: the columns to plot.
        base: the base the table was made with (for the periods in the legend).
        figsize: size of the figure.

    Returns:
        The figure: one line per column, labelled with its pair and that pair's period in tokens.
    """
    table = as_array(table)  # (L, D)
    periods = clock_periods(table.shape[1], base)
    fig, ax = new_axes(None, figsize)
    for n, column in enumerate(columns):
        kind = "sin" if column % 2 == 0 else "cos"
        ax.plot(
            np.arange(len(table)),
            table[:, column],
            lw=2.2 - 0.4 * (n % 3),
            marker="o",
            markersize=2.5,
            label=f"column {column} ({kind}, period {period_label(periods[column // 2])})",
        )
    ax.set_xlabel("position (token)")
    ax.set_ylabel("value")
    ax.set_ylim(-1.1, 1.1)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig


def show_tokens_plus_embedding(
    tokens: np.ndarray | torch.Tensor,
    embedding: np.ndarray | torch.Tensor,
    column_px: float = 2,
    row_px: float = 8,
    parts: int = 1,
) -> Figure:
    """Draw the tokens, a position embedding of the same shape, and their sum, one above the other.

    Args:
        tokens: array of shape (N, D), values in [0, 1] (drawn in ``Purples_r``, limits 0..1).
        embedding: array of shape (N, D), values in [-1, 1] (diverging map, limits -1..1).
        column_px, row_px: pixels per column (at least 1) and per row, at 100 dpi.
        parts: number of bands the D columns of each matrix are cut into (stacked top to
            bottom, the matrix's bands together), to fit a narrow column.

    Returns:
        The figure: ``3 * parts`` heat maps, the bands of one matrix sharing a colour bar; the
        sum is drawn with limits -1..2.
    """
    tokens, embedding = as_array(tokens), as_array(embedding)  # (N, D) each
    matrices = [
        (tokens, "tokens", PICTURE_CMAP, 0, 1, "grey level"),
        (embedding, "position embedding", EMBEDDING_CMAP, -1, 1, "value"),
        (tokens + embedding, "tokens + embedding", PICTURE_CMAP, -1, 2, "sum"),
    ]
    edges = np.linspace(0, tokens.shape[1], parts + 1).round().astype(int)
    bands = []
    for matrix, title, cmap, vmin, vmax, colorbar in matrices:  # matrix: (N, D)
        for c0, c1 in zip(edges[:-1], edges[1:], strict=True):
            label = title if parts == 1 else f"{title}, {c0}-{c1 - 1}"
            bands.append(_Band(matrix[:, c0:c1], label, cmap, vmin, vmax, colorbar, int(c0)))
    fig = _heat_map_bands(bands, column_px, row_px, "element of the token", "token")
    ticks = sorted({0, *range(4, len(tokens), 5)})
    for ax in fig.axes[: len(bands)]:
        ax.set_yticks(ticks, [str(t + 1) for t in ticks])
    return fig


def show_embedding_bases(
    tables: Sequence[np.ndarray | torch.Tensor],
    bases: Sequence[float],
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Draw position-embedding tables made with different bases one above the other.

    Args:
        tables: arrays of shape (N, D), one per base.
        bases: the base of each table (for the titles).
        figsize: size of the figure; 4.5 inches wide and 2 inches per table when None.

    Returns:
        The figure: one heat map per table (diverging map, limits -1..1), stacked in one column
        (it fits a phone's width), and a shared colour bar.
    """
    tables = [as_array(t) for t in tables]  # (L, D) each
    fig = new_figure(figsize or (4.5, 2.0 * len(tables) + 0.4))
    axes = np.atleast_1d(fig.subplots(len(tables), 1, sharex=True))
    for n, (ax, table, base) in enumerate(zip(axes, tables, bases, strict=True)):
        show_embedding(
            table,
            ax=ax,
            title=f"base {base_label(base)}",
            colorbar=False,
            ylabel="position (token)",
        )
        if n < len(tables) - 1:
            ax.set_xlabel("")
    fig.colorbar(axes[0].images[0], ax=axes, shrink=0.8, label="value")
    return fig


def show_frequencies(
    frequencies: dict[float, np.ndarray],
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (4.8, 3.5),
) -> Figure:
    """Plot the angular frequency of each sin/cos pair against its index, on a log scale.

    Args:
        frequencies: ``{base: omega}`` with omega of shape (D / 2,) (see ``clock_frequencies``).
        ax: axes to draw on; a new figure when None.
        title: axes title.
        figsize: size of a new figure (4.8 inches wide: it fits a phone's width).

    Returns:
        The figure: one line per base, log y axis, labelled.
    """
    frequencies = {base: as_array(omega) for base, omega in frequencies.items()}  # (d/2,) each
    from matplotlib.ticker import NullLocator

    fig, ax = new_axes(ax, figsize)
    for base, omega in frequencies.items():
        ax.plot(np.arange(len(omega)), omega, lw=2, label=f"base {base_label(base)}")
    ax.set_yscale("log")
    ax.set_xlabel("pair index $i$")
    ax.set_ylabel(r"$\omega_i = \mathrm{base}^{-2i/d}$ (radians per token)")
    ax.yaxis.set_minor_locator(NullLocator())  # fewer ticks: faster to draw, easier to read
    ax.grid(True, alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    return fig
