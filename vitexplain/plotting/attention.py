"""Figures of notebook 02: attention."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..patches import scramble_patches
from .core import (
    ATTENTION_CMAP,
    PICTURE_CMAP,
    annotate_cells,
    as_array,
    axes_grid,
    outline_cells,
    show_matrix,
)
from .patches import show_patch_grid

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "show_attention_heads",
    "show_matrices",
    "show_scrambled_patches",
]


def show_matrices(
    matrices: Sequence,
    titles: Sequence[str | None] | None = None,
    ncols: int | None = None,
    fmt: str = "{:.0f}",
    cmap: str = PICTURE_CMAP,
    highlight_rows: Sequence[Sequence[int] | None] | None = None,
    highlight_cols: Sequence[Sequence[int] | None] | None = None,
    highlight_cells: Sequence[Sequence[tuple[int, int]] | None] | None = None,
    xlabel: str | Sequence[str | None] | None = "channel",
    ylabel: str | Sequence[str | None] | None = "token",
    fontsize: float = 8,
    aspect: str | float = "equal",
    figsize: tuple[float, float] = (6, 4),
) -> Figure:
    """Draw several small matrices side by side, each with its values written in its cells.

    Every panel has its own colour limits (its data's range), 0-based row and column indices on
    the axes, and optionally some rows, columns or single cells outlined in orange (e.g. two
    swapped tokens, or one entry followed from one matrix to the next).

    Args:
        matrices: a sequence of M arrays, each of shape (R_m, C_m).
        titles: one title per matrix.
        ncols: panels per row; all M in one row when None.
        fmt: format of the written values.
        cmap: colour map.
        highlight_rows: per matrix, the 0-based rows to outline (or None).
        highlight_cols: per matrix, the 0-based columns to outline (or None).
        highlight_cells: per matrix, the 0-based (row, column) cells to outline (or None).
        xlabel, ylabel: one label for every panel, or one per panel.
        fontsize: size of the written values.
        aspect: ``imshow`` aspect: "equal" for square cells, "auto" to fill the panel.
        figsize: size of the figure.

    Returns:
        The figure, with M axes in a grid of ceil(M / ncols) rows.
    """

    arrays = [as_array(m) for m in matrices]  # (R, C) each
    count = len(arrays)
    per = {
        "title": _per_panel("titles", titles, count),
        "xlabel": _per_panel("xlabel", xlabel, count),
        "ylabel": _per_panel("ylabel", ylabel, count),
        "rows": _per_panel("highlight_rows", highlight_rows, count),
        "cols": _per_panel("highlight_cols", highlight_cols, count),
        "cells": _per_panel("highlight_cells", highlight_cells, count),
    }
    panels = [{key: values[n] for key, values in per.items()} for n in range(count)]
    for n, (array, panel) in enumerate(zip(arrays, panels, strict=True)):
        (height, width), cells = array.shape, panel["cells"] or ()
        rows = [*(panel["rows"] or ()), *(r for r, _ in cells)]
        cols = [*(panel["cols"] or ()), *(c for _, c in cells)]
        if not all(0 <= r < height for r in rows) or not all(0 <= c < width for c in cols):
            raise ValueError(f"the highlights of matrices[{n}] must lie in its {array.shape} cells")
    ncols = count if ncols is None else ncols
    fig, axes = axes_grid(len(arrays), ncols, figsize)
    for ax, array, panel in zip(axes, arrays, panels, strict=True):
        matrix_panel(ax, array, fmt=fmt, cmap=cmap, fontsize=fontsize, aspect=aspect, **panel)
    return fig


def _per_panel(name: str, value: object, count: int) -> list:
    """One entry per panel: ``value`` repeated if None or a string, else one entry each."""
    if value is None or isinstance(value, str):
        return [value] * count
    if len(value) != count:
        raise ValueError(f"{name} has {len(value)} entries for {count} matrices")
    return list(value)


def matrix_panel(
    ax: Axes,
    array: np.ndarray,
    title: str | None,
    xlabel: str | None,
    ylabel: str | None,
    rows: Sequence[int] | None,
    cols: Sequence[int] | None,
    cells: Sequence[tuple[int, int]] | None,
    fmt: str,
    cmap: str,
    fontsize: float,
    aspect: str | float,
) -> None:
    """One panel of :func:`show_matrices`: the matrix, its values, its outlined rows, columns
    and cells (arguments checked by the caller)."""
    height, width = array.shape  # (R, C)
    show_matrix(
        array,
        ax=ax,
        title=title,
        xlabel=xlabel,
        ylabel=ylabel,
        cmap=cmap,
        aspect=aspect,
        xticklabels=range(width),
        yticklabels=range(height),
    )
    annotate_cells(ax, array, fmt=fmt, cmap=cmap, fontsize=fontsize)
    for text in ax.texts:  # the values sit inside the axes: leave them out of layout passes
        text.set_in_layout(False)
    for r in rows or ():
        outline_cells(ax, int(r), 0, 1, width, lw=2.5)  # the whole row r
    for c in cols or ():
        outline_cells(ax, 0, int(c), height, 1, lw=2.5)  # the whole column c
    for r, c in cells or ():
        outline_cells(ax, int(r), int(c), lw=2.5)  # the single cell (r, c)


def show_scrambled_patches(
    image,
    patch_size: int,
    order: Sequence[int],
    titles: tuple[str, str] = ("original", "scrambled"),
    figsize: tuple[float, float] = (4.8, 6),
) -> Figure:
    """Draw an image above a copy whose patches are rearranged, each patch labelled by origin.

    Top: the image with its patches numbered 1 ... N (row-major). Bottom: the result of
    :func:`~vitexplain.scramble_patches`, where every patch keeps the 1-based number it had in the
    original, so the label at position i is ``order[i] + 1``.

    Args:
        image: array of shape (H, W), values in [0, 1].
        patch_size: side P of the patches; must divide H and W.
        order: a permutation of range(N), 0-based: position i shows the original patch order[i].
        titles: titles of the two panels.
        figsize: size of the figure.

    Returns:
        The figure, with two axes (original, scrambled), one above the other.
    """

    image = as_array(image)
    scrambled = scramble_patches(image, patch_size, order)  # (H, W); validates order
    fig, (top, bottom) = axes_grid(2, 1, figsize)  # one column: fits a narrow page
    show_patch_grid(image, patch_size, ax=top, title=titles[0])
    show_patch_grid(
        scrambled, patch_size, ax=bottom, labels=[int(o) + 1 for o in order], title=titles[1]
    )
    for text in (*top.texts, *bottom.texts):  # patch numbers sit inside the axes
        text.set_in_layout(False)
    return fig


def show_attention_heads(
    weights,
    ncols: int = 2,
    labels: Sequence[int | str] | None = None,
    cmap: str = ATTENTION_CMAP,
    title: str | None = None,
    figsize: tuple[float, float] = (4.8, 5.8),
) -> Figure:
    """Draw the attention map of every head in a grid, with one colour bar below shared by all.

    Row i of a map is query token i, column j is key token j; each row sums to 1. All maps share
    one colour scale, from the smallest to the largest weight of any head, so the heads can be
    compared. The scale is a square root (``PowerNorm(0.5)``): most weights sit near 1/N and a
    few are large, and a linear scale would paint the many small ones alike. The colour bar gives
    the values. The default colour map is the series' one for attention weights (bright = large).

    Args:
        weights: attention weights of shape (h, N, N).
        ncols: maps per row of the grid.
        labels: tick label of each of the N tokens; 1, 2, ..., N when None. Every query is
            labelled; past 9 tokens only every other key (the 1st, 3rd, ...), so that labels
            of two digits do not touch in a narrow panel.
        cmap: colour map.
        title: title of the whole figure.
        figsize: size of the figure.

    Returns:
        The figure: h heat-map axes, then the colour bar's axes.
    """

    weights = as_array(weights)  # (h, N, N)
    heads, n, _ = weights.shape
    labels = list(range(1, n + 1)) if labels is None else list(labels)
    from matplotlib.colors import PowerNorm

    norm = PowerNorm(0.5, vmin=float(weights.min()), vmax=float(weights.max()))
    # a tick on every key; past 9 keys a label on every other one, which would touch otherwise
    key_labels = [f"{t}" if len(labels) <= 9 or k % 2 == 0 else "" for k, t in enumerate(labels)]
    fig, axes = axes_grid(heads, ncols, figsize)
    for head, ax in enumerate(axes):
        show_matrix(
            weights[head],
            ax=ax,
            title=f"head {head + 1}",
            xlabel="key (patch)",
            ylabel="query (patch)",
            cmap=cmap,
            aspect="equal",
            xticklabels=key_labels,
            yticklabels=labels,
        )
        ax.images[0].set_norm(norm)  # one shared square-root scale
        ax.tick_params(labelsize=8)
        ax.label_outer()  # token numbers and axis names on the outer panels only
    fig.colorbar(  # below the grid, so that the maps get the whole width of a narrow page
        axes[0].images[0], ax=axes, location="bottom", shrink=0.8, label="attention weight"
    )
    if title:
        fig.suptitle(title)
    return fig
