"""Figures of notebook 04: relative position embeddings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from .core import (
    EMBEDDING_CMAP,
    annotate_cells,
    as_array,
    fixed_figure,
    outline_cells,
    show_matrix,
)
from .patches import show_patch_grid

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "show_grid_offsets",
    "show_logit_matrices",
    "show_relative_distances",
    "show_skew_steps",
]


def _rel_cell_grid(ax: Axes, shape: tuple[int, int]) -> None:
    """Thin white lines between the cells of an imshow'ed (R, C) array (two line collections,
    much cheaper to draw than a minor-tick grid)."""
    rows, cols = shape
    ax.vlines(np.arange(1, cols) - 0.5, -0.5, rows - 0.5, color="white", lw=1.5)
    ax.hlines(np.arange(1, rows) - 0.5, -0.5, cols - 0.5, color="white", lw=1.5)


# the dashed box around the block of cells a step keeps (outline_cells keywords)
_DASHED_BOX = {"colour": "black", "lw": 2.5, "linestyle": "--", "clip_on": False}


def show_relative_distances(index, figsize: tuple[float, float] = (4.8, 5.6)) -> Figure:
    """The 2L - 1 offsets of a sequence of L tokens, and the (L, L) index into their table.

    Top: the relative table as one strip, a cell per row m of the table, showing the offset
    j - i = m - (L - 1) it stores (the row number m on the axis below). Bottom:
    ``relative_index(L)``, each cell (i, j) showing the table row it reads and, in brackets, the
    offset. Both coloured by offset (diverging map, limits +-(L - 1)), so a colour is an offset.

    Args:
        index: LongTensor or int array of shape (L, L), ``[i, j] = j - i + L - 1``.
        figsize: figure size.

    Returns:
        The figure (two axes: the strip, then the index).
    """
    index = as_array(index)  # (L, L)
    length = index.shape[0]
    span = max(length - 1, 1)
    fig = fixed_figure(figsize, left=0.14, right=0.96, top=0.9, bottom=0.1, hspace=0.55)
    ax_table, ax_index = fig.subplots(2, 1, height_ratios=[1.0, length])
    diverging = dict(cmap=EMBEDDING_CMAP, vmin=-span, vmax=span)
    offsets = np.arange(2 * length - 1)[None, :] - (length - 1)  # (1, 2L-1)
    ax_table.imshow(offsets, aspect="equal", **diverging)
    annotate_cells(ax_table, offsets, fmt="{:+d}", fontsize=11, **diverging)
    ax_table.set_xticks(range(2 * length - 1))
    ax_table.set_yticks([])
    ax_table.set_xlabel("table row m = offset + L - 1", fontsize=10)
    ax_table.set_title(
        f"relative table: {2 * length - 1} rows, one per offset j - i (L = {length})", fontsize=11
    )
    _rel_cell_grid(ax_table, (1, 2 * length - 1))

    distance = index - (length - 1)  # (L, L)
    ax_index.imshow(distance, **diverging)
    labels = [f"m = {m}\n({d:+d})" for m, d in zip(index.ravel(), distance.ravel(), strict=True)]
    from matplotlib import rcParams

    # the text size of a plain ax.text: the rcParams default
    annotate_cells(ax_index, distance, labels, fontsize=rcParams["font.size"], **diverging)
    ax_index.set_xticks(range(length))
    ax_index.set_yticks(range(length))
    ax_index.set_xlabel("key j")
    ax_index.set_ylabel("query i")
    ax_index.set_title(f"relative_index({length}): table row m (offset j - i)")
    _rel_cell_grid(ax_index, index.shape)
    return fig


def _rel_draw_codes(ax: Axes, codes: np.ndarray, labels: Sequence[str], row_length: int) -> None:
    """Draw integer codes as cells: 0 is padding (grey), v > 0 shows ``labels[v - 1]`` on the
    colour of its source row ``(v - 1) // row_length``."""
    from matplotlib import colormaps

    palette = colormaps["Pastel1"]
    grid = np.atleast_2d(codes)
    rgb = np.empty((*grid.shape, 3))
    for (r, c), value in np.ndenumerate(grid):
        value = int(value)
        source_row = (value - 1) // row_length
        rgb[r, c] = (0.88, 0.88, 0.88) if value == 0 else palette(source_row % 9)[:3]
        text = "0" if value == 0 else labels[value - 1]
        ax.text(
            c,
            r,
            text,
            ha="center",
            va="center",
            fontsize=8,
            color="0.45" if value == 0 else "black",
        )
    ax.imshow(rgb, aspect="equal")
    _rel_cell_grid(ax, grid.shape)
    ax.set_yticks(range(grid.shape[0]) if grid.shape[0] > 1 else [])
    ax.tick_params(labelsize=9)


def show_skew_steps(
    steps: Sequence[tuple[str, torch.Tensor]],
    labels: Sequence[str] | None = None,
    figsize: tuple[float, float] = (9, 7),
) -> Figure:
    """Every step of the skew on a labelled (L, 2L - 1) example, in one figure.

    The input should hold integer codes 1 .. L(2L - 1) (0 is reserved for the padding): a cell
    with code v shows ``labels[v - 1]`` and the colour of the row it came from, so one can follow
    each value through the pads, the flattening and the reshape. The flattened vectors are drawn
    as strips; thick lines mark where the rows of 2L (flatten) and of 2L - 1 (padded) end,
    and a dashed box the block the slice keeps.

    Args:
        steps: the six ``(name, tensor)`` pairs of :func:`vitexplain.skew_steps` on an (L, 2L - 1)
            tensor without leading dims: shapes (L, 2L-1), (L, 2L), (2L*L,), ((L+1)(2L-1),),
            (L+1, 2L-1), (L, L).
        labels: text of each code, ``labels[v - 1]`` for code v; the code itself when None.
        figsize: figure size.

    Returns:
        The figure (six axes, in the order of the steps).
    """
    arrays = [as_array(tensor) for _, tensor in steps]
    labels = [str(v) for v in range(1, arrays[0].size + 1)] if labels is None else list(labels)
    length, num_offsets = arrays[0].shape
    margins = dict(left=0.03, right=0.99, top=0.95, bottom=0.08, hspace=0.75, wspace=0.15)
    fig = fixed_figure(figsize, **margins)
    grid = fig.add_gridspec(4, 2, height_ratios=[length, 1.4, 1.4, length + 1])
    cells = (grid[0, 0], grid[0, 1], grid[1, :], grid[2, :], grid[3, 0], grid[3, 1])
    axes = [fig.add_subplot(cell) for cell in cells]
    for n, (ax, (name, _), array) in enumerate(zip(axes, steps, arrays, strict=True)):
        _rel_draw_codes(ax, array, labels, num_offsets)
        ax.set_title(f"{n}. {name}", fontsize=10)
    # where rows end: every 2L in the flat vector, every 2L - 1 in the padded one
    strips = ((axes[2], arrays[2].size, 2 * length), (axes[3], arrays[3].size, num_offsets))
    for ax, size, every in strips:
        ax.set_xticks(np.arange(0, size + 1, every) - 0.5, np.arange(0, size + 1, every))
        for edge in np.arange(every, size, every):
            ax.axvline(edge - 0.5, color="black", lw=2.5)
        ax.set_xlabel("position in the flat vector", fontsize=9)
    axis_labels = (
        (axes[0], arrays[0], "column m (offset m - (L-1))", "query i"),
        (axes[1], arrays[1], "column", "query i"),
        (axes[4], arrays[4], "column", "row"),
        (axes[5], arrays[5], "key j", "query i"),
    )
    for ax, array, xlabel, ylabel in axis_labels:
        ax.set_xticks(range(array.shape[1]))
        ax.set_xlabel(xlabel, fontsize=9)
        ax.set_ylabel(ylabel, fontsize=9)
    outline_cells(axes[4], 0, length - 1, length, length, **_DASHED_BOX)  # rows :L, columns L-1:
    return fig


def show_grid_offsets(
    image,
    patch_size: int,
    row_offsets,
    col_offsets,
    highlight: int,
    figsize: tuple[float, float] = (4.6, 6.4),
) -> Figure:
    """The picture cut into patches with one highlighted, and the row and column offsets of every
    patch from it, drawn as two grids of the same shape.

    Args:
        image: array of shape (H, W), values in [0, 1].
        patch_size: side P of the patches.
        row_offsets: array of shape (H/P, W/P), ``row_b - row_a`` (see ``grid_offsets``).
        col_offsets: array of shape (H/P, W/P), ``col_b - col_a``.
        highlight: 0-based index a of the reference patch (outlined in orange on all panels).
        figsize: figure size.

    Returns:
        The figure (three axes: picture, row offsets, column offsets).
    """
    image, row_offsets, col_offsets = (as_array(a) for a in (image, row_offsets, col_offsets))
    grid_shape = (image.shape[0] // patch_size, image.shape[1] // patch_size)
    fig = fixed_figure(figsize, left=0.14, right=0.97, top=0.945, bottom=0.07, hspace=0.5)
    ax_image, ax_rows, ax_cols = fig.subplots(3, 1)
    title = f"patch {highlight + 1} (index {highlight}) is the query"
    show_patch_grid(image, patch_size, ax=ax_image, highlight=highlight, title=title)
    span = max(grid_shape) - 1
    diverging = dict(cmap=EMBEDDING_CMAP, vmin=-span, vmax=span, aspect="equal")
    r, c = divmod(highlight, grid_shape[1])
    panels = (
        (ax_rows, row_offsets, "row", "r_h", grid_shape[0]),
        (ax_cols, col_offsets, "column", "r_w", grid_shape[1]),
    )
    for ax, offsets, what, table, size in panels:
        title = f"{what} offset -> {table}[offset + {size - 1}]"
        labels = dict(xlabel="patch column", ylabel="patch row")
        show_matrix(offsets, ax=ax, title=title, **labels, **diverging)
        texts = [f"{offset:+d}\n{table}[{offset + size - 1}]" for offset in offsets.ravel()]
        annotate_cells(ax, offsets, texts, cmap=EMBEDDING_CMAP, vmin=-span, vmax=span, fontsize=8)
        ax.set_xticks(range(grid_shape[1]))
        ax.set_yticks(range(grid_shape[0]))
        outline_cells(ax, r, c)  # orange, lw 3
    return fig


def show_logit_matrices(
    matrices: Sequence,
    titles: Sequence[str],
    fmt: str = "{:.2f}",
    figsize: tuple[float, float] = (3.8, 8.0),
    colorbar_label: str = "logit",
    outlines: Sequence[tuple[int, int, int] | None] | None = None,
) -> Figure:
    """Position logits one above the other (query i down, key j across), annotated, one shared
    symmetric colour scale, its colour bar below.

    Args:
        matrices: arrays of shape (L, L).
        titles: one title per matrix.
        fmt: format of the values written in the cells.
        figsize: figure size; the margins are fixed in inches, the panels share the rest.
        colorbar_label: label of the colour bar.
        outlines: per matrix, None or ``(row, col, size)``: a dashed box around the square block
            of ``size`` cells whose top-left cell is (row, col).

    Returns:
        The figure (one axes per matrix, top to bottom, and a colour bar).
    """
    arrays = [as_array(m) for m in matrices]  # (L, L) each
    vmax = float(max(np.abs(a).max() for a in arrays)) or 1.0
    width, height = figsize
    # margins in inches: tick and axis labels left, a title above and tick labels and axis label
    # below each panel, then the colour bar (0.15 in) with its label under it
    left, right, top, below, gap, bar, bar_label = 0.7, 0.2, 0.35, 0.55, 0.2, 0.15, 0.45
    bottom = bar_label + bar + gap + below
    panel = (height - top - bottom - (len(arrays) - 1) * (below + top)) / len(arrays)
    fig = fixed_figure(
        figsize,
        left=left / width,
        right=1 - right / width,
        top=1 - top / height,
        bottom=bottom / height,
        hspace=(below + top) / panel,
    )
    axes = np.atleast_1d(fig.subplots(len(arrays), 1))
    diverging = dict(cmap=EMBEDDING_CMAP, vmin=-vmax, vmax=vmax)
    for ax, array, title in zip(axes, arrays, titles, strict=True):
        labels = dict(title=title, xlabel="key j", ylabel="query i")
        show_matrix(array, ax=ax, aspect="equal", **labels, **diverging)
        annotate_cells(ax, array, fmt=fmt, fontsize=7, **diverging)
        ax.set_xticks(range(array.shape[1]))
        ax.set_yticks(range(array.shape[0]))
    for ax, box in zip(axes, outlines or [None] * len(arrays), strict=True):
        if box is not None:
            row, col, size = box
            outline_cells(ax, row, col, size, size, **_DASHED_BOX)
    cax = fig.add_axes((left / width, bar_label / height, 1 - (left + right) / width, bar / height))
    fig.colorbar(axes[0].images[0], cax=cax, orientation="horizontal", label=colorbar_label)
    return fig
