"""Figures of notebook 03, part 3: how alike positions are, on a line and on the patch grid,
and an embedding resized to a new grid."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from .core import (
    EMBEDDING_CMAP,
    SIMILARITY_CMAP,
    annotate_cells,
    as_array,
    new_figure,
    outline_cells,
    show_matrix,
)
from .patches import show_patch_grid

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "show_grid_similarity",
    "show_resized_embedding",
    "show_similarity",
]


def show_similarity(
    similarity: np.ndarray | torch.Tensor,
    starts: Sequence[int] = (0, 50, 100),
    figsize: tuple[float, float] = (4.6, 7.2),
) -> Figure:
    """Draw a position-similarity matrix, and its rows against the offset b - a.

    If the similarity depends only on the offset, the curves of the lower panel lie on top of
    each other.

    Args:
        similarity: array of shape (N, N), e.g. ``embedding_similarity(table)``.
        starts: positions a whose rows are plotted against the offset.
        figsize: size of the figure.

    Returns:
        The figure: the matrix (``SIMILARITY_CMAP``, the data's range, colour bar) and one curve
        per start.
    """
    similarity = as_array(similarity)  # (n, n)
    n = similarity.shape[0]
    if not all(0 <= a < n for a in starts):
        raise ValueError(f"starts must be positions in [0, {n}), got {list(starts)}")
    fig = new_figure(figsize)
    top, bottom = fig.subplots(2, 1, height_ratios=[1.1, 1])  # stacked: fits a phone's width
    show_matrix(
        similarity,
        ax=top,
        cmap=SIMILARITY_CMAP,
        aspect="equal",
        title="similarity of PE(a) and PE(b)",
        xlabel="position b",
        ylabel="position a",
    )
    fig.colorbar(top.images[0], ax=top, shrink=0.8, label="cosine similarity")
    styles = ["-", "--", ":", "-."]
    for n_curve, a in enumerate(starts):
        offsets = np.arange(-a, n - a)
        bottom.plot(
            offsets,
            similarity[a, a + offsets],
            styles[n_curve % 4],
            lw=3 - 0.7 * (n_curve % 3),
            label=f"row a = {a}",
        )
    bottom.set_xlabel("offset k = b - a (tokens)")
    bottom.set_ylabel("similarity")
    bottom.set_title("rows against the offset")
    bottom.grid(True, alpha=0.3)
    bottom.legend()
    return fig


def show_grid_similarity(
    maps: Sequence[np.ndarray | torch.Tensor],
    titles: Sequence[str],
    reference: int,
    image: np.ndarray | None = None,
    patch_size: int = 20,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Draw similarity-to-one-patch maps over a patch grid, each cell labelled with patch and value.

    Args:
        maps: arrays of shape (H, W), the similarity of every patch to patch ``reference``.
        titles: one title per map.
        reference: 0-based index (row-major) of the patch compared with the others; outlined.
        image: optional picture of shape (H * P, W * P) drawn first with its patch grid.
        patch_size: side P of the patches of ``image``.
        figsize: size of the figure; 4.4 inches wide and 2.2 inches per panel when None.

    Returns:
        The figure: (the picture and) one annotated map per entry of ``maps``, stacked in one
        column (it fits a phone's width), one colour bar.
    """

    maps = [as_array(m) for m in maps]  # (H, W) each
    rows, cols = maps[0].shape
    if not 0 <= reference < rows * cols:
        raise ValueError(f"reference must be a patch index in [0, {rows * cols}), got {reference}")
    panels = len(maps) + (image is not None)
    fig = new_figure(figsize or (4.4, 2.2 * panels))
    axes = list(np.atleast_1d(fig.subplots(panels, 1)))
    if image is not None:
        show_patch_grid(image, patch_size, ax=axes.pop(0), highlight=reference, title="the patches")
    vmin, vmax = min(float(m.min()) for m in maps), max(float(m.max()) for m in maps)
    r0, c0 = divmod(reference, cols)
    for ax, values, title in zip(axes, maps, titles, strict=True):
        im = ax.imshow(values, cmap=SIMILARITY_CMAP, vmin=vmin, vmax=vmax, interpolation="nearest")
        labels = [f"{n + 1}\n{v:.2f}" for n, v in enumerate(values.ravel())]
        annotate_cells(ax, values, labels, cmap=SIMILARITY_CMAP, vmin=vmin, vmax=vmax)
        outline_cells(ax, r0, c0)
        ax.set_xticks(range(cols))
        ax.set_yticks(range(rows))
        ax.set_xlabel("grid column")
        ax.set_ylabel("grid row")
        ax.set_title(title)
    fig.colorbar(im, ax=axes, shrink=0.9, label="cosine similarity")
    return fig


def show_resized_embedding(
    before: np.ndarray | torch.Tensor,
    after: np.ndarray | torch.Tensor,
    old_grid: tuple[int, int],
    new_grid: tuple[int, int],
    channels: Sequence[int],
    num_prefix_tokens: int = 0,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Draw chosen channels of a position embedding on its grid, before and after resizing.

    Both grids are drawn over the same area (in units of the old grid), since the resized
    embedding covers the same picture with more, smaller patches.

    Args:
        before: shape (num_prefix_tokens + H * W, D), or with a leading 1.
        after: shape (num_prefix_tokens + H' * W', D), or with a leading 1.
        old_grid: (H, W).
        new_grid: (H', W').
        channels: the embedding dimensions to draw, one row of panels each.
        num_prefix_tokens: leading tokens (class token) that are not drawn.
        figsize: size of the figure; 4.8 inches wide and 1.4 inches per channel (plus the
            colour bar) when None.

    Returns:
        The figure: one row per channel x 2 columns (before, after), limits -1..1, one colour
        bar below (it fits a phone's width).
    """
    panels = []  # (grid (h, w, D), (h, w)) before and after
    old_grid, new_grid = (np.broadcast_to(g, 2).tolist() for g in (old_grid, new_grid))
    for table, (h, w) in ((before, old_grid), (after, new_grid)):
        table = as_array(table)
        grid = table.reshape(-1, table.shape[-1])[num_prefix_tokens:].reshape(h, w, -1)
        panels.append((grid, (h, w)))
    height, width = old_grid
    fig = new_figure(figsize or (4.8, 1.4 * len(channels) + 0.8))
    axes = fig.subplots(len(channels), 2, sharex=True, sharey=True, squeeze=False)
    for col, (grid, (h, w)) in enumerate(panels):
        for row, channel in enumerate(channels):
            ax = axes[row, col]
            im = ax.imshow(
                grid[:, :, channel],
                cmap=EMBEDDING_CMAP,
                vmin=-1,
                vmax=1,
                interpolation="nearest",
                extent=(0, width, height, 0),
            )
            ax.set_title(f"dim {channel}, {h} x {w}", fontsize=9)
            if row == len(channels) - 1:
                ax.set_xlabel("column (old cells)")
            if col == 0:
                ax.set_ylabel("row (old cells)")
    bar = fig.colorbar(im, ax=axes, shrink=0.8, label="value", location="bottom", aspect=30)
    bar.set_ticks([-1, -0.5, 0, 0.5, 1])  # five ticks: their labels do not touch
    return fig
