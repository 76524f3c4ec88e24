"""Figures of notebook 01: patch tokenization."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..patches import patchify
from .core import (
    PICTURE_CMAP,
    as_array,
    axes_grid,
    fixed_figure,
    outline_cells,
    show_image,
    show_matrix,
    text_colour,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "show_patch_and_token",
    "show_patch_grid",
    "show_token_matrix",
    "show_tokenization",
]


def show_patch_grid(
    image,
    patch_size: int,
    ax: Axes | None = None,
    labels: Sequence[int | str] | None = None,
    highlight: int | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (4.8, 3.4),
) -> Figure:
    """Draw an image cut into P x P patches, each labelled at its centre.

    A label is dark on a bright patch and light on a dark one (chosen from the patch's mean).

    Args:
        image: array of shape (H, W), values in [0, 1].
        patch_size: side P of the patches.
        ax: axes to draw on; a new figure when None.
        labels: one label per patch in row-major order; 1, 2, ..., N when None.
        highlight: 0-based index of a patch to outline in orange.
        title: axes title.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    image = as_array(image).astype(np.float64)  # (H, W)
    height, width = image.shape
    for side, size in (("height", height), ("width", width)):
        if size % patch_size:
            raise ValueError(
                f"patch_size {patch_size} does not divide the image {side} {size} "
                f"({size} = {size // patch_size} * {patch_size} + {size % patch_size})"
            )
    cols = width // patch_size
    count = (height // patch_size) * cols
    labels = range(1, count + 1) if labels is None else labels
    if len(labels) != count:
        raise ValueError(f"labels has {len(labels)} entries for {count} patches")
    if highlight is not None and not 0 <= highlight < count:
        raise ValueError(f"highlight must be a patch index in [0, {count}), got {highlight}")
    fig = show_image(image, ax=ax, title=title, figsize=figsize)
    ax = ax or fig.axes[0]
    for edge in range(0, height + 1, patch_size):
        ax.axhline(edge - 0.5, color="white", lw=1)
    for edge in range(0, width + 1, patch_size):
        ax.axvline(edge - 0.5, color="white", lw=1)
    for n, label in enumerate(labels):
        r, c = divmod(n, cols)
        patch = image[r * patch_size : (r + 1) * patch_size, c * patch_size : (c + 1) * patch_size]
        y, x = (r + 0.5) * patch_size - 0.5, (c + 0.5) * patch_size - 0.5
        colour = text_colour(patch.mean(), 0, 1)
        ax.text(
            x, y, str(label), ha="center", va="center", fontsize=12, fontweight="bold", color=colour
        )
    if highlight is not None:
        r, c = divmod(highlight, cols)
        outline_cells(ax, r * patch_size, c * patch_size, patch_size, patch_size)
    ax.set_xticks(np.arange(0, width + 1, patch_size) - 0.5, np.arange(0, width + 1, patch_size))
    ax.set_yticks(np.arange(0, height + 1, patch_size) - 0.5, np.arange(0, height + 1, patch_size))
    return fig


def _one_based_ticks(count: int, max_ticks: int = 16) -> list[int]:
    """1-based labels for ``count`` items: all of them when few, else 1 and round multiples."""
    if count <= max_ticks:
        return list(range(1, count + 1))
    steps = (m * f for m in (1, 10, 100, 1000, 10_000, 100_000) for f in (1, 2, 5))
    step = next(s for s in steps if count // s < max_ticks)
    return [1, *range(step, count + 1, step)]


def show_patch_and_token(
    patch,
    number: int | None = None,
    highlight_row: int | None = None,
    axes: Sequence[Axes] | None = None,
    ncols: int = 2,
    figsize: tuple[float, float] = (9, 2.8),
) -> Figure:
    """Draw a P x P patch next to the token it flattens into: a 1 x P² strip of P row segments.

    White lines in the strip separate the patch rows; the axis on top of the strip numbers them.

    Args:
        patch: array of shape (P, P), values in [0, 1].
        number: the patch's 1-based number, used in the titles.
        highlight_row: 0-based row of the patch to outline in orange, in the patch and in the strip.
        axes: two axes (patch, strip) to draw on; a new figure when None.
        ncols: 2 puts the patch left of the strip, 1 puts it above (a narrow figure); only for a
            new figure.
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    patch = as_array(patch)
    size = patch.shape[0]
    if patch.shape != (size, size):
        raise ValueError(f"patch must be a square array of shape (P, P), got shape {patch.shape}")
    if highlight_row is not None and not 0 <= highlight_row < size:
        raise ValueError(f"highlight_row must be in 0..{size - 1}, got {highlight_row}")
    if axes is None:
        ratios = {"width_ratios": [1, 4]} if ncols == 2 else {"height_ratios": [3, 2]}
        fig, (ax_patch, ax_strip) = axes_grid(2, ncols, figsize, **ratios)
    else:
        ax_patch, ax_strip = axes
        fig = ax_patch.figure
    name = "" if number is None else f" {number}"
    strip = patch.reshape(1, size * size)  # (1, P*P): row 0, then row 1, ...
    show_image(patch, ax=ax_patch, title=f"patch{name} ({size} x {size})")
    ax_patch.set_xlabel("column in patch")
    ax_patch.set_ylabel("row in patch")
    ax_strip.imshow(
        strip, cmap=PICTURE_CMAP, vmin=0, vmax=1, interpolation="nearest", aspect=size * size / 12
    )
    for edge in range(size, size * size, size):
        ax_strip.axvline(edge - 0.5, color="white", lw=0.8)
    ax_strip.set_yticks([])
    ax_strip.set_xlabel(f"position in token{name} (0 ... {size * size - 1})")
    ax_strip.set_title(f"token{name}: 1 x {size * size}, the patch rows one after another")
    step = max(1, size // 4)  # four or five position ticks, at the starts of patch rows
    ax_strip.set_xticks(range(0, size * size, step * size))
    ax_strip.tick_params(labelsize=9)
    every = 1 if size <= 20 else 2
    top = ax_strip.secondary_xaxis("top")
    rows = range(0, size, every)
    top.set_ticks([r * size + size / 2 - 0.5 for r in rows], [str(r) for r in rows], fontsize=9)
    top.tick_params(length=0)
    top.set_xlabel("row of the patch", fontsize=9)
    if highlight_row is not None:
        r = highlight_row
        outline_cells(ax_patch, r, 0, 1, size, lw=2)  # row r of the patch
        outline_cells(ax_strip, 0, r * size, 1, size, lw=2)  # its P cells in the strip
    return fig


def show_token_matrix(
    tokens,
    ax: Axes | None = None,
    title: str | None = None,
    colorbar: bool = True,
    colorbar_location: str = "bottom",
    figsize: tuple[float, float] = (4.8, 3.8),
) -> Figure:
    """Draw tokens as the rows of a matrix: token n (1-based) is row n, its values left to right.

    Args:
        tokens: array of shape (N, L), values in [0, 1] (colour limits 0..1).
        ax: axes to draw on; a new figure when None.
        title: axes title.
        colorbar: add a colour bar.
        colorbar_location: "bottom" (below the matrix, which keeps the figure narrow) or
            "right".
        figsize: size of a new figure.

    Returns:
        The figure.
    """
    tokens = as_array(tokens)
    count, length = tokens.shape
    from matplotlib.ticker import MaxNLocator

    fig = show_matrix(
        tokens,
        ax=ax,
        title=title,
        vmin=0.0,
        vmax=1.0,
        xlabel=f"position in the token (0 ... {length - 1})",
        ylabel="token (patch number)",
        figsize=figsize,
    )
    ax = ax or fig.axes[0]
    if colorbar:
        fig.colorbar(ax.images[0], ax=ax, shrink=0.8, location=colorbar_location)
    labels = _one_based_ticks(count)
    ax.set_yticks([n - 1 for n in labels], [str(n) for n in labels])
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True, min_n_ticks=1))
    return fig


def show_tokenization(
    image,
    patch_size: int,
    max_labels: int = 60,
    figsize: tuple[float, float] = (8, 3),
) -> Figure:
    """Draw an image cut into P x P patches next to the token matrix those patches make.

    Patches are numbered (1-based) only when there are at most ``max_labels`` of them, and grid
    lines are drawn only for patches of 4 pixels or more, so that P = 1 (one token per pixel)
    stays readable and quick to draw.

    Args:
        image: array of shape (H, W), values in [0, 1]; ``patch_size`` must divide H and W.
        patch_size: side P of the patches.
        max_labels: largest number of patches that get a number.
        figsize: size of the figure.

    Returns:
        The figure: the patch grid on the left, the (N, P*P) token matrix on the right.
    """
    image = as_array(image)
    tokens = patchify(torch.as_tensor(image)[None, None], patch_size)[0]  # (N, P*P)
    count, length = tokens.shape
    rows, cols = image.shape[0] // patch_size, image.shape[1] // patch_size
    fig = fixed_figure(figsize, left=0.07, right=0.97, bottom=0.15, top=0.9, wspace=0.3)
    ax_grid, ax_tokens = fig.subplots(1, 2, width_ratios=[5, 3])
    grid_title = f"P = {patch_size}: {rows} x {cols} = {count} patches"
    if count <= max_labels:
        show_patch_grid(image, patch_size, ax=ax_grid, title=grid_title)
    else:
        show_image(image, ax=ax_grid, title=grid_title)
        if patch_size >= 4:
            for edge in range(patch_size, image.shape[0], patch_size):
                ax_grid.axhline(edge - 0.5, color="white", lw=0.5)
            for edge in range(patch_size, image.shape[1], patch_size):
                ax_grid.axvline(edge - 0.5, color="white", lw=0.5)
    show_token_matrix(
        tokens, ax=ax_tokens, title=f"{count} tokens of length {length}", colorbar_location="right"
    )
    return fig
