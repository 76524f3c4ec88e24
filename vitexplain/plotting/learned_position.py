"""Figures of notebook 07: what a learned position table learns, drawn as in ViT's Figure 7."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from .core import SIMILARITY_CMAP, as_array, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["position_similarity_mosaic", "show_position_similarity"]


def position_similarity_mosaic(similarity: np.ndarray | torch.Tensor, gap: int = 1) -> np.ndarray:
    """Tile the per-patch similarity maps of a grid into one image, NaN between the tiles.

    Args:
        similarity: shape (H, W, H, W); ``similarity[r, c]`` is patch (r, c)'s (H, W) map.
        gap: empty cells between two tiles.

    Returns:
        float64 array of shape (H * (H + gap) - gap, W * (W + gap) - gap): tile (r, c) is the
        map of patch (r, c), at rows r * (H + gap) ... and columns c * (W + gap) ....
    """
    sim = as_array(similarity).astype(np.float64)  # (H, W, H, W)
    rows, cols = sim.shape[:2]
    mosaic = np.full((rows * (rows + gap) - gap, cols * (cols + gap) - gap), np.nan)
    for r in range(rows):
        for c in range(cols):
            top, left = r * (rows + gap), c * (cols + gap)
            mosaic[top : top + rows, left : left + cols] = sim[r, c]
    return mosaic


def show_position_similarity(
    similarities: Sequence[np.ndarray | torch.Tensor],
    titles: Sequence[str],
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Draw position-embedding similarity grids side by side, one small map per patch.

    Each panel is laid out like Figure 7 (centre) of Dosovitskiy et al. (2020): the tile in grid
    row r and column c is patch (r, c)'s map, the cosine similarity of its position vector with
    that of every patch; its own cell is 1.

    Args:
        similarities: arrays of shape (H, W, H, W), e.g. from
            :func:`vitexplain.grid_similarity`, all of one shape.
        titles: one title per panel.
        figsize: size of the figure; 4.8 inches wide and about 2 inches per panel when None.

    Returns:
        The figure: one panel per entry, stacked in one column (it fits a phone's width), a
        diverging map with limits -1..1 and one colour bar.
    """
    maps = [as_array(s) for s in similarities]  # (H, W, H, W) each
    mosaics = [position_similarity_mosaic(m) for m in maps]
    rows, cols = maps[0].shape[:2]
    fig = new_figure(figsize or (4.8, 1.9 * len(maps) + 0.3))
    axes = np.atleast_1d(fig.subplots(len(maps), 1))
    for n, (ax, mosaic, title) in enumerate(zip(axes, mosaics, titles, strict=True)):
        image = ax.imshow(mosaic, cmap=SIMILARITY_CMAP, vmin=-1, vmax=1, interpolation="nearest")
        ax.set_xticks([c * (cols + 1) + (cols - 1) / 2 for c in range(cols)], range(1, cols + 1))
        ax.set_yticks([r * (rows + 1) + (rows - 1) / 2 for r in range(rows)], range(1, rows + 1))
        ax.tick_params(length=0)
        ax.set_title(title, fontsize=10)
        if n == len(maps) - 1:
            ax.set_xlabel("input patch column")
        ax.set_ylabel("input patch row")
        for side in ax.spines.values():
            side.set_visible(False)
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="cosine similarity")
    return fig
